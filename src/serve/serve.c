#include "serve/serve.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"
#include "serve/containers.h"
#include "serve/http.h"
#include "serve/serve_gzip.h"
#include "serve/serve_signal.h"
#include "views/prom/prom_render.h"

/* Tunables; the environment overrides them for tests. */
#define SERVE_MAX_CONNECTIONS 1024   /* GTM_SERVE_MAX_CONNECTIONS */
#define SERVE_TIMEOUT_S 10           /* GTM_SERVE_TIMEOUT_S: idle and request deadline */
#define SERVE_REQUEST_BYTES 32768    /* request line, headers and query parameters of one connection */
#define SERVE_PER_CLIENT 32          /* GTM_SERVE_PER_CLIENT: connections one address may hold */
#define SERVE_RESERVE_SHARE 8        /* 1/8 of the slots are kept for clients holding none */

struct latest {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *text;                  /* the latest finished metrics; NULL before the first */
	size_t len;
	char *gz;                    /* the same, gzip-compressed; NULL when zlib is absent */
	size_t gz_len;
	bool quit, done;
	const struct serve_opts *o;
};

static const char index_html[] =
	"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gputaskman exporter</title></head>\n"
	"<body><h1>gputaskman exporter</h1>\n"
	"<p>GPU memory by process, model and memory segment, in the Prometheus text format.</p>\n"
	"<p><a href=\"/metrics\">/metrics</a></p>\n</body></html>\n";

static void handle(void *arg, const char *path, bool gzip, struct http_reply *r)
{
	struct latest *l = arg;
	if (!strcmp(path, "/metrics")) {
		pthread_mutex_lock(&l->mu);
		if (l->text) {
			bool z = gzip && l->gz;
			r->status = 200;
			r->content_type = PROM_CONTENT_TYPE;
			r->content_encoding = z ? "gzip" : NULL;
			r->len = z ? l->gz_len : l->len;
			r->body = xmalloc(r->len + 1);
			memcpy(r->body, z ? l->gz : l->text, r->len);
			r->body[r->len] = '\0';
		}
		pthread_mutex_unlock(&l->mu);
		if (!r->body) {
			r->status = 503;
			r->content_type = "text/plain; charset=utf-8";
			r->body = xstrdup("the first collection has not finished\n");
			r->len = strlen(r->body);
		}
		return;
	}
	bool index = !strcmp(path, "/");
	r->status = index ? 200 : 404;
	r->content_type = index ? "text/html; charset=utf-8" : "text/plain; charset=utf-8";
	r->body = xstrdup(index ? index_html : "not found: the metrics are at /metrics\n");
	r->len = strlen(r->body);
}

/* Waits until the next collection is due or quit; called with mu held. */
static void wait_due(struct latest *l, uint64_t started_ns)
{
	uint64_t due = started_ns + (uint64_t)(l->o->interval_s * 1e9);
	struct timespec ts = {(time_t)(due / 1000000000ull), (long)(due % 1000000000ull)};
	while (!l->quit && pthread_cond_timedwait(&l->cv, &l->mu, &ts) != ETIMEDOUT)
		;
}

static void *collect_main(void *arg)
{
	struct latest *l = arg;
	struct collector *c = collector_new(&l->o->collect);
	if (collector_trace_refused(c)) /* --trace-opens asked and refused: the plain scan serves */
		fprintf(stderr, "gputaskman serve: %s; the plain scan follows\n", collector_trace_refused(c));
	struct containers *ct = containers_new();
	struct prom_out out;
	struct prom_opts po = {.max_processes = l->o->max_processes, .collect_seconds = -1, .version = GTM_VERSION,
			       .os = "linux", .memory = prom_memory_new()};

	prom_out_init(&out);
	pthread_mutex_lock(&l->mu);
	while (!l->quit) {
		uint64_t started = now_monotonic_ns();
		pthread_mutex_unlock(&l->mu);
		struct gtm_snapshot *s = collector_refresh(c);
		po.collect_seconds = (double)(now_monotonic_ns() - started) / 1e9;
		po.containers = containers_update(ct, s, &po.n_containers);
		prom_out_reset(&out);
		prom_render(s, &po, &out);
		if (l->o->on_snapshot)
			l->o->on_snapshot(l->o->ctx, s);
		snapshot_free(s);
		char *text = xmalloc(out.text.len + 1), *gz = NULL;
		size_t gz_len = 0;
		memcpy(text, out.text.p ? out.text.p : "", out.text.len + 1);
		serve_gzip(text, out.text.len, &gz, &gz_len); /* once per collection, never per scrape */
		pthread_mutex_lock(&l->mu);
		free(l->text);
		free(l->gz);
		l->text = text;
		l->len = out.text.len;
		l->gz = gz;
		l->gz_len = gz_len;
		wait_due(l, started);
	}
	pthread_mutex_unlock(&l->mu);
	prom_out_free(&out);
	prom_memory_free(po.memory);
	containers_free(ct);
	collector_free(c);
	pthread_mutex_lock(&l->mu);
	l->done = true;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

static unsigned env_unsigned(const char *name, unsigned def, unsigned lo, unsigned hi)
{
	const char *v = getenv(name);
	char *end;
	if (!v || !*v)
		return def;
	unsigned long x = strtoul(v, &end, 10);
	return *end || x < lo || x > hi ? def : (unsigned)x;
}

/* Joins t within a few seconds, else detaches it: a thread stuck (in a slow
 * probe) is left behind. pthread_timedjoin_np is glibc's: this POSIX serve
 * has it; the live view, which Windows builds too, waits on a done flag. */
static bool thread_join_within(pthread_t t, unsigned seconds)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)seconds;
	if (pthread_timedjoin_np(t, NULL, &ts) == 0)
		return true;
	pthread_detach(t);
	return false;
}

