/* identify's pure parts on arbitrary bytes: the Ollama manifest reader, and
 * the runtime table and category rules on a process built from the input's
 * lines ("c:" comm, "a:" an argv entry, "e:" exe, anything else a mapped
 * path). Nothing here touches the file system. The runtimes found through a
 * memo kept across inputs (as a collector keeps it across processes) must
 * be those found without one, evidence for evidence. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "identify/category.h"
#include "identify/ident.h"
#include "identify/ollama_index.h"
#include "identify/runtimes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void add_str(char ***v, size_t *n, const char *s, size_t len)
{
	*v = xrealloc(*v, (*n + 2) * sizeof **v);
	(*v)[(*n)++] = xstrndup(s, len);
	(*v)[*n] = NULL;
}

static void same_runtimes(const struct gtm_ident *a, const struct gtm_ident *b)
{
	bool same = a->n_runtimes == b->n_runtimes;
	for (int i = 0; same && i < a->n_runtimes; i++) {
		same = !strcmp(a->runtimes[i].id, b->runtimes[i].id) &&
		       a->runtimes[i].n_evidence == b->runtimes[i].n_evidence;
		for (int k = 0; same && k < a->runtimes[i].n_evidence; k++)
			same = !strcmp(a->runtimes[i].evidence[k], b->runtimes[i].evidence[k]);
	}
	if (!same) {
		fprintf(stderr, "runtimes through the memo differ from those without it\n");
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct runtime_maps_memo *memo;
	struct ollama_layer layers[8];
	struct gtm_process p;
	struct gtm_proc_detail *d = xcalloc(1, sizeof *d);
	const char *s = (const char *)data, *end = s + size;
	size_t argc = 0;

	ollama_manifest_layers(s, size, layers, 8);
	memset(&p, 0, sizeof p);
	atomic_init(&d->refs, 1);
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
		if (len >= 2 && s[0] == 'c' && s[1] == ':') {
			size_t k = len - 2 < sizeof p.name - 1 ? len - 2 : sizeof p.name - 1;
			memcpy(p.name, s + 2, k);
			p.name[k] = '\0';
		} else if (len >= 2 && s[0] == 'a' && s[1] == ':')
			add_str(&d->argv, &argc, s + 2, len - 2);
		else if (len >= 2 && s[0] == 'e' && s[1] == ':' && !d->exe)
			d->exe = xstrndup(s + 2, len - 2);
		else
			add_str(&d->maps, &d->n_maps, s, len);
		s += len + 1;
	}
	d->argc = (int)argc;
	p.detail = d;
	struct gtm_ident *id = ident_new(), *via_memo = ident_new();
	if (!memo)
		memo = runtime_maps_memo_new(); /* kept to the end, as a collector keeps it */
	runtimes_detect(&p, id);
	runtimes_detect_memo(memo, &p, via_memo);
	same_runtimes(id, via_memo);
	category_assign(&p, id);
	ident_free(id);
	ident_free(via_memo);
	proc_detail_unref(d);
	return 0;
}
