/* Which log speaks for a process, and which of its load blocks is current:
 * llama.cpp's --log-file (resolved against the process's cwd, or its stderr
 * when that is a regular file), Ollama's server.log for a runner. A block is
 * current only when written after the process started (file mtime and start
 * time; relative timestamps count from process start); older ones are history. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "explain/explain_internal.h"
#include "identify/app_folders.h"
#include "identify/ident.h"
#include "llm/ollama_log.h"
#include "portable.h"

#define START_SLACK_S 2 /* clock ticks vs file times */

/* The path as the process sees it (shown), and where this process reads it:
 * through /proc/PID/root when readable (containers), else as is; both are
 * paths of the observed system (logfile.c reads them under the root). Relative
 * paths join the process's cwd. */
static bool resolve_path(const struct gtm_process *p, const char *path, char *out, size_t n, char *shown,
			 size_t shown_n)
{
	char abs[1024];
	/* absolute as this OS writes paths: a Windows log is at C:\... */
	if (os_path_absolute(path))
		str_copy(abs, path, sizeof abs);
	else if (p->detail && p->detail->cwd && os_path_absolute(p->detail->cwd))
		snprintf(abs, sizeof abs, "%s%c%s", p->detail->cwd, OS_PATH_SEP, path);
	else
		return false;
	str_copy(shown, abs, shown_n);
	if (p->pid && (size_t)snprintf(out, n, "/proc/%u/root%s", p->pid, abs) < n && sysroot_access(R_OK, "%s", out) == 0)
		return true;
	str_copy(out, abs, n);
	return true;
}

static void parse_into(struct llama_log *lg, bool ollama, const char *buf, size_t len)
{
	if (ollama)
		ollama_log_parse(lg, buf, len);
	else
		llama_log_parse(lg, buf, len);
}

/* A long-running server's last 512 KiB hold only request lines: its load
 * block is at the start of its log. Read the head too (bounded the same way),
 * then the tail, so the loads are found and the newest lines still win. */
static void parse_head_then_tail(struct log_entry *e, bool ollama, const char *path)
{
	size_t hlen = 0;
	char *head = head_read(path, LOG_TAIL_MAX, &hlen);
	if (!head)
		return;
	llama_log_init(e->lg);
	parse_into(e->lg, ollama, head, hlen);
	parse_into(e->lg, ollama, e->tf.buf, e->tf.len);
	free(head);
}

static struct log_entry *log_get(struct explain_ctx *c, const char *path, bool ollama, int *err)
{
	struct log_entry *e = NULL, *lru = &c->logs[0];
	for (int i = 0; i < EXC_LOGS; i++) {
		if (c->logs[i].tf.valid && strcmp(c->logs[i].tf.path, path) == 0 && c->logs[i].ollama == ollama)
			e = &c->logs[i];
		if (c->logs[i].used < lru->used)
			lru = &c->logs[i];
	}
	if (!e) {
		e = lru;
		tail_free(&e->tf);
		e->ollama = ollama;
		c->logs_filled = true;
	}
	int rc = tail_read(&e->tf, path, LOG_TAIL_MAX);
	if (rc < 0) {
		*err = errno;
		tail_free(&e->tf);
		return NULL;
	}
	e->used = c->refresh;
	if (rc == 2 && e->lg) { /* appended: the parse goes on from its state */
		parse_into(e->lg, ollama, e->tf.buf, e->tf.len);
	} else if (rc != 0 || !e->lg) {
		if (!e->lg)
			e->lg = xmalloc(sizeof *e->lg);
		llama_log_init(e->lg);
		parse_into(e->lg, ollama, e->tf.buf, e->tf.len);
		if (e->tf.cut && e->lg->n_loads == 0)
			parse_head_then_tail(e, ollama, path);
	}
	return e;
}

void ex_log_entries_free(struct explain_ctx *c)
{
	if (!c->logs_filled)
		return;
	for (int i = 0; i < EXC_LOGS; i++) {
		tail_free(&c->logs[i].tf);
		free(c->logs[i].lg);
		c->logs[i].lg = NULL;
	}
}

