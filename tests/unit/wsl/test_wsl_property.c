/* A property test of the matcher: random sequences of process starts and
 * exits, foreign contexts coming and going, growth and VM restarts are
 * generated from a known truth (who owns each host context), and every row
 * the matcher marks '*' is checked against it. '?' rows are counted and
 * reported: they are the honest answer to an ambiguity. A second test
 * (guess_corrected) checks that a wrong '?' is put right once evidence comes.
 *
 * The truth obeys what the matcher assumes (docs/wsl.md, "Assumptions"):
 * the host prepends contexts and never reorders them; in the tick a process
 * is first seen without creating its context ("delayed"), no other context
 * appears (else a new process and a new context would pin each other); no
 * context appears in a tick one vanishes (a count that stays the same is
 * told from growth by sizes alone: docs/validation.md); a process's contexts
 * vanish within two ticks of its exit, and no other context vanishes then
 * (a context that vanishes with one process is that process's); an
 * NVML-only process's context is 0 bytes. Nothing else is assumed of the
 * processes running before the monitor starts: they made their contexts in
 * any order (start order is no evidence), some make one late, some never,
 * and foreign contexts lie between. Sizes move the way
 * workloads make them: a process's context grows by up to 8 GiB a tick in its
 * first ticks (weights), then by up to 512 MiB or frees up to a quarter;
 * foreign contexts (WSLg, another distro's desktop) stay under 300 MiB and
 * move by tens of MiB. Harsher moves (multi-GiB contexts halving at random)
 * can fool the alignment, which reads sizes: docs/validation.md says so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "wsl_tick.h"

#define N_SEQ 400
#define N_TICKS 60
#define MAXP 24

struct tproc {
	bool alive;
	uint32_t pid;
	uint64_t start;
	bool nvml_only;
	int ctx_due;   /* ticks until it creates its context; -1: it has one / never */
	uint64_t run; /* its threads' CPU time (ns): grows when it runs */
};

struct tctx {
	int owner;     /* index into procs, or -1 foreign */
	uint64_t size;
	int vanish_in; /* ticks until it vanishes; -1: not scheduled */
	int age;       /* ticks since it appeared */
	uint64_t queued; /* growth its owner made, not in the host's sample yet */
	int queue_in;    /* ticks until it shows (0-2: the sample lags the /proc read) */
};

struct truth {
	struct tproc p[256];
	int np;
	struct tctx c[WSL_MAX_CTX]; /* newest first */
	int nc;
	uint64_t clock;
	uint32_t next_pid;
	uint32_t vmwp;
	int boot;
	int now, last_exit;       /* ticks: a vanishing near an exit is the exited process's */
	bool foreign_going;       /* a foreign context vanishes in the next tick: nobody exits then */
};

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng_state >> 33) % n;
}

static void prepend(struct truth *t, int owner, uint64_t size)
{
	if (t->nc == WSL_MAX_CTX)
		return;
	memmove(&t->c[1], &t->c[0], (size_t)t->nc * sizeof t->c[0]);
	t->c[0] = (struct tctx){.owner = owner, .size = size, .vanish_in = -1};
	t->nc++;
}

static int live_count(const struct truth *t)
{
	int n = 0;
	for (int i = 0; i < t->np; i++)
		n += t->p[i].alive;
	return n;
}

enum ctx_mode { CTX_NOW, CTX_LATE, CTX_NEVER };

static uint64_t job_size(const struct tproc *p)
{
	return p->nvml_only ? 0 : (uint64_t)(1 + rnd(4000)) * MB;
}

static int start_proc(struct truth *t, enum ctx_mode mode)
{
	if (t->np == 256 || live_count(t) >= MAXP)
		return -1;
	struct tproc *p = &t->p[t->np];
	/* PID reuse now and then: a small PID space */
	*p = (struct tproc){.alive = true, .pid = 1000 + rnd(40), .start = ++t->clock, .nvml_only = rnd(5) == 0,
			    .ctx_due = mode == CTX_LATE ? 1 + (int)rnd(3) : -1};
	for (int i = 0; i < t->np; i++)
		if (t->p[i].alive && t->p[i].pid == p->pid)
			p->pid = t->next_pid++;
	if (mode == CTX_NOW)
		prepend(t, t->np, job_size(p));
	return t->np++;
}

/* Before the monitor: each job made its context at some time (any order of
 * start order, foreign ones between), or makes it later, or never. */
