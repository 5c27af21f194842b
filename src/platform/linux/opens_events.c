/* One read's events into the table (opens_events.h). */
#include "opens_events.h"

#include <stdio.h>
#include <string.h>


/* FAN_Q_OVERFLOW (include/uapi/linux/fanotify.h) */
#define FAN_MASK_Q_OVERFLOW 0x00004000ull

static void handle_event(const struct fan_event *ev, uint32_t self, int64_t unix_ns, uint64_t mono_ns,
			 const struct opens_io *io, struct open_table *t, struct opens_counts *c)
{
	if (ev->mask & FAN_MASK_Q_OVERFLOW) {
		c->overflows++;
		snprintf(c->problem, sizeof c->problem,
			 "the kernel's fanotify queue overflowed: opens were missed (mapped models are still seen)");
		return;
	}
	if (ev->pid <= 0 || (uint32_t)ev->pid == self || !ev->has_dfid_name)
		return;
	enum fan_model_kind k = fan_model_kind_of_name(ev->name, ev->name_len);
	mute_tally_add(io->tally, ev, k != FAN_MODEL_NONE);
	if (k == FAN_MODEL_NONE)
		return;
	char name[256], dir[PLATFORM_OPEN_PATH_MAX], why[96] = "";
	if (ev->name_len >= sizeof name)
		return;
	memcpy(name, ev->name, ev->name_len);
	name[ev->name_len] = '\0';
	int dfd = io->resolve_dir(io->ctx, ev, dir, sizeof dir, why, sizeof why);
	if (dfd < 0) {
		c->unresolved++;
		snprintf(c->problem, sizeof c->problem, "a model file's folder could not be resolved (%s)", why);
		return;
	}
	uint8_t head[FAN_MAGIC_BYTES];
	long n = io->read_head(io->ctx, dfd, name, head, sizeof head);
	io->close_fd(io->ctx, dfd);
	struct platform_open o = {.pid = (uint32_t)ev->pid, .first_unix_ns = unix_ns, .first_mono_ns = mono_ns};
	if (n < 0 || !fan_model_magic_ok(k, head, (size_t)n))
		return;
	if (io->start_time(io->ctx, o.pid, &o.start_time) != 0)
		return; /* gone already: no row to name it on */
	int w = snprintf(o.path, sizeof o.path, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", name);
	if (w < 0 || (size_t)w >= sizeof o.path)
		return;
	open_table_put(t, &o);
	c->model_opens++;
}

void opens_handle_buffer(const uint8_t *buf, size_t len, uint32_t self, int64_t unix_ns, uint64_t mono_ns,
			 const struct opens_io *io, struct open_table *t, struct opens_counts *c)
{
	size_t off = 0;
	struct fan_event ev;
	int r;
	while ((r = fan_event_next(buf, len, &off, &ev)) == 1) {
		c->events++;
		handle_event(&ev, self, unix_ns, mono_ns, io, t, c);
	}
	if (r < 0)
		c->malformed++;
}