static uint64_t load_total(const struct llog_load *l)
{
	uint64_t t = 0;
	for (int i = 0; i < l->n_buffers; i++)
		t += l->buffers[i].bytes;
	return t;
}

static int64_t load_time(const struct llog_load *l, int64_t run_start_s)
{
	if (l->t_wall_s >= 0)
		return l->t_wall_s;
	if (run_start_s >= 0 && l->t_rel_s >= 0)
		return run_start_s + (int64_t)l->t_rel_s;
	return -1;
}

static void add_history(struct gtm_explain *e, const struct llog_load *l, bool other_run, int64_t run_start_s)
{
	if (e->log.n_history == EX_MAX_HISTORY)
		return;
	struct ex_log_history *h = &e->log.history[e->log.n_history++];
	str_copy(h->model, l->model, sizeof h->model);
	h->at_s = load_time(l, other_run ? -1 : run_start_s);
	h->rel_s = l->t_rel_s;
	h->total_bytes = load_total(l);
	h->other_run = other_run;
}

static void fill_current(struct gtm_explain *e, const struct llog_load *l, int64_t start_s)
{
	struct ex_log *g = &e->log;
	str_copy(g->state, "current", sizeof g->state);
	str_copy(g->model, l->model, sizeof g->model);
	g->loaded_at_s = load_time(l, start_s);
	g->n_ctx = l->n_ctx, g->n_seq_max = l->n_seq_max;
	g->n_slots = l->n_slots, g->n_ctx_slot = l->n_ctx_slot;
	g->kv_unified = l->kv_unified, g->flash_attn = l->flash_attn;
	g->layers_offloaded = l->layers_offloaded, g->layers_total = l->layers_total;
	g->runtime_estimate = l->runtime_estimate;
	g->has_buffers = l->n_buffers > 0;
	for (int i = 0; i < l->n_kv && g->n_kv < EX_MAX_KV; i++) {
		struct ex_kv *k = &g->kv[g->n_kv++];
		k->bytes = l->kv[i].bytes, k->cells = l->kv[i].cells, k->layers = l->kv[i].layers;
		k->seqs_used = l->kv[i].seqs_used, k->seqs_max = l->kv[i].seqs_max, k->swa = l->kv[i].swa;
		str_copy(k->type_k, l->kv[i].type_k, sizeof k->type_k);
		str_copy(k->type_v, l->kv[i].type_v, sizeof k->type_v);
	}
	const struct llog_bd_table *t = l->bd_final.n_rows ? &l->bd_final : &l->bd_fit;
	g->has_bd = t->n_rows > 0;
	g->bd_is_projection = t == &l->bd_fit;
	for (int i = 0; i < t->n_rows && g->n_bd < 8; i++) {
		const struct llog_bd_row *r = &t->rows[i];
		str_copy(g->bd[g->n_bd].device, r->device, sizeof g->bd[0].device);
		g->bd[g->n_bd].total = r->total, g->bd[g->n_bd].free = r->free, g->bd[g->n_bd].self = r->self;
		g->bd[g->n_bd].model = r->model, g->bd[g->n_bd].context = r->context;
		g->bd[g->n_bd].compute = r->compute, g->bd[g->n_bd].unaccounted = r->unaccounted;
		g->n_bd++;
	}
}

/* llama.cpp: the last run's latest block is current when the file was written
 * after the process started. */
