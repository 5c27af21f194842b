/* App adapters as data: where an app keeps its settings and log, which
 * settings key names its selected model, and which log lines are model
 * events. The next app is one more table entry.
 *
 * Handy (github.com/cjpais/Handy), read from its sources: settings in the
 * Tauri store `settings_store.json` under the app data folder
 * (identifier com.pais.handy → ~/.local/share/com.pais.handy on Linux,
 * %APPDATA%\com.pais.handy on Windows: platform_folder_rules), key
 * "settings" → "selected_model" (settings.rs); model events from
 * managers/transcription.rs ("Starting to load model: ID", "Successfully
 * loaded transcription model: ID", "Model unloaded ...", "Immediately
 * unloading model after ..."). The log folder is tauri-plugin-log's LogDir
 * (Linux: ~/.local/share/com.pais.handy/logs, Windows:
 * %LOCALAPPDATA%\com.pais.handy\logs, macOS: ~/Library/Logs/com.pais.handy);
 * the streaming/preview wording is unverified.
 * A selection is not load evidence; log events are history, not residency;
 * transcription text is never read into the snapshot. */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/sysroot.h"
#include "core/util.h"
#include "explain/explain_internal.h"
#include "explain/logfile.h"
#include "identify/app_folders.h"
#include "identify/ident.h"
#include "llm/log_scan.h"
#include "llm/ollama_log.h"

#define SETTINGS_MAX (1u << 20)

struct app_event_pattern {
	const char *needle;     /* substring of the message */
	const char *kind;       /* "load", "stream-start", "preview", "unload" */
	bool detail_follows;    /* the model id follows the needle */
};

struct app_adapter {
	const char *id;
	const char *comms[6];           /* process names (comm, or exe base name: Windows's keeps .exe) */
	enum platform_folder data_dir;  /* the app's data folder (the platform's rules) */
	const char *settings_file;      /* in data_dir */
	const char *settings_keys[3];   /* path to the selected model in the JSON */
	enum platform_folder log_dir;   /* the app's log folder (the platform's rules); the newest *.log is read */
	const struct app_event_pattern *events;
	size_t n_events;
};

static const struct app_event_pattern handy_events[] = {
	{"Starting to load model: ", "load", true},
	{"Successfully loaded transcription model: ", "load", true},
	{"Model unloaded", "unload", false},
	{"Immediately unloading model", "unload", false},
	{"Starting streaming", "stream-start", false},  /* unverified wording */
	{"Streaming transcription started", "stream-start", false}, /* unverified wording */
	{"Streaming preview", "preview", false},        /* unverified wording */
	{"Preview transcription", "preview", false},    /* unverified wording */
};

static const struct app_adapter adapters[] = {
	{"handy", {"handy", "Handy", "handy.exe", "Handy.exe", NULL}, PLATFORM_FOLDER_HANDY_DATA, "settings_store.json",
	 {"settings", "selected_model", NULL}, PLATFORM_FOLDER_HANDY_LOGS, handy_events, ARRAY_LEN(handy_events)},
};

static const struct app_adapter *adapter_for(const struct gtm_process *p)
{
	const char *exe = p->detail && p->detail->exe ? path_base(p->detail->exe) : "";
	for (size_t i = 0; i < ARRAY_LEN(adapters); i++)
		for (size_t k = 0; k < ARRAY_LEN(adapters[i].comms) && adapters[i].comms[k]; k++)
			if (!strcmp(p->name, adapters[i].comms[k]) || !strcmp(exe, adapters[i].comms[k]))
				return &adapters[i];
	return NULL;
}

static void read_selected(const struct app_adapter *a, struct ex_app *app)
{
	struct tail_file tf = {0};
	if (tail_read(&tf, app->settings_path, SETTINGS_MAX) < 0) {
		snprintf(app->message, sizeof app->message, "settings not readable");
		return;
	}
	json_t *j = tf.cut ? NULL : json_loadb(tf.buf, tf.len, 0, NULL);
	const json_t *v = j;
	for (int i = 0; i < 3 && a->settings_keys[i] && v; i++)
		v = json_object_get(v, a->settings_keys[i]);
	if (json_is_string(v))
		str_copy(app->selected_model, json_string_value(v), sizeof app->selected_model);
	json_decref(j);
	tail_free(&tf);
}

/* "[2025-06-01][10:15:30][module][LEVEL] msg" (tauri-plugin-log) → Unix seconds, taken as UTC. */
static int64_t line_time(const char *p, const char *end)
{
	char iso[32];
	int64_t t;
	if (end - p < 22 || p[0] != '[' || p[11] != ']' || p[12] != '[' || p[21] != ']')
		return -1;
	snprintf(iso, sizeof iso, "%.10sT%.8sZ", p + 1, p + 13);
	return ollama_parse_time(iso, strlen(iso), &t) ? t : -1;
}

