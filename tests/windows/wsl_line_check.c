/* The Linux side's host-stream parser (src/sources/wsl_proto.c) as a
 * checker for the Wine tests: reads lines on stdin and prints, per line,
 * one JSON object: {"ok": false, "err": ...} when wsl_line_parse refuses it,
 * else what it parsed (N/A as null). The same source as gputaskman's reader
 * under WSL, cross-built. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/wsl_proto.h"

static void put_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void put_u64(const char *key, gtm_u64 v)
{
	if (gtm_u64_ok(v))
		printf(", \"%s\": %llu", key, (unsigned long long)v.v);
	else
		printf(", \"%s\": null", key);
}

static void put_adapter(const struct wsl_host_adapter *a)
{
	printf("{\"luid\": ");
	put_str(a->luid);
	put_u64("ded", a->dedicated);
	put_u64("shared", a->shared);
	put_u64("committed", a->committed);
	printf(", \"vm\": [");
	for (int k = 0; k < a->vm.n; k++)
		printf("%s[%llu, %llu, %llu]", k ? ", " : "", (unsigned long long)a->vm.ctx[k].local,
		       (unsigned long long)a->vm.ctx[k].nonlocal, (unsigned long long)a->vm.ctx[k].committed);
	printf("]}");
}

static void put_proc(const struct wsl_host_sample *s, const struct wsl_host_proc *p)
{
	printf("{\"pid\": %u, \"name\": ", p->pid);
	put_str(p->name);
	printf(", \"luid\": ");
	if (p->adapter >= 0)
		put_str(s->adapters[p->adapter].luid);
	else
		printf("null");
	put_u64("local", p->local);
	put_u64("nonlocal", p->nonlocal);
	put_u64("committed", p->committed);
	printf(", \"eng\": [");
	for (int k = 0; k < p->n_eng; k++) {
		printf("%s[", k ? ", " : "");
		put_str(p->eng[k].type);
		printf(", %.3f]", p->eng[k].pct);
	}
	printf("]}");
}

static void put_sample(const struct wsl_host_sample *s)
{
	static const char *const states[] = {"ok", "partial", "error"};
	printf("{\"ok\": true, \"seq\": %llu, \"vmwp\": %u, \"vms\": %d, \"state\": \"%s\", \"why\": ",
	       (unsigned long long)s->seq, s->vmwp_pid, s->n_vms, states[s->state]);
	put_str(s->why);
	printf(", \"adapters\": [");
	for (int i = 0; i < s->n_adapters; i++) {
		printf("%s", i ? ", " : "");
		put_adapter(&s->adapters[i]);
	}
	printf("], \"procs\": [");
	for (int i = 0; i < s->n_procs; i++) {
		printf("%s", i ? ", " : "");
		put_proc(s, &s->procs[i]);
	}
	printf("], \"dropped\": %d}\n", s->n_procs_dropped);
}

static void on_line(void *arg, const char *line, size_t len)
{
	struct wsl_host_sample *s = arg;
	char err[128];

	if (wsl_line_parse(line, len, s, err, sizeof err) == 0) {
		put_sample(s);
		return;
	}
	printf("{\"ok\": false, \"err\": ");
	put_str(err);
	printf("}\n");
}

int main(void)
{
	static struct wsl_linebuf lb;
	struct wsl_host_sample *s = calloc(1, sizeof *s);
	char buf[4096];
	size_t n;

	while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
		wsl_linebuf_feed(&lb, buf, n, on_line, s);
	free(s);
	return 0;
}
