/* Pairing process rows across two snapshots (docs/diff.md, "Pairing"). Each
 * rule is a key; rows are sorted by key and equal keys are paired, so pairing
 * stays O(n log n) on large --all snapshots. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "views/diff.h"

struct keyed {
	char *key;
	int idx;
};

struct pairing {
	const struct snap_rows *b, *a;
	int *b_to_a;              /* after index, or -1 */
	enum diff_rule *b_rule;
	bool *a_used;
};

/* A row's key under a rule, or false when the rule does not apply to it. */
typedef bool (*key_fn)(const struct pairing *pr, const struct snap_rows *s, int i, char *buf, size_t n);
/* Pairs what it can in one group of equal keys. */
typedef void (*group_fn)(struct pairing *pr, enum diff_rule rule, const struct keyed *kb, int nb,
			 const struct keyed *ka, int na);

/* A snapshot lists a PID once; a hostile file listing it thousands of times
 * must not make pairing quadratic, so only this many of a group are tried. */
#define GROUP_TRY_MAX 16

static bool is_paired(const struct pairing *pr, const struct snap_rows *s, int i)
{
	return s == pr->b ? pr->b_to_a[i] >= 0 : pr->a_used[i];
}

static bool key_pid(const struct pairing *pr, const struct snap_rows *s, int i, char *buf, size_t n)
{
	const struct snap_proc *p = &s->procs[i];
	if (!p->has_pid || is_paired(pr, s, i))
		return false;
	snprintf(buf, n, "%010u", p->pid);
	return true;
}

/* The driver's PID: an H: row and a row paired with a local process later (*1234,
 * ?1234) are the same process when their host PIDs agree. */
static bool key_host_pid(const struct pairing *pr, const struct snap_rows *s, int i, char *buf, size_t n)
{
	const struct snap_proc *p = &s->procs[i];
	if (!p->has_host_pid || is_paired(pr, s, i))
		return false;
	snprintf(buf, n, "%010u", p->host_pid);
	return true;
}

/* Unattributed bytes belong to a device, so the device names the row. */
static bool key_unattributed(const struct pairing *pr, const struct snap_rows *s, int i, char *buf, size_t n)
{
	const struct snap_proc *p = &s->procs[i];
	const struct snap_dev *d;
	if (p->has_pid || p->has_host_pid || !p->owner || strcmp(p->owner, "unattributed") || is_paired(pr, s, i))
		return false;
	d = p->n_uses > 0 ? snap_rows_dev(s, p->uses[0].index) : NULL;
	if (d && d->uuid)
		snprintf(buf, n, "uuid %s", d->uuid);
	else
		snprintf(buf, n, "index %d", p->n_uses > 0 ? p->uses[0].index : -1);
	return true;
}

static bool key_name_ports(const struct pairing *pr, const struct snap_rows *s, int i, char *buf, size_t n)
{
	const struct snap_proc *p = &s->procs[i];
	size_t len;
	if (!p->name || p->n_ports == 0 || is_paired(pr, s, i))
		return false;
	len = (size_t)snprintf(buf, n, "%s", p->name);
	for (int k = 0; k < p->n_ports && len < n; k++)
		len += (size_t)snprintf(buf + len, n - len, ":%d", p->ports[k]);
	return true;
}

/* Every row with a name counts, paired or not: a name is unique only in the whole snapshot. */
static bool key_name(const struct pairing *pr, const struct snap_rows *s, int i, char *buf, size_t n)
{
	(void)pr;
	if (!s->procs[i].name)
		return false;
	snprintf(buf, n, "%s", s->procs[i].name);
	return true;
}

static void pair(struct pairing *pr, int ib, int ia, enum diff_rule rule)
{
	pr->b_to_a[ib] = ia;
	pr->b_rule[ib] = rule;
	pr->a_used[ia] = true;
}

/* Same PID: the same process unless both start times are known and differ (a reused PID). */
static void group_pid(struct pairing *pr, enum diff_rule rule, const struct keyed *kb, int nb,
		      const struct keyed *ka, int na)
{
	for (int i = 0; i < nb && i < GROUP_TRY_MAX; i++)
		for (int j = 0; j < na && j < GROUP_TRY_MAX; j++) {
			const struct snap_proc *b = &pr->b->procs[kb[i].idx], *a = &pr->a->procs[ka[j].idx];
			bool both = b->has_start && a->has_start;
			if (pr->a_used[ka[j].idx] || pr->b_to_a[kb[i].idx] >= 0 || (both && b->start_time != a->start_time))
				continue;
			pair(pr, kb[i].idx, ka[j].idx, rule == DIFF_RULE_PID && both ? DIFF_RULE_PID_START : rule);
		}
}

