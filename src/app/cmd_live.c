#include "app/cmd_live.h"

#include <stdio.h>
#include <stdlib.h>

#include "app/recorder.h"
#include "core/util.h"
#include "views/tui/tui_live.h"
#include "views/tui/tui_replay.h"

/* What the collection thread needs: the collector's options and, with
 * --record, the recording each finished snapshot is appended to. */
struct live_arg {
	struct collector_opts co;
	struct rec_writer *rec;
};

struct live_handle {
	struct collector *c;
	const struct live_arg *arg;
	struct recorder *rec; /* NULL without --record, and once a write failed */
};

/* The collector is created, refreshed and freed on the collection thread. */
static void *live_open(const void *arg)
{
	struct live_handle *h = xcalloc(1, sizeof *h);
	h->arg = arg;
	h->c = collector_new(&h->arg->co);
	h->rec = h->arg->rec ? recorder_new(h->arg->rec) : NULL;
	return h;
}

static struct gtm_snapshot *live_refresh(void *handle)
{
	struct live_handle *h = handle;
	struct gtm_snapshot *s = collector_refresh(h->c);
	char err[512];

	if (h->rec && recorder_take(h->rec, s, err, sizeof err) != 0) {
		recorder_free(h->rec);
		h->rec = NULL; /* the view goes on; the note says the recording stopped */
		snapshot_add_note(s, "recording stopped: %s", err);
	}
	return s;
}

static void live_close(void *handle)
{
	struct live_handle *h = handle;
	recorder_free(h->rec);
	collector_free(h->c);
	free(h);
}

/* The `a` key: the handle is the live_handle live_open gave. */
static void live_set_all(void *handle, bool all)
{
	struct live_handle *h = handle;
	collector_set_all(h->c, all);
}

int cmd_live(const struct collector_opts *o, double interval_s, const char *record_path)
{
	struct live_arg arg = {*o, NULL};
	struct tui_feed feed = {live_open, live_refresh, live_close, &arg, live_set_all, NULL};
	struct rec_writer_opts wo = {0};
	char err[512], note[512];
	int status, rc;

	arg.co.one_shot = false;
	if (record_path) {
		arg.rec = rec_writer_open(record_path, &wo, &status, err, sizeof err, note, sizeof note);
		if (!arg.rec) {
			fprintf(stderr, "gputaskman: --record %s\n", err);
			return status;
		}
		if (note[0])
			fprintf(stderr, "gputaskman: --record %s\n", note);
	}
	rc = tui_live_run(&feed, interval_s);
	if (arg.rec && rec_writer_close(arg.rec, err, sizeof err) != 0) {
		fprintf(stderr, "gputaskman: --record %s\n", err);
		rc = rc ? rc : 1;
	}
	return rc;
}

int cmd_live_replay(struct rec_file *f, uint64_t start)
{
	char why[128];
	struct tui_replay *r = tui_replay_new(f, start, why, sizeof why);
	if (!r) {
		fprintf(stderr, "gputaskman: %s\n", why);
		return 1;
	}
	/* the feed's collect waits for keys and playback itself: no refresh interval */
	int rc = tui_live_run(tui_replay_feed(r), 0.001);

	tui_replay_free(r);
	return rc;
}
