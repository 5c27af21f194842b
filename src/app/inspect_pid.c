/* inspect PID: one collector refresh, the row of that PID, and for each LLM
 * model it holds the plan from its own flags (the estimator, through the
 * model inspector of cmd_inspect.h). Headers come from the shared cache, so a
 * 150k-token vocabulary is parsed once. */
#include "app/inspect_pid.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "portable.h"

#include "app/cmd_inspect.h"
#include "app/trace_wait.h"
#include "collect/collector.h"
#include "core/format.h"
#include "explain/explain.h"
#include "identify/ident.h"
#include "platform.h"
#include "views/ident_json.h"
#include "views/explain_text.h"
#include "views/ident_text.h"
#include "views/json.h"
#include "views/json_util.h"

/* Models worth a plan: held (not merely installed) LLM-family files of a
 * process whose llama.cpp flags we parsed. */
static bool model_plannable(const struct gtm_ident *id, const struct ident_model *m)
{
	return id->flags && m->path && m->have_info && !ident_model_unproven(m) &&
	       (m->role == MODEL_ROLE_MODEL || m->role == MODEL_ROLE_DRAFT) &&
	       (m->info.kind == GGUF_KIND_LLM || m->info.kind == GGUF_KIND_EMBEDDING ||
		m->info.kind == GGUF_KIND_RERANKER || m->info.kind == GGUF_KIND_DECISION);
}

static const struct gtm_process *find_pid(const struct gtm_snapshot *s, uint32_t pid)
{
	for (int i = 0; i < s->n_processes; i++)
		if (s->processes[i].pid == pid)
			return &s->processes[i];
	return NULL;
}

/* A process on several GPUs: its total, the sum of the driver's figures
 * (N/A when one is not measured: a part is not the whole). */
static void print_vram_total(FILE *out, const struct gtm_process *p)
{
	char b[32];
	uint64_t sum = 0;
	bool all = true;
	int n = 0;
	for (int i = 0; i < p->n_uses; i++) {
		bool seen = false;
		for (int k = 0; k < i; k++)
			seen |= p->uses[k].dev_index == p->uses[i].dev_index;
		n += !seen;
		all &= gtm_u64_ok(p->uses[i].vram);
		sum += gtm_u64_ok(p->uses[i].vram) ? p->uses[i].vram.v : 0;
	}
	fprintf(out, "  total     vram %s over %d GPUs%s\n", all ? fmt_bytes_raw(b, sizeof b, sum) : "N/A", n,
		all ? " (measured)" : " (a GPU's figure is N/A)");
}

static void print_header(FILE *out, const struct gtm_process *p)
{
	const struct gtm_proc_detail *d = p->detail;
	char rss[32], vram[32];

	char e1[256], e2[1024];
	/* everything below comes from /proc: another user's process names itself */
	fprintf(out, "Process %u  %s  user %s\n", p->pid, fmt_safe(e1, sizeof e1, p->name[0] ? p->name : "?"),
		p->user[0] ? p->user : "?");
	fprintf(out, "  command   ");
	if (!d || d->argc == 0)
		fprintf(out, "N/A (not readable)");
	for (int i = 0; d && i < d->argc; i++)
		fprintf(out, "%s%s", i ? " " : "", fmt_safe(e2, sizeof e2, d->argv[i]));
	fprintf(out, "\n  exe       %s\n", fmt_safe(e2, sizeof e2, d && d->exe ? d->exe : "N/A"));
	fprintf(out, "  cwd       %s\n", fmt_safe(e2, sizeof e2, d && d->cwd ? d->cwd : "N/A"));
	fprintf(out, "  rss       %s\n", fmt_bytes(rss, sizeof rss, p->rss));
	for (int i = 0; i < p->n_uses; i++)
		fprintf(out, "  GPU %d     vram %s%s%s\n", p->uses[i].dev_index, fmt_bytes(vram, sizeof vram, p->uses[i].vram),
			gtm_u64_ok(p->uses[i].vram) ? " (measured)" : "", p->uses[i].compute ? "  compute" : "");
	if (p->n_uses == 0)
		fprintf(out, "  GPU       no GPU use reported for this process\n");
	else if (p->n_uses > 1)
		print_vram_total(out, p);
}

/* llama-server loads a draft (-md) under its own -cd/-ngld/-ctkd/-ctvd, not read here. */
static const char draft_note[] = "a draft model: planned with the process's main flags; its own -cd/-ngld/-ctkd are not read";

/* A CPU-only build offloads nothing, whatever -ngl says: planned with -ngl 0. */
static const char cpu_note[] = EXPLAIN_CPU_BUILD_WHY ": planned with -ngl 0, everything in host memory";

/* The flags a plan of p's models uses: its own, a CPU-only build's with no GPU
 * layer (none parsed: zeros, and model_plannable plans nothing). */
static struct llama_flags plan_flags(const struct gtm_process *p)
{
	struct llama_flags f = p->ident->flags ? *p->ident->flags : (struct llama_flags){0};
	if (explain_cpu_only_build(p)) {
		f.n_gpu_layers = 0;
		f.defaulted &= ~(unsigned)LF_DEF_NGL;
	}
	return f;
}

/* A running process's model is already in the free-memory figure. */
static const char held_note[] = "fit not checked: the process already holds this model, so free memory excludes it";