static const struct llog_load *classify_llama(struct explain_ctx *c, const struct gtm_process *p,
					      const struct log_entry *le, struct gtm_explain *e)
{
	const struct llama_log *lg = le->lg;
	int64_t start = ex_process_start_s(c, p), mtime = le->tf.mtime_ns / 1000000000;
	const struct llog_load *cur = NULL;
	e->log.verbosity = lg->verbosity;
	bool stale = start >= 0 && mtime + START_SLACK_S < start;
	for (int i = lg->n_loads - 1; i >= 0; i--) {
		const struct llog_load *l = &lg->loads[i];
		bool last_run = l->run == lg->n_runs - 1;
		if (!cur && last_run && !stale)
			cur = l;
		else
			add_history(e, l, !last_run || stale, start);
	}
	if (cur)
		fill_current(e, cur, start);
	else
		str_copy(e->log.state, lg->n_loads ? "history-only" : "no-load-lines", sizeof e->log.state);
	if (stale)
		snprintf(e->log.message, sizeof e->log.message, "the log was last written before this process started");
	if (cur && !cur->n_buffers && !strcmp(e->log.kind, "llama.cpp"))
		snprintf(e->log.message, sizeof e->log.message,
			 "no buffer sizes at this verbosity: -lv 4 adds the buffer lines");
	return cur;
}

static long arg_port(const struct gtm_process *p)
{
	for (int i = 0; p->detail && i + 1 < p->detail->argc; i++)
		if (p->detail->argv[i] && !strcmp(p->detail->argv[i], "--port") && p->detail->argv[i + 1])
			return strtol(p->detail->argv[i + 1], NULL, 10);
	return -1;
}

static int count_runners(const struct gtm_snapshot *snap, const struct gtm_process *p)
{
	int n = 0;
	for (int i = 0; i < snap->n_processes; i++)
		if (snap->processes[i].ppid == p->ppid && ex_is_ollama_runner(&snap->processes[i]))
			n++;
	return n;
}

/* Ollama: the runner's block by --port, else the latest block after the
 * runner started when it is the only runner. */
static const struct llog_load *classify_ollama(struct explain_ctx *c, const struct gtm_snapshot *snap,
					       const struct gtm_process *p, const struct log_entry *le,
					       struct gtm_explain *e)
{
	const struct llama_log *lg = le->lg;
	int64_t start = ex_process_start_s(c, p);
	long port = arg_port(p);
	const struct llog_load *cur = NULL;
	for (int i = lg->n_loads - 1; i >= 0 && !cur; i--) {
		const struct llog_load *l = &lg->loads[i];
		bool after = start < 0 || l->t_wall_s < 0 || l->t_wall_s + START_SLACK_S >= start;
		if (after && port > 0 && l->port == port)
			cur = l;
	}
	int runners = count_runners(snap, p);
	for (int i = lg->n_loads - 1; i >= 0 && !cur && runners <= 1; i--) {
		const struct llog_load *l = &lg->loads[i];
		if (start >= 0 && l->t_wall_s >= 0 && l->t_wall_s + START_SLACK_S >= start)
			cur = l;
	}
	for (int i = lg->n_loads - 1; i >= 0; i--)
		if (&lg->loads[i] != cur)
			add_history(e, &lg->loads[i], true, -1);
	if (cur)
		fill_current(e, cur, start);
	else {
		str_copy(e->log.state, runners > 1 ? "ambiguous" : "history-only", sizeof e->log.state);
		if (runners > 1)
			snprintf(e->log.message, sizeof e->log.message,
				 "%d runners and no block names this one's port: not attributed", runners);
	}
	return cur;
}

static bool ollama_log_path(const struct gtm_process *p, char *out, size_t n, char *shown, size_t sn)
{
	const char *o = proc_detail_getenv(p->detail, "OLLAMA_LOGS");
	char path[768], dflt[1][APP_FOLDER_MAX];
	if (o && o[0])
		snprintf(path, sizeof path, str_ends(o, ".log") ? "%s" : "%s/server.log", o);
	else if (app_folders(p->detail, PLATFORM_FOLDER_OLLAMA_LOG, dflt, 1) == 1)
		snprintf(path, sizeof path, "%s", dflt[0]);
	else
		return false;
	return resolve_path(p, path, out, n, shown, sn);
}

/* The target of /proc/PID/fd/FD, without the " (deleted)" the kernel adds
 * once the file is unlinked; false when it is no path (a pipe, a socket). */