static void restart_vm(struct truth *t)
{
	int made[8], nj = 0, n = (int)rnd(6);

	memset(t->p, 0, sizeof t->p);
	t->np = t->nc = 0;
	t->vmwp = 4000 + rnd(1000);
	t->boot++;
	t->last_exit = -100;
	t->foreign_going = false;
	for (int i = 0; i < n; i++) {
		uint32_t r = rnd(6); /* 0-3: made before the monitor, below; 4: later; 5: never */
		int k = start_proc(t, r == 4 ? CTX_LATE : CTX_NEVER);
		if (k >= 0 && r < 4)
			made[nj++] = k;
	}
	for (int i = nj - 1; i > 0; i--) { /* any permutation */
		int j = (int)rnd((uint32_t)i + 1), x = made[i];
		made[i] = made[j];
		made[j] = x;
	}
	for (int i = 0; i < nj; i++) {
		if (rnd(3) == 0)
			prepend(t, -1, (uint64_t)rnd(300) * MB);
		prepend(t, made[i], job_size(&t->p[made[i]]));
	}
	if (rnd(3) == 0)
		prepend(t, -1, (uint64_t)rnd(300) * MB);
}

static void exit_one(struct truth *t)
{
	int live[256], n = 0;
	for (int i = 0; i < t->np; i++)
		if (t->p[i].alive)
			live[n++] = i;
	if (n == 0)
		return;
	int who = live[rnd((uint32_t)n)];
	t->p[who].alive = false;
	t->last_exit = t->now;
	for (int c = 0; c < t->nc; c++)
		if (t->c[c].owner == who)
			t->c[c].vanish_in = (int)rnd(2);
}

static void advance(struct truth *t, bool *delayed_started)
{
	bool foreign_went = t->foreign_going;
	t->now++;
	t->foreign_going = false;
	for (int i = 0; i < t->np; i++) /* other work: a thread runs now and then */
		if (t->p[i].alive && rnd(4) == 0)
			t->p[i].run += 1 + rnd(1000000);
	for (int c = 0; c < t->nc; c++) { /* growth, mostly: gigabytes while young (weights), a little later */
		struct tctx *x = &t->c[c];
		x->age++;
		if (x->queued && --x->queue_in == 0) {
			x->size += x->queued;
			x->queued = 0;
		}
		if (!x->size || x->queued || rnd(3))
			continue;
		uint64_t more = 0;
		if (x->owner >= 0 && x->age <= 3)
			more = rnd(8192) * MB;
		else if (rnd(10))
			more = rnd(x->owner >= 0 ? 512 : 32) * MB;
		else
			x->size -= x->size / (4 + rnd(8)); /* frees: up to a quarter */
		if (x->owner < 0 || !t->p[x->owner].alive) { /* another distro's, or being torn down */
			x->size += x->owner < 0 ? more : 0;
			continue;
		}
		/* an allocation is its owner's call: it runs now, and the host's sample may show the
		 * new size in this tick or up to two later */
		t->p[x->owner].run += 1 + rnd(1000);
		x->queue_in = (int)rnd(3);
		if (x->queue_in == 0)
			x->size += more;
		else
			x->queued = more;
	}
	int gone = 0;
	for (int c = t->nc - 1; c >= 0; c--)
		if (t->c[c].vanish_in == 0) {
			memmove(&t->c[c], &t->c[c + 1], (size_t)(t->nc - c - 1) * sizeof t->c[0]);
			t->nc--;
			gone++;
		} else if (t->c[c].vanish_in > 0) {
			t->c[c].vanish_in--;
		}
	*delayed_started = false;
	if (gone) /* no context comes in a tick one goes (see the top) */
		return;
	int nc0 = t->nc;
	for (int i = 0; i < t->np; i++)
		if (t->p[i].alive && t->p[i].ctx_due > 0 && --t->p[i].ctx_due == 0) {
			prepend(t, i, job_size(&t->p[i]));
			t->p[i].ctx_due = -1;
		}
	uint32_t ev = rnd(20);
	if (ev < 4)
		start_proc(t, CTX_NOW);
	else if (ev < 6 && t->nc == nc0) /* no other context appears in a delayed process's first tick */
		*delayed_started = start_proc(t, ev == 4 ? CTX_LATE : CTX_NEVER) >= 0;
	else if (ev < 9 && !foreign_went)
		exit_one(t);
	if (!*delayed_started && rnd(8) == 0)
		prepend(t, -1, (uint64_t)rnd(300) * MB);
	/* a foreign one goes (next tick), none comes then, and not near an exit */
	if (t->nc == nc0 && t->now - t->last_exit > 3 && rnd(25) == 0)
		for (int c = 0; c < t->nc; c++)
			if (t->c[c].owner < 0) {
				t->c[c].vanish_in = 0;
				t->foreign_going = true;
				break;
			}
}

