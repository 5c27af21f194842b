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

int cmd_live(const struct collector_opts *o, double interval_s)
{
	struct collector_opts co = *o;
	struct tui_feed feed = {live_open, live_refresh, live_close, &co};

	co.one_shot = false;
	return tui_live_run(&feed, interval_s);
}