static void add_event(struct ex_app *app, const struct app_event_pattern *pat, const char *hit, const char *end,
		      int64_t t)
{
	if (app->n_events == EX_MAX_APP_EVENTS) {
		memmove(&app->events[0], &app->events[1], sizeof app->events[0] * (EX_MAX_APP_EVENTS - 1));
		app->n_events--;
	}
	struct ex_app_event *ev = &app->events[app->n_events++];
	memset(ev, 0, sizeof *ev);
	ev->at_s = t;
	str_copy(ev->kind, pat->kind, sizeof ev->kind);
	if (pat->detail_follows) {
		const char *d = hit + strlen(pat->needle), *de = d;
		while (de < end && *de != ' ' && *de != '\t')
			de++;
		ls_copy(ev->detail, sizeof ev->detail, d, (size_t)(de - d));
	}
}

/* Where the message starts: after "[date][time][module][LEVEL] ". */
static const char *message_start(const char *p, const char *end)
{
	const char *m = p;
	for (int i = 0; i < 4 && m < end && *m == '['; i++) {
		const char *close = memchr(m, ']', (size_t)(end - m));
		if (!close)
			return p;
		m = close + 1;
	}
	while (m < end && *m == ' ')
		m++;
	return m;
}

/* Only messages that start with a listed pattern count; every other line
 * (transcriptions included) is skipped unread. */
static void scan_events(const struct app_adapter *a, const char *buf, size_t len, struct ex_app *app)
{
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		const char *msg = message_start(p, nl);
		for (size_t i = 0; i < a->n_events; i++) {
			size_t nlen = strlen(a->events[i].needle);
			const char *hit = (size_t)(nl - msg) >= nlen && !memcmp(msg, a->events[i].needle, nlen) ? msg : NULL;
			if (hit) {
				add_event(app, &a->events[i], hit, nl, line_time(p, nl));
				break;
			}
		}
		p = nl + 1;
	}
}

static bool newest_log(const char *dir, char *out, size_t n)
{
	DIR *d = sysroot_opendir("%s", dir);
	struct dirent *e;
	int64_t best = -1;
	int seen = 0;
	if (!d)
		return false;
	while ((e = readdir(d)) && seen++ < 256) {
		char path[1024];
		struct stat st;
		if (!str_ends(e->d_name, ".log"))
			continue;
		snprintf(path, sizeof path, "%s%c%s", dir, OS_PATH_SEP, e->d_name);
		if (sysroot_stat(&st, "%s", path) == 0 && S_ISREG(st.st_mode) && st.st_mtime > best) {
			best = st.st_mtime;
			str_copy(out, path, n);
		}
	}
	closedir(d);
	return best >= 0;
}

bool ex_adapter_matches(const struct gtm_process *p)
{
	return adapter_for(p) != NULL;
}

void ex_adapters_explain(struct explain_ctx *c, const struct gtm_process *p, struct gtm_explain *e)
{
	const struct app_adapter *a = adapter_for(p);
	char data[1][APP_FOLDER_MAX];
	if (!a || app_folders(p->detail, a->data_dir, data, 1) < 1)
		return;
	struct ex_app *app = &e->app;
	app->present = true;
	str_copy(app->app, a->id, sizeof app->app);
	snprintf(app->settings_path, sizeof app->settings_path, "%s%c%s", data[0], OS_PATH_SEP, a->settings_file);
	read_selected(a, app);
	char dir[APP_FOLDER_MAX];
	if (!app_folder_existing(p->detail, a->log_dir, dir, sizeof dir) ||
	    !newest_log(dir, app->log_path, sizeof app->log_path))
		return;
	c->app_log_filled = true;
	int rc = tail_read(&c->app_log, app->log_path, LOG_TAIL_MAX);
	if (rc < 0) {
		tail_free(&c->app_log);
		snprintf(app->message, sizeof app->message, "log not readable");
		return;
	}
	if (rc >= 1) { /* 1: read again from the tail; 2: only the appended lines */
		memcpy(app->events, c->app_events, sizeof app->events);
		app->n_events = rc == 2 ? c->n_app_events : 0;
		scan_events(a, c->app_log.buf, c->app_log.len, app);
		memcpy(c->app_events, app->events, sizeof app->events);
		c->n_app_events = app->n_events;
		/* the text is not kept: only the events were taken from it */
		free(c->app_log.buf);
		c->app_log.buf = NULL;
		c->app_log.len = 0;
	} else {
		memcpy(app->events, c->app_events, sizeof app->events);
		app->n_events = c->n_app_events;
	}
}