static void to_tick(const struct truth *t, struct tk *k)
{
	char boot[16];
	snprintf(boot, sizeof boot, "boot-%d", t->boot);
	tk_init(k, t->vmwp, boot);
	for (int c = 0; c < t->nc; c++)
		k->ad.ctx[c] = (struct wsl_ctx){.local = t->c[c].size, .committed = t->c[c].size};
	k->ad.n = t->nc;
	for (int i = 0; i < t->np; i++)
		if (t->p[i].alive) {
			tk_proc(k, t->p[i].pid, t->p[i].start, t->p[i].nvml_only);
			tk_run(k, t->p[i].run);
		}
}

struct tally {
	long star, guess, pending, star_exited, foreign, foreign_wrong;
};

/* GTM_WSL_TRACE=SEQ prints that sequence's truth and rows, tick by tick. */
static void trace(const struct truth *t, const struct wsl_result *r, int seq, int tick)
{
	const char *e = getenv("GTM_WSL_TRACE");
	if (!e || atoi(e) != seq)
		return;
	printf("tick %d vmwp %u boot %d\n  truth:", tick, t->vmwp, t->boot);
	for (int c = 0; c < t->nc; c++)
		if (t->c[c].owner < 0)
			printf(" [F %lluM]", (unsigned long long)(t->c[c].size / MB));
		else
			printf(" [%u/%llu%s %lluM]", t->p[t->c[c].owner].pid, (unsigned long long)t->p[t->c[c].owner].start,
			       t->p[t->c[c].owner].alive ? "" : "x", (unsigned long long)(t->c[c].size / MB));
	printf("\n  live:");
	for (int i = 0; i < t->np; i++)
		if (t->p[i].alive)
			printf(" %u/%llu%s", t->p[i].pid, (unsigned long long)t->p[i].start, t->p[i].nvml_only ? "n" : "");
	printf("\n  rows:");
	for (int i = 0; i < r->n_rows; i++) {
		const struct wsl_row *w = &r->rows[i];
		static const char *const kind[] = {"P", "F", "X", "pend"};
		printf(" [%d %s %u/%llu %c]", w->ctx, kind[w->owner], w->pid, (unsigned long long)w->start,
		       w->matched ? '*' : '?');
	}
	printf("\n");
}

static void check(const struct truth *t, const struct wsl_result *r, struct tally *y, int seq, int tick)
{
	for (int i = 0; i < r->n_rows; i++) {
		const struct wsl_row *w = &r->rows[i];
		if (w->owner == WSL_OWNER_PENDING) {
			y->pending++;
			continue;
		}
		if (w->owner == WSL_OWNER_FOREIGN) {
			/* no row says '*' of a foreign context (it is part of the VM row): a wrong one
			 * is counted and reported, not failed */
			y->foreign += w->matched;
			y->foreign_wrong += w->matched && t->c[w->ctx].owner >= 0;
			continue;
		}
		if (!w->matched) {
			y->guess++;
			continue;
		}
		int o = t->c[w->ctx].owner;
		if (o < 0 || t->p[o].pid != w->pid || t->p[o].start != w->start)
			fail_msg("seq %d tick %d: context %d shown '*' as %u/%llu, truly %s", seq, tick, w->ctx,
				 w->pid, (unsigned long long)w->start, o < 0 ? "foreign" : "another process");
		if (w->owner == WSL_OWNER_EXITED)
			y->star_exited++;
		else
			y->star++;
	}
}

static void star_never_wrong(void **state)
{
	(void)state;
	struct truth *t = calloc(1, sizeof *t);
	struct tk *k = calloc(1, sizeof *k);
	struct tally y = {0};

	const char *env = getenv("GTM_WSL_SEQS"); /* a longer campaign: docs/validation.md */
	int n_seq = env && atoi(env) > 0 ? atoi(env) : N_SEQ;
	for (int seq = 0; seq < n_seq; seq++) {
		struct wsl_matcher *m = wsl_matcher_new();
		struct wsl_result r;
		rng_state = 0x9e3779b97f4a7c15ull * (uint64_t)(seq + 1);
		memset(t, 0, sizeof *t);
		t->next_pid = 5000;
		restart_vm(t);
		for (int tick = 0; tick < N_TICKS; tick++) {
			bool delayed = false;
			if (tick > 0) {
				if (rnd(80) == 0)
					restart_vm(t);
				else
					advance(t, &delayed);
			}
			to_tick(t, k);
			k->t.sample_seq = (uint64_t)tick + 1;
			wsl_match_tick(m, &k->t, &r);
			trace(t, &r, seq, tick);
			check(t, &r, &y, seq, tick);
		}
		wsl_matcher_free(m);
	}
	printf("property: %d sequences x %d ticks: %ld '*' rows (+%ld exited), %ld '?' rows, %ld pending; "
	       "%ld contexts judged foreign for certain, %ld of them wrongly\n",
	       n_seq, N_TICKS, y.star, y.star_exited, y.guess, y.pending, y.foreign, y.foreign_wrong);
	assert_true(y.star > 0); /* the test says something */
	free(t);
	free(k);
}