/* Asks the collection thread to stop; a refresh stuck in a slow probe gets
 * a few seconds, then the process leaves without it. */
static bool stop_collector(struct latest *l, pthread_t t)
{
	pthread_mutex_lock(&l->mu);
	l->quit = true;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
	return thread_join_within(t, 3);
}

int serve_run(const struct serve_opts *o, bool *joined_out)
{
	/* on the heap: a collection thread that does not stop in time still owns it */
	struct latest *l = xcalloc(1, sizeof *l);
	struct http_config hc = {.addr = o->listen, .handler = handle, .arg = l};
	pthread_condattr_t ca;
	pthread_t t;
	char why[256], addr[80];

	l->o = o;
	if (joined_out)
		*joined_out = true; /* no thread yet */
	if (!http_available(why, sizeof why)) {
		fprintf(stderr, "gputaskman serve: %s\n", why);
		free(l);
		return 1;
	}
	unsigned want = env_unsigned("GTM_SERVE_MAX_CONNECTIONS", SERVE_MAX_CONNECTIONS, 1, 65536);
	unsigned fds = serve_raise_fd_limit(want + 64);
	hc.max_connections = fds > want + 64 ? want : fds > 128 ? fds - 64 : 64;
	hc.idle_timeout_s = hc.request_deadline_s = env_unsigned("GTM_SERVE_TIMEOUT_S", SERVE_TIMEOUT_S, 1, 3600);
	hc.request_bytes = SERVE_REQUEST_BYTES;
	hc.per_client = env_unsigned("GTM_SERVE_PER_CLIENT", SERVE_PER_CLIENT, 1, 65536);
	hc.reserve = hc.max_connections / SERVE_RESERVE_SHARE;
	if (!serve_gzip_available(why, sizeof why))
		fprintf(stderr, "gputaskman serve: no gzip replies: %s\n", why);

	pthread_mutex_init(&l->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&l->cv, &ca);
	pthread_condattr_destroy(&ca);
	serve_signals_hold(); /* before any thread starts: they inherit the mask */
	struct http_server *h = http_start(&hc, why, sizeof why);
	if (!h) {
		fprintf(stderr, "gputaskman serve: %s\n", why);
		serve_signals_release();
		pthread_cond_destroy(&l->cv);
		pthread_mutex_destroy(&l->mu);
		free(l);
		return 1;
	}
	if (pthread_create(&t, NULL, collect_main, l) != 0) {
		fprintf(stderr, "gputaskman serve: cannot start the collection thread\n");
		http_stop(h);
		serve_signals_release();
		pthread_cond_destroy(&l->cv);
		pthread_mutex_destroy(&l->mu);
		free(l);
		return 1;
	}
	serve_addr_format(&o->listen, http_port(h), addr, sizeof addr);
	fprintf(stderr, "gputaskman serve: listening on http://%s/metrics (collecting every %g s)\n", addr, o->interval_s);
	int sig;
	while ((sig = serve_signal_wait(1000)) == 0)
		http_sweep(h);
	fprintf(stderr, "gputaskman serve: signal %d, stopping\n", sig);
	http_stop(h);
	bool joined = stop_collector(l, t);
	if (joined_out)
		*joined_out = joined;
	serve_signals_release();
	if (joined) {
		free(l->text);
		free(l->gz);
		pthread_cond_destroy(&l->cv);
		pthread_mutex_destroy(&l->mu);
		free(l);
	}
	return 0;
}