static int print_text(const struct gtm_process *p)
{
	const struct gtm_ident *id = p->ident;
	print_header(stdout, p);
	if (!id) {
		puts("  identity  N/A");
		return 0;
	}
	ident_text_print_full(stdout, id, "  ");
	struct llama_flags flags = plan_flags(p);
	if (p->explain) {
		/* what the runtime said about itself: logs, API, the breakdown */
		putchar('\n');
		explain_text_print_full(stdout, p->explain, "  ");
	}
	for (int i = 0; i < id->n_models; i++) {
		const struct ident_model *m = &id->models[i];
		struct inspect_model im;
		char err[256];
		if (!model_plannable(id, m))
			continue;
		char e3[512];
		printf("\nMemory plan of %s from the process's flags\n", fmt_safe(e3, sizeof e3, m->name ? m->name : m->path));
		if (m->role == MODEL_ROLE_DRAFT)
			printf("  (%s)\n", draft_note);
		if (explain_cpu_only_build(p))
			printf("  (%s)\n", cpu_note);
		if (!inspect_model_load(&im, m->path, true, m->store != MODEL_STORE_NONE ? m->name : NULL, &flags, err,
					sizeof err)) {
			printf("  N/A (%s)\n", err);
			continue;
		}
		im.fit_note = held_note;
		inspect_model_print(stdout, &im);
		inspect_model_release(&im);
	}
	return 0;
}

static int print_json(const struct gtm_process *p)
{
	json_t *plans = json_array();
	const struct gtm_ident *id = p->ident;
	struct jw *w = malloc(sizeof *w);
	struct llama_flags flags = id ? plan_flags(p) : (struct llama_flags){0};

	for (int i = 0; id && i < id->n_models; i++) {
		const struct ident_model *m = &id->models[i];
		struct inspect_model im;
		char err[256];
		if (!model_plannable(id, m))
			continue;
		json_t *plan = json_object();
		json_put(plan, "model_path", json_of_str(m->path));
		json_put(plan, "role", json_string(model_role_name(m->role)));
		json_put(plan, "note", m->role == MODEL_ROLE_DRAFT ? json_string(draft_note) : json_null());
		json_put(plan, "cpu_build", explain_cpu_only_build(p) ? json_string(cpu_note) : json_null());
		if (inspect_model_load(&im, m->path, true, m->store != MODEL_STORE_NONE ? m->name : NULL, &flags, err,
				       sizeof err)) {
			im.fit_note = held_note;
			json_put(plan, "plan", inspect_model_json(&im));
			inspect_model_release(&im);
		} else {
			json_put(plan, "plan", json_null());
			json_put(plan, "error", json_of_str(err));
		}
		json_array_append_new(plans, plan);
	}
	if (!w) {
		json_decref(plans);
		return 1;
	}
	os_stdout_binary();
	jw_init(w, stdout);
	jw_begin_object(w, NULL);
	jw_process_members(w, p);
	jw_json(w, "memory_plans", plans);
	jw_end_object(w);
	int rc = jw_finish(w);
	free(w);
	return rc == 0 ? 0 : 1;
}

struct pid_args {
	bool json, no_probe, trace_opens;
	double trace_wait_s; /* --trace-wait S (default 2) */
};

static int parse_args(uint32_t pid, int argc, char **argv, struct pid_args *a)
{
	char pid_s[16];
	snprintf(pid_s, sizeof pid_s, "%u", pid);
	*a = (struct pid_args){.trace_wait_s = 2.0};
	for (int i = 0; i < argc; i++) {
		char *end;
		if (!strcmp(argv[i], "--json"))
			a->json = true;
		else if (!strcmp(argv[i], "--no-probe"))
			a->no_probe = true;
		else if (!strcmp(argv[i], "--trace-opens"))
			a->trace_opens = true;
		else if (!strcmp(argv[i], "--trace-wait")) {
			if (i + 1 >= argc || (a->trace_wait_s = strtod(argv[++i], &end), *end || end == argv[i]) ||
			    !(a->trace_wait_s >= 0 && a->trace_wait_s <= 3600)) {
				fprintf(stderr, "gputaskman inspect: --trace-wait needs a number of seconds from 0 to 3600\n");
				return 2;
			}
		} else if (strcmp(argv[i], "inspect") != 0 && strcmp(argv[i], pid_s) != 0 &&
			 strspn(argv[i], "0123456789") != strlen(argv[i])) {
			fprintf(stderr, "gputaskman inspect: unknown argument for inspect PID: %s\n", argv[i]);
			return 2;
		}
	}
	return 0;
}

int inspect_pid_main(uint32_t pid, int argc, char **argv)
{
	struct pid_args a;
	int rc = parse_args(pid, argc, argv, &a);
	if (rc)
		return rc;
	/* no process: say so before paying for a whole refresh */
	if (!proc_pid_exists(pid)) {
		fprintf(stderr, "gputaskman inspect: no process with PID %u\n", pid);
		return 2;
	}
	struct collector *c = collector_new(&(struct collector_opts){
		.one_shot = true, .gpu_filter = -1, .only_pid = pid, .no_probe = a.no_probe, .trace_opens = a.trace_opens});
	struct gtm_snapshot *s = trace_wait_refresh(c, a.trace_opens, a.trace_wait_s, "gputaskman inspect");
	const struct gtm_process *p = find_pid(s, pid);

	if (!p) {
		fprintf(stderr, "gputaskman inspect: no process with PID %u\n", pid);
		rc = 2;
	} else {
		rc = a.json ? print_json(p) : print_text(p);
	}
	snapshot_free(s);
	collector_free(c);
	if (fflush(stdout) != 0)
		rc = 1;
	return rc;
}