static bool fd_target(uint32_t pid, const char *fd, char *out, size_t n, bool *deleted)
{
	static const char del[] = " (deleted)";
	if (!pid || sysroot_readlink(out, n, "/proc/%u/fd/%s", pid, fd) <= 0 || out[0] != '/')
		return false;
	size_t len = strlen(out);
	*deleted = len > sizeof del - 1 && !strcmp(out + len - (sizeof del - 1), del);
	if (*deleted)
		out[len - (sizeof del - 1)] = '\0';
	return true;
}

/* Whether an fd's target is the file --log-file names: the same path, or,
 * for a relative flag, a path ending in it (the process may have changed its
 * working directory since it opened the log). */
static bool fd_is_log(const char *target, const char *flag, const char *abs)
{
	if ((abs[0] && !strcmp(target, abs)) || !strcmp(target, flag))
		return true;
	if (flag[0] == '/')
		return false;
	while (str_starts(flag, "./"))
		flag += 2;
	size_t tl = strlen(target), fl = strlen(flag);
	return fl && tl > fl && target[tl - fl - 1] == '/' && !strcmp(target + tl - fl, flag);
}

/* When the --log-file path cannot be read from here (a missing folder, a
 * deleted file, a relative path from another working directory): the
 * process's own descriptor of it in /proc/PID/fd, else its stderr when that
 * is a file (llama-server writes the same lines there). Returns the fd and
 * its /proc path under the root in out, or -1. */
static bool maps_file(const struct gtm_process *p, const char *path)
{
	for (size_t i = 0; p->detail && i < p->detail->n_maps; i++)
		if (p->detail->maps[i] && !strcmp(p->detail->maps[i], path))
			return true;
	return false;
}

/* A log renamed while the process writes it (mv, logrotate's server.log.1): a
 * file past stdio, no device and no mapped file (the model), in the folder the
 * log's path names or named after it. log_fd takes it only when it is the one. */
static bool renamed_candidate(const struct gtm_process *p, long fd, const char *target, const char *flag,
			      const char *abs)
{
	const char *path = abs[0] ? abs : flag, *base = path_base(path), *tbase = path_base(target);
	size_t dir = (size_t)(base - path);
	bool same_dir = dir > 0 && (size_t)(tbase - target) == dir && !strncmp(target, path, dir);
	return fd > 2 && !str_starts(target, "/dev/") && !str_starts(target, "/proc/") && !maps_file(p, target) &&
	       (same_dir || (base[0] && str_starts(tbase, base)));
}

static int log_fd(const struct gtm_process *p, const char *flag, const char *abs, char *out, size_t n, bool *deleted,
		  char *renamed, size_t rn)
{
	char t[1024];
	int found = -1, other = -1, n_other = 0;
	bool other_deleted = false;
	DIR *d = p->pid ? sysroot_opendir("/proc/%u/fd", p->pid) : NULL;
	struct dirent *de;
	/* only when the path failed; bounded for a process holding very many fds */
	for (int k = 0; d && found < 0 && k < 4096 && (de = readdir(d)); k++) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		if (end == de->d_name || *end || fd < 0 || fd > 1 << 30 || !fd_target(p->pid, de->d_name, t, sizeof t, deleted))
			continue;
		if (fd_is_log(t, flag, abs)) {
			found = (int)fd;
		} else if (renamed_candidate(p, fd, t, flag, abs) && n_other++ == 0) {
			other = (int)fd;
			other_deleted = *deleted;
			str_copy(renamed, t, rn);
		}
	}
	if (d)
		closedir(d);
	if (found < 0 && n_other == 1) {
		found = other; /* renamed: its fd still reads it */
		*deleted = other_deleted;
	} else {
		renamed[0] = '\0';
	}
	if (found < 0 && fd_target(p->pid, "2", t, sizeof t, deleted) && !str_starts(t, "/dev/"))
		found = 2;
	/* read through the link itself: it opens the file the process holds, deleted or not */
	if (found < 0 || (size_t)snprintf(out, n, "/proc/%u/fd/%d", p->pid, found) >= n)
		return -1;
	return found;
}

