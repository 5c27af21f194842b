/* MODEL_EV_OPENED: a model file --trace-opens saw a process open. A runtime
 * that reads a model and closes it (whisper.cpp, ONNX apps, torch.load)
 * leaves no mapping; the open is then the only trace. It says the process
 * opened the file, not that the weights went to a GPU: the VRAM measured
 * before and after the open is shown beside it for the reader to judge,
 * never added anywhere. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "portable.h" /* gmtime_r on Windows */
#include "core/format.h"
#include "identify/ident.h"

/* "2026-12-02T00:12:03Z; VRAM 512.00 MiB before, 4.10 GiB after (+3.60 GiB)" */
static void opened_detail(char *out, size_t cap, int64_t unix_ns, uint32_t count, gtm_u64 before, gtm_u64 after)
{
	time_t t = (time_t)(unix_ns / 1000000000);
	struct tm tm;
	char when[32] = "unknown time", b[32], a[32], d[40] = "";
	if (unix_ns > 0 && gmtime_r(&t, &tm))
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (gtm_u64_ok(before) && gtm_u64_ok(after)) {
		uint64_t g = after.v >= before.v ? after.v - before.v : before.v - after.v;
		char gb[32];
		snprintf(d, sizeof d, " (%s%s)", after.v >= before.v ? "+" : "-", fmt_bytes_raw(gb, sizeof gb, g));
	}
	char times[24] = "";
	if (count > 1)
		snprintf(times, sizeof times, ", %u opens", count);
	snprintf(out, cap, "%s%s; VRAM %s before, %s after%s", when, times, fmt_bytes(b, sizeof b, before),
		 fmt_bytes(a, sizeof a, after), d);
}

struct ident_model *ident_add_model_opened(struct gtm_ident *id, const char *path, int64_t unix_ns, uint32_t count,
					   gtm_u64 vram_before, gtm_u64 vram_after)
{
	char detail[160];
	opened_detail(detail, sizeof detail, unix_ns, count, vram_before, vram_after);
	struct ident_model *m = ident_add_model_evidence_detail(id, path, MODEL_EV_OPENED, detail);
	if (!m)
		return NULL;
	m->opened_unix_ns = unix_ns;
	m->opened_count = count;
	m->opened_vram_before = vram_before;
	m->opened_vram_after = vram_after;
	return m;
}