/* Jobs running before the monitor made their contexts in any order (some make
 * theirs a few ticks later), sizes 24 GiB apart so that the alignment can
 * tell which one vanished; then all but one exit, one at a time, each
 * context vanishing 0 to 2 ticks after its job. Whatever the start-up guess
 * was: a '*' is never wrong; once a job's context vanished, no row shows it
 * on another context; once every other job is gone, the last one is shown on
 * its own context. */
struct cjob {
	int ctx_at;   /* tick its context appears (0: before the monitor) */
	int exit_at;  /* tick it is first missing; -1: stays */
	int gone_at;  /* tick its context vanishes */
	long mib;
};

static void corrected_check(const struct cjob *j, int nj, const int *host, const struct wsl_result *r,
			    int seq, int tick)
{
	int last = -1, left = 0;

	for (int i = 0; i < nj; i++)
		if (j[i].exit_at < 0)
			last = i;
		else
			left += tick < j[i].gone_at;
	for (int i = 0; i < r->n_rows; i++) {
		const struct wsl_row *w = &r->rows[i];
		if (w->owner == WSL_OWNER_PENDING || w->owner == WSL_OWNER_FOREIGN)
			continue;
		int who = (int)w->pid - 100, truly = host[w->ctx];
		if (w->matched && truly != who)
			fail_msg("seq %d tick %d: context %d shown '*' as job %d, truly %d", seq, tick, w->ctx, who, truly);
		if (j[who].exit_at >= 0 && tick >= j[who].gone_at && truly != who)
			fail_msg("seq %d tick %d: job %d's context vanished, still shown on context %d", seq, tick, who, w->ctx);
	}
	if (left > 0 || tick < j[last].ctx_at)
		return;
	const struct wsl_row *w = row_of(r, (uint32_t)(100 + last), 0);
	if (!w || w->owner != WSL_OWNER_PROC || host[w->ctx] != last)
		fail_msg("seq %d tick %d: the last job %d is not shown on its own context", seq, tick, last);
}

static void guess_corrected(void **state)
{
	(void)state;
	struct tk *k = calloc(1, sizeof *k);
	long n_ticks = 0;

	for (int seq = 0; seq < 300; seq++) {
		struct wsl_matcher *m = wsl_matcher_new();
		struct wsl_result r;
		struct cjob j[4];
		int nj = 2 + (int)rnd(3), rank[4] = {0, 1, 2, 3}, order[4], host[8], nh = 0, late = 0;
		rng_state = 0x2545f4914f6cdd1dull * (uint64_t)(seq + 1);
		for (int i = nj - 1; i > 0; i--) {
			int x = (int)rnd((uint32_t)i + 1), y = rank[i];
			rank[i] = rank[x], rank[x] = y;
		}
		for (int i = 0; i < nj; i++) {
			bool is_late = rnd(4) == 0;
			j[i] = (struct cjob){.ctx_at = is_late ? 2 + 2 * late++ : 0, .exit_at = -1,
					     .mib = (2 + 24L * rank[i]) * 1024};
			order[i] = i;
		}
		for (int i = nj - 1; i > 0; i--) { /* creation order and exit order: any */
			int x = (int)rnd((uint32_t)i + 1), y = order[i];
			order[i] = order[x], order[x] = y;
		}
		for (int e = 0; e < nj - 1; e++) {
			j[order[e]].exit_at = 10 + 5 * e;
			j[order[e]].gone_at = j[order[e]].exit_at + (int)rnd(3);
		}
		int end = 10 + 5 * nj;
		for (int tick = 0; tick < end; tick++, n_ticks++) {
			tk_init(k, 4242, "boot-c");
			for (int c = nh - 1; c >= 0; c--) /* contexts that vanish now */
				if (j[host[c]].exit_at >= 0 && tick == j[host[c]].gone_at)
					memmove(&host[c], &host[c + 1], (size_t)(--nh - c) * sizeof *host);
			for (int i = 0; i < nj; i++) /* and come now, in the creation order */
				if (j[order[i]].ctx_at == tick) {
					memmove(&host[1], &host[0], (size_t)nh++ * sizeof *host);
					host[0] = order[i];
				}
			for (int c = 0; c < nh; c++)
				k->ad.ctx[c] = (struct wsl_ctx){.local = (uint64_t)j[host[c]].mib * MB,
								.committed = (uint64_t)j[host[c]].mib * MB};
			k->ad.n = nh;
			for (int i = 0; i < nj; i++)
				if (j[i].exit_at < 0 || tick < j[i].exit_at)
					tk_proc(k, (uint32_t)(100 + i), (uint64_t)(i + 1), false);
			wsl_match_tick(m, &k->t, &r);
			corrected_check(j, nj, host, &r, seq, tick);
		}
		wsl_matcher_free(m);
	}
	printf("guess_corrected: 300 sequences, %ld ticks\n", n_ticks);
	free(k);
}

