/* Each OS's words in the texts that explain memory pools: the live view's
 * help screen and the exporter's HELP lines take the shared pool's name from
 * the platform's text file (platform/platform_text.h), so a Windows build
 * never says GTT (Linux's name) and says shared GPU memory instead. The same
 * source runs in the Linux suite and, cross-built, under Wine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/snapshot.h"
#include "core/util.h"
#include "platform/platform_text.h"
#include "views/prom/prom_render.h"
#include "views/tui/tui_inspect.h"

#define MIB (1024ull * 1024ull)

/* A GPU with a shared pool and one process spilling into it. */
static struct gtm_snapshot *spilling(void)
{
	struct gtm_snapshot *s = snapshot_new();
	struct gtm_device *d = snapshot_add_device(s);

	d->index = 0;
	str_copy(d->name, "Test GPU", sizeof d->name);
	str_copy(d->uuid, "GPU-test", sizeof d->uuid);
	d->mem_total = gtm_u64_of(8192 * MIB, GTM_MEASURED);
	d->mem_used = gtm_u64_of(4096 * MIB, GTM_MEASURED);
	d->shared_total = gtm_u64_of(16384 * MIB, GTM_MEASURED);
	d->shared_used = gtm_u64_of(512 * MIB, GTM_MEASURED);

	struct gtm_process *p = snapshot_add_process(s);
	struct gtm_gpu_use *u = process_add_use(p);
	p->pid = 100;
	p->owner = GTM_OWNER_LOCAL;
	str_copy(p->label, "100", sizeof p->label);
	str_copy(p->name, "llama-server", sizeof p->name);
	u->dev_index = 0;
	u->vram = gtm_u64_of(4000 * MIB, GTM_MEASURED);
	u->spill = gtm_u64_of(300 * MIB, GTM_MEASURED);
	s->n_gpu_processes = 1;
	return s;
}

/* The help screen's lines joined by spaces (it wraps words across lines). */
static char *help_text(const struct gtm_snapshot *s)
{
	struct tui_text t = {0};
	size_t cap = 1, len = 0;
	char *all;

	t.width = 100;
	tui_help_build(&t, s);
	for (size_t i = 0; i < t.n; i++)
		cap += strlen(tui_text_line(&t, i, NULL)) + 1;
	all = malloc(cap);
	assert_non_null(all);
	all[0] = '\0';
	for (size_t i = 0; i < t.n; i++) {
		const char *line = tui_text_line(&t, i, NULL);
		while (*line == ' ')
			line++;
		len += (size_t)snprintf(all + len, cap - len, "%s ", line);
	}
	tui_text_free(&t);
	return all;
}

static char *prom_text(const struct gtm_snapshot *s)
{
	struct prom_opts opts = {.max_processes = 8, .collect_seconds = -1, .version = "test", .os = "test"};
	struct prom_out o;

	prom_out_init(&o);
	prom_render(s, &opts, &o);
	char *text = xstrdup(o.text.p ? o.text.p : "");
	prom_out_free(&o);
	return text;
}

/* GTT appears exactly where this OS calls its pool GTT (Linux), and the
 * OS's own words are there. */
static void test_help_screen_words(void **state)
{
	struct gtm_snapshot *s = spilling();
	char *help = help_text(s);
	bool os_says_gtt = strstr(platform_spill_pool, "GTT") != NULL;
	(void)state;

	assert_true((strstr(help, "GTT") != NULL) == os_says_gtt);
	/* Windows: "shared GPU memory"; the check follows the OS's words */
	assert_true((strstr(help, "shared GPU memory") != NULL) == (strstr(platform_help_measured, "shared GPU memory") != NULL));
	assert_non_null(strstr(help, "What can be known about GPU memory?"));
	assert_non_null(strstr(help, "debugger")); /* the OS-neutral sections stay */
	free(help);
	snapshot_free(s);
}

static void test_exporter_help_words(void **state)
{
	struct gtm_snapshot *s = spilling();
	char *text = prom_text(s);
	bool os_says_gtt = strstr(platform_shared_pool, "GTT") != NULL;
	char want[256];
	(void)state;

	assert_true((strstr(text, "GTT") != NULL) == os_says_gtt);
	assert_null(strstr(text, PROM_HELP_POOL)); /* every marker is in words */
	snprintf(want, sizeof want, "or shared (%s).", platform_shared_pool);
	assert_non_null(strstr(text, want));        /* the device pools */
	snprintf(want, sizeof want, "or shared (spill to %s).", platform_shared_pool);
	assert_non_null(strstr(text, want));        /* the process pools */
	assert_non_null(strstr(text, "gputaskman_process_gpu_memory_bytes{"));
	free(text);
	snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help_screen_words),
		cmocka_unit_test(test_exporter_help_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
