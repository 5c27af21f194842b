#include "app/cmd_live.h"

#include "views/tui/tui_live.h"

/* The collector is created, refreshed and freed on the collection thread. */
static void *live_open(const void *arg)
{
	return collector_new(arg);
}

static struct gtm_snapshot *live_refresh(void *h)
{
	return collector_refresh(h);
}

static void live_close(void *h)
{
	collector_free(h);
}

static void live_set_all(void *h, bool all)
{
	collector_set_all(h, all);
}

int cmd_live(const struct collector_opts *o, double interval_s)
{
	struct collector_opts co = *o;
	struct tui_feed feed = {live_open, live_refresh, live_close, &co, live_set_all};

	co.one_shot = false;
	return tui_live_run(&feed, interval_s);
}