/* *flag: the --log-file value, NULL when the log is stderr. out is "" when
 * the flag's path cannot be formed (relative, the cwd unknown). *deleted:
 * stderr is a deleted file, out its fd. */
static bool llama_log_path(const struct gtm_process *p, char *out, size_t n, char *shown, size_t sn, const char **flag,
			   bool *deleted)
{
	const struct gtm_ident *id = p->ident;
	*flag = NULL;
	*deleted = false;
	if (id && id->flags && id->flags->log_file && id->flags->log_file[0]) {
		*flag = id->flags->log_file;
		if (!resolve_path(p, *flag, out, n, shown, sn)) {
			out[0] = '\0';
			str_copy(shown, *flag, sn);
		}
		return true;
	}
	/* stderr redirected into a file is the same log; once deleted, read through the fd */
	char fd2[512];
	if (!fd_target(p->pid, "2", fd2, sizeof fd2, deleted) || str_starts(fd2, "/dev/"))
		return false;
	if (!*deleted)
		return resolve_path(p, fd2, out, n, shown, sn);
	str_copy(shown, fd2, sn);
	return (size_t)snprintf(out, n, "/proc/%u/fd/2", p->pid) < n;
}

const struct llog_load *ex_logs_explain(struct explain_ctx *c, const struct gtm_snapshot *snap,
					const struct gtm_process *p, struct gtm_explain *e)
{
	bool ollama = ex_is_ollama_runner(p);
	char path[1024], shown[1024];
	const char *flag = NULL;
	bool deleted = false;
	e->log.verbosity = -1;
	if (!p->detail || !(ollama ? ollama_log_path(p, path, sizeof path, shown, sizeof shown)
				   : llama_log_path(p, path, sizeof path, shown, sizeof shown, &flag, &deleted)))
		return NULL;
	if (!ollama && !ident_find_runtime(p->ident, "llama.cpp"))
		return NULL;
	e->log.present = true;
	str_copy(e->log.kind, ollama ? "ollama" : "llama.cpp", sizeof e->log.kind);
	str_copy(e->log.path, shown, sizeof e->log.path);
	int err = ENOENT, fd_err;
	const struct log_entry *le = path[0] ? log_get(c, path, ollama, &err) : NULL;
	char via[1024], renamed[1024] = "";
	int fd = !le && flag ? log_fd(p, flag, path[0] ? shown : "", via, sizeof via, &deleted, renamed, sizeof renamed)
			     : -1;
	if (fd >= 0 && (le = log_get(c, via, ollama, &fd_err))) {
		e->log.read_via_fd = true;
		e->log.read_fd = fd;
	} else if (le && !flag && deleted) { /* stderr, a deleted file */
		e->log.read_via_fd = true;
		e->log.read_fd = 2;
	}
	if (!le) {
		str_copy(e->log.state, "unreadable", sizeof e->log.state);
		snprintf(e->log.message, sizeof e->log.message, "%s", strerror(err));
		return NULL;
	}
	const struct llog_load *cur = ollama ? classify_ollama(c, snap, p, le, e) : classify_llama(c, p, le, e);
	if (e->log.read_via_fd && !e->log.message[0]) /* a message of the log's own content says more */
		snprintf(e->log.message, sizeof e->log.message, "its path cannot be read here (%s)%s%s%s",
			 !flag ? "deleted" : path[0] ? strerror(err) : "relative, the working directory unknown",
			 flag && deleted ? "; the process holds it deleted" : "", renamed[0] ? "; renamed to " : "",
			 renamed);
	if (cur && cur->model[0] && p->ident) {
		char key[1024];
		ex_model_key(p, cur->model, key, sizeof key);
		/* the log's path ("log: log" said nothing) */
		ident_add_model_evidence_detail(p->ident, key, MODEL_EV_LOG, e->log.path);
	}
	return cur;
}
