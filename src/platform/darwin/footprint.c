/* footprint(1)'s output (footprint.h). */
#include "footprint.h"

#include <string.h>

#include "core/util.h"

/* The first s within [p, end), or NULL (memmem over a bounded line). */
static const char *find(const char *p, const char *end, const char *s)
{
	return p < end ? memmem(p, (size_t)(end - p), s, strlen(s)) : NULL;
}

static const char *skip_sp(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

size_t footprint_size(const char *s, const char *end, uint64_t *out, bool *exact)
{
	static const struct { const char *unit; unsigned shift; } units[] = {
		{"B", 0}, {"KB", 10}, {"MB", 20}, {"GB", 30}, {"TB", 40},
	};
	const char *p = s;
	uint64_t whole = 0, frac = 0, scale = 1;
	if (p >= end || *p < '0' || *p > '9')
		return 0;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return 0;
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (p < end && *p == '.')
		for (p++; p < end && *p >= '0' && *p <= '9'; p++)
			if (scale < 1000000)
				frac = frac * 10 + (uint64_t)(*p - '0'), scale *= 10;
	if (p >= end || *p != ' ')
		return 0;
	p++;
	for (size_t i = ARRAY_LEN(units); i-- > 0;) {
		size_t l = strlen(units[i].unit);
		if ((size_t)(end - p) < l || memcmp(p, units[i].unit, l) != 0)
			continue;
		if (p + l < end && p[l] != ' ' && p[l] != '\t' && p[l] != '\r' && p[l] != ')')
			continue;
		unsigned sh = units[i].shift;
		if (sh && whole > (UINT64_MAX >> sh))
			return 0;
		*out = (whole << sh) + (sh ? (frac << sh) / scale : 0);
		*exact = sh == 0;
		return (size_t)(p + l - s);
	}
	return 0;
}

/* `NAME [PID]: 64-bit    Footprint: SIZE ...` or `Footprint: SIZE`. */
static bool header(const char *p, const char *end, struct fp_proc *pr)
{
	const char *f = find(p, end, "Footprint: ");
	if (!f)
		return false;
	memset(pr, 0, sizeof *pr);
	const char *v = f + strlen("Footprint: ");
	if (!footprint_size(v, end, &pr->footprint, &pr->exact))
		return false;
	const char *close = find(p, f, "]: ");
	const char *open = NULL;
	for (const char *q = close; q && q > p && !open;)
		if (*--q == '[')
			open = q;
	if (open && close) {
		uint64_t pid = 0;
		for (const char *q = open + 1; q < close; q++) {
			if (*q < '0' || *q > '9' || pid > UINT32_MAX / 10)
				return false;
			pid = pid * 10 + (uint64_t)(*q - '0');
		}
		pr->pid = (uint32_t)pid;
		const char *ns = skip_sp(p, open), *ne = open;
		while (ne > ns && ne[-1] == ' ')
			ne--;
		size_t nn = (size_t)(ne - ns) < sizeof pr->name - 1 ? (size_t)(ne - ns) : sizeof pr->name - 1;
		memcpy(pr->name, ns, nn);
		pr->name[nn] = '\0';
	} else if (skip_sp(p, f) != f)
		return false; /* something else before "Footprint:" */
	return true;
}

/* A table row: Dirty, Clean, Reclaimable, Regions, Category. */
static bool row(const char *p, const char *end, struct fp_proc *pr)
{
	uint64_t dirty, other;
	bool ex;
	p = skip_sp(p, end);
	size_t k = footprint_size(p, end, &dirty, &ex);
	if (!k)
		return false;
	for (int col = 0; col < 2; col++) {
		p = skip_sp(p + k, end);
		if (!(k = footprint_size(p, end, &other, &ex)))
			return false;
	}
	p = skip_sp(p + k, end);
	const char *r = p;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	if (p == r || p >= end || *p != ' ')
		return false;
	const char *cat = skip_sp(p, end), *ce = end;
	while (ce > cat && (ce[-1] == ' ' || ce[-1] == '\r'))
		ce--;
	if (ce == cat || (ce - cat == 5 && memcmp(cat, "TOTAL", 5) == 0))
		return true; /* the TOTAL row repeats the sum */
	pr->n_categories++;
	if (find(cat, ce, "(graphics)"))
		pr->graphics_dirty += dirty;
	if (find(cat, ce, "untagged (VM_ALLOCATE)"))
		pr->untagged_vm_dirty += dirty;
	return true;
}

static void aux(const char *p, const char *end, struct fp_proc *pr)
{
	static const char peak[] = "phys_footprint_peak: ", phys[] = "phys_footprint: ";
	const char *s = skip_sp(p, end);
	bool ex;
	if ((size_t)(end - s) > strlen(peak) && memcmp(s, peak, strlen(peak)) == 0)
		pr->has_peak = footprint_size(s + strlen(peak), end, &pr->phys_footprint_peak, &ex) > 0;
	else if ((size_t)(end - s) > strlen(phys) && memcmp(s, phys, strlen(phys)) == 0)
		pr->has_phys = footprint_size(s + strlen(phys), end, &pr->phys_footprint, &ex) > 0;
}

static void denied(const char *p, const char *end, struct fp_result *out)
{
	const char *d = find(p, end, "Unable to analyze process with pid ");
	if (!d || out->n_denied == FP_MAX_PROCS)
		return;
	const char *q = d + strlen("Unable to analyze process with pid ");
	uint64_t pid = 0;
	const char *s = q;
	for (; q < end && *q >= '0' && *q <= '9' && pid <= UINT32_MAX / 10; q++)
		pid = pid * 10 + (uint64_t)(*q - '0');
	if (q > s && pid <= UINT32_MAX)
		out->denied[out->n_denied++] = (uint32_t)pid;
}

int footprint_parse(const char *buf, size_t n, struct fp_result *out)
{
	memset(out, 0, sizeof *out);
	struct fp_proc *cur = NULL;
	for (const char *p = buf, *end = buf + n; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		struct fp_proc h;
		if (header(p, le, &h)) {
			cur = out->n < FP_MAX_PROCS ? &out->procs[out->n++] : NULL;
			if (cur)
				*cur = h;
		} else if (find(p, le, "Unable to analyze process")) {
			denied(p, le, out);
			cur = NULL;
		} else if (cur && !row(p, le, cur))
			aux(p, le, cur);
		p = nl ? nl + 1 : end;
	}
	return out->n || out->n_denied ? (int)out->n : -1;
}