/* One row on each side, both free: otherwise the key does not decide. */
static void group_unique(struct pairing *pr, enum diff_rule rule, const struct keyed *kb, int nb,
			 const struct keyed *ka, int na)
{
	if (nb == 1 && na == 1 && pr->b_to_a[kb[0].idx] < 0 && !pr->a_used[ka[0].idx])
		pair(pr, kb[0].idx, ka[0].idx, rule);
}

static int cmp_keyed(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	int c = strcmp(a->key, b->key);
	return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

static struct keyed *keys_of(const struct pairing *pr, const struct snap_rows *s, key_fn fn, int *n)
{
	struct keyed *k = xcalloc((size_t)s->n_procs + 1, sizeof *k);
	char buf[512];

	*n = 0;
	for (int i = 0; i < s->n_procs; i++)
		if (fn(pr, s, i, buf, sizeof buf))
			k[(*n)++] = (struct keyed){xstrdup(buf), i};
	qsort(k, (size_t)*n, sizeof *k, cmp_keyed);
	return k;
}

static void free_keys(struct keyed *k, int n)
{
	for (int i = 0; i < n; i++)
		free(k[i].key);
	free(k);
}

static void pass(struct pairing *pr, key_fn fn, group_fn group, enum diff_rule rule)
{
	int nb, na, i = 0, j = 0;
	struct keyed *kb = keys_of(pr, pr->b, fn, &nb), *ka = keys_of(pr, pr->a, fn, &na);

	while (i < nb && j < na) {
		int c = strcmp(kb[i].key, ka[j].key), ie = i, je = j;
		if (c) {
			c < 0 ? i++ : j++;
			continue;
		}
		while (ie < nb && !strcmp(kb[ie].key, kb[i].key))
			ie++;
		while (je < na && !strcmp(ka[je].key, ka[j].key))
			je++;
		group(pr, rule, kb + i, ie - i, ka + j, je - j);
		i = ie;
		j = je;
	}
	free_keys(kb, nb);
	free_keys(ka, na);
}

/* The rules, strongest first: a row paired by one is out of the later ones. */
static const struct {
	key_fn key;
	group_fn group;
	enum diff_rule rule;
} passes[] = {
	{key_pid, group_pid, DIFF_RULE_PID},
	{key_host_pid, group_pid, DIFF_RULE_HOST_PID},
	{key_unattributed, group_unique, DIFF_RULE_UNATTRIBUTED},
	{key_name_ports, group_unique, DIFF_RULE_NAME_PORTS},
	{key_name, group_unique, DIFF_RULE_UNIQUE_NAME},
};

int diff_pair_processes(const struct snap_rows *b, const struct snap_rows *a, struct diff_proc_row *rows)
{
	struct pairing pr = {b, a, xcalloc((size_t)b->n_procs + 1, sizeof(int)),
			     xcalloc((size_t)b->n_procs + 1, sizeof(enum diff_rule)),
			     xcalloc((size_t)a->n_procs + 1, sizeof(bool))};
	int n = 0;

	for (int i = 0; i < b->n_procs; i++)
		pr.b_to_a[i] = -1;
	for (size_t k = 0; k < ARRAY_LEN(passes); k++)
		pass(&pr, passes[k].key, passes[k].group, passes[k].rule);

	for (int i = 0; i < b->n_procs; i++) {
		int ia = pr.b_to_a[i];
		rows[n++] = (struct diff_proc_row){.b = &b->procs[i], .a = ia >= 0 ? &a->procs[ia] : NULL,
						   .rule = ia >= 0 ? pr.b_rule[i] : DIFF_RULE_NONE};
	}
	for (int i = 0; i < a->n_procs; i++)
		if (!pr.a_used[i])
			rows[n++] = (struct diff_proc_row){.a = &a->procs[i], .rule = DIFF_RULE_NONE};
	free(pr.b_to_a);
	free(pr.b_rule);
	free(pr.a_used);
	return n;
}