/* Jobs running before the monitor made their contexts in any order, so the
 * start-up guess (start order) is often wrong; none exits. Each in turn
 * allocates (its context's Total Committed grows, it runs) while the others
 * run no thread; twice round. A size that moves with one process is evidence:
 * a '*' is never wrong, and after the rounds every job is shown on its own
 * context. (Without the rule they stay on the start-order guess.) */
static void growth_corrected(void **state)
{
	(void)state;
	struct tk *k = calloc(1, sizeof *k);
	long wrong_before = 0;

	for (int seq = 0; seq < 200; seq++) {
		struct wsl_matcher *m = wsl_matcher_new();
		struct wsl_result r;
		int nj = 2 + (int)rnd(3), order[4], host[4];
		uint64_t run[4] = {0}, mib[4];
		rng_state = 0x5851f42d4c957f2dull * (uint64_t)(seq + 1);
		for (int i = 0; i < nj; i++)
			order[i] = i;
		for (int i = nj - 1; i > 0; i--) { /* the order the contexts were made in: any */
			int x = (int)rnd((uint32_t)i + 1), y = order[i];
			order[i] = order[x], order[x] = y;
		}
		for (int c = 0; c < nj; c++) { /* newest first */
			host[c] = order[nj - 1 - c];
			mib[host[c]] = (uint64_t)(2 + 24 * c) * 1024;
		}
		int end = 4 + 2 * nj * 5;
		for (int tick = 0; tick < end; tick++) {
			int turn = tick >= 4 && (tick - 4) % 5 == 0 ? ((tick - 4) / 5) % nj : -1;
			if (turn >= 0) {
				mib[turn] += 256;
				run[turn] += 1000;
			}
			tk_init(k, 4242, "boot-g");
			for (int c = 0; c < nj; c++)
				k->ad.ctx[c] = (struct wsl_ctx){.local = mib[host[c]] * MB, .committed = mib[host[c]] * MB};
			k->ad.n = nj;
			k->t.sample_seq = (uint64_t)tick + 1;
			for (int i = 0; i < nj; i++) {
				tk_proc(k, (uint32_t)(100 + i), (uint64_t)(i + 1), false);
				tk_run(k, run[i]);
			}
			wsl_match_tick(m, &k->t, &r);
			for (int i = 0; i < r.n_rows; i++) {
				const struct wsl_row *w = &r.rows[i];
				if (w->owner != WSL_OWNER_PROC)
					continue;
				int who = (int)w->pid - 100;
				if (w->matched && host[w->ctx] != who)
					fail_msg("seq %d tick %d: context %d shown '*' as job %d, truly %d", seq, tick, w->ctx,
						 who, host[w->ctx]);
				wrong_before += tick == 0 && host[w->ctx] != who;
			}
		}
		for (int i = 0; i < nj; i++) {
			const struct wsl_row *w = row_of(&r, (uint32_t)(100 + i), 0);
			if (!w || w->owner != WSL_OWNER_PROC || host[w->ctx] != i)
				fail_msg("seq %d: job %d (of %d) not shown on its own context after the rounds", seq, i, nj);
		}
		wsl_matcher_free(m);
	}
	printf("growth_corrected: 200 sequences, %ld start-up guesses wrong, all put right\n", wrong_before);
	assert_true(wrong_before > 0); /* the start-up guess was often wrong */
	free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(star_never_wrong), cmocka_unit_test(guess_corrected),
					   cmocka_unit_test(growth_corrected)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
