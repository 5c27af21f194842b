/* DRM fdinfo parser. Key grammar and units from the kernel's
 * Documentation/gpu/drm-usage-stats.rst; xe's cycles keys from
 * Documentation/gpu/xe/xe-drm-usage-stats.rst. */
#include "sources/drm_fdinfo.h"

#include <string.h>

#include "sources/drm_text.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

struct unit {
	const char *name;
	uint64_t mul;
};

static const struct unit byte_units[] = {
	{"KiB", 1024ull}, {"MiB", 1024ull * 1024}, {"GiB", 1024ull * 1024 * 1024}, {"B", 1},
};
static const struct unit ns_units[] = {{"ns", 1}};

bool drm_fdinfo_value(const char *s, size_t n, enum drm_value_kind kind, uint64_t *out)
{
	size_t i = 0;
	uint64_t v = 0;

	while (i < n && is_blank(s[i]))
		i++;
	if (i == n || s[i] < '0' || s[i] > '9')
		return false;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (i < n && !is_blank(s[i]))
		return false; /* "12KiB", "12x": the spec separates the unit */
	while (i < n && is_blank(s[i]))
		i++;
	/* A unit is an alphabetic token; anything else after the number is an
	 * annotation (captures quoted in bug reports carry "<- ..." notes). */
	if (kind != DRM_VAL_PLAIN && i < n && is_alpha(s[i])) {
		const struct unit *u = kind == DRM_VAL_BYTES ? byte_units : ns_units;
		size_t nu = kind == DRM_VAL_BYTES ? sizeof byte_units / sizeof *u : 1;
		size_t k = i;
		while (k < n && !is_blank(s[k]))
			k++;
		size_t tl = k - i;
		bool found = false;
		for (size_t j = 0; j < nu && !found; j++) {
			if (strlen(u[j].name) == tl && memcmp(s + i, u[j].name, tl) == 0) {
				if (u[j].mul > 1 && v > UINT64_MAX / u[j].mul)
					return false;
				v *= u[j].mul;
				found = true;
			}
		}
		if (!found)
			return false;
	}
	*out = v;
	return true;
}

/* Copies the first whitespace-free token of a value. */
static bool copy_token(char *dst, size_t cap, const char *s, size_t n)
{
	size_t i = 0, k;

	while (i < n && is_blank(s[i]))
		i++;
	k = i;
	while (k < n && !is_blank(s[k]))
		k++;
	if (k == i || k - i >= cap)
		return false;
	memcpy(dst, s + i, k - i);
	dst[k - i] = '\0';
	return true;
}

static struct drm_fdinfo_region *region_get(struct drm_fdinfo *fi, const char *name, size_t nl)
{
	for (int i = 0; i < fi->n_regions; i++)
		if (strlen(fi->regions[i].name) == nl && memcmp(fi->regions[i].name, name, nl) == 0)
			return &fi->regions[i];
	if (nl == 0 || nl >= DRM_FDINFO_NAME || fi->n_regions == DRM_FDINFO_MAX_REGIONS) {
		fi->overflow |= nl > 0;
		return NULL;
	}
	struct drm_fdinfo_region *r = &fi->regions[fi->n_regions++];
	memset(r, 0, sizeof *r);
	memcpy(r->name, name, nl);
	return r;
}

static struct drm_fdinfo_engine *engine_get(struct drm_fdinfo *fi, const char *name, size_t nl)
{
	for (int i = 0; i < fi->n_engines; i++)
		if (strlen(fi->engines[i].name) == nl && memcmp(fi->engines[i].name, name, nl) == 0)
			return &fi->engines[i];
	if (nl == 0 || nl >= DRM_FDINFO_NAME || fi->n_engines == DRM_FDINFO_MAX_ENGINES) {
		fi->overflow |= nl > 0;
		return NULL;
	}
	struct drm_fdinfo_engine *e = &fi->engines[fi->n_engines++];
	memset(e, 0, sizeof *e);
	memcpy(e->name, name, nl);
	e->capacity = 1;
	return e;
}

enum key_target {
	KT_DRIVER, KT_PDEV, KT_CLIENT_ID, KT_IGNORE,
	KT_ENG_CAPACITY, KT_ENG_NS, KT_ENG_TOTAL_CYCLES, KT_ENG_CYCLES,
	KT_REG_TOTAL, KT_REG_SHARED, KT_REG_RESIDENT, KT_REG_PURGEABLE, KT_REG_ACTIVE, KT_REG_MEMORY,
};

/* Longer prefixes first: "drm-engine-capacity-" before "drm-engine-",
 * "drm-total-cycles-" before "drm-total-". exact: the whole key. */
static const struct key_rule {
	const char *key;
	bool exact;
	enum key_target target;
} key_rules[] = {
	{"drm-driver", true, KT_DRIVER},
	{"drm-pdev", true, KT_PDEV},
	{"drm-client-id", true, KT_CLIENT_ID},
	{"drm-engine-capacity-", false, KT_ENG_CAPACITY},
	{"drm-engine-", false, KT_ENG_NS},
	{"drm-total-cycles-", false, KT_ENG_TOTAL_CYCLES},
	{"drm-cycles-", false, KT_ENG_CYCLES},
	{"drm-maxfreq-", false, KT_IGNORE},
	{"drm-curfreq-", false, KT_IGNORE},
	{"drm-total-", false, KT_REG_TOTAL},
	{"drm-shared-", false, KT_REG_SHARED},
	{"drm-resident-", false, KT_REG_RESIDENT},
	{"drm-purgeable-", false, KT_REG_PURGEABLE},
	{"drm-active-", false, KT_REG_ACTIVE},
	{"drm-memory-", false, KT_REG_MEMORY},
};

static const struct key_rule *rule_for(const char *key, size_t kl, size_t *suffix_at)
{
	for (size_t i = 0; i < sizeof key_rules / sizeof *key_rules; i++) {
		size_t pl = strlen(key_rules[i].key);
		if (key_rules[i].exact ? (kl == pl && memcmp(key, key_rules[i].key, pl) == 0)
				       : (kl > pl && memcmp(key, key_rules[i].key, pl) == 0)) {
			*suffix_at = pl;
			return &key_rules[i];
		}
	}
	return NULL;
}

static bool apply_engine(struct drm_fdinfo *fi, enum key_target t, const char *name, size_t nl,
			 const char *val, size_t vl)
{
	uint64_t v;
	enum drm_value_kind kind = t == KT_ENG_NS ? DRM_VAL_NS : DRM_VAL_PLAIN;

	if (!drm_fdinfo_value(val, vl, kind, &v))
		return false;
	if (t == KT_ENG_CAPACITY && (v == 0 || v > UINT32_MAX))
		return false; /* "Zero capacity is not allowed" */
	struct drm_fdinfo_engine *e = engine_get(fi, name, nl);
	if (!e)
		return true;
	switch (t) {
	case KT_ENG_CAPACITY: e->capacity = (uint32_t)v; e->have |= DRM_EK_CAPACITY; break;
	case KT_ENG_NS: e->busy_ns = v; e->have |= DRM_EK_NS; break;
	case KT_ENG_TOTAL_CYCLES: e->total_cycles = v; e->have |= DRM_EK_TOTAL_CYCLES; break;
	default: e->cycles = v; e->have |= DRM_EK_CYCLES; break;
	}
	return true;
}

static bool apply_region(struct drm_fdinfo *fi, enum key_target t, const char *name, size_t nl,
			 const char *val, size_t vl)
{
	uint64_t v;
	bool ok = drm_fdinfo_value(val, vl, DRM_VAL_BYTES, &v);
	struct drm_fdinfo_region *r = region_get(fi, name, nl);

	/* the region is marked so the client's memory is known incomplete: a
	 * value we cannot read ("2097152 kB", an overflow) is not a 0 */
	if (!ok) {
		fi->n_bad_memory++;
		if (r)
			r->have |= DRM_RK_BAD;
		return false;
	}
	if (!r)
		return true;
	switch (t) {
	case KT_REG_TOTAL: r->total = v; r->have |= DRM_RK_TOTAL; break;
	case KT_REG_SHARED: r->shared = v; r->have |= DRM_RK_SHARED; break;
	case KT_REG_RESIDENT: r->resident = v; r->have |= DRM_RK_RESIDENT; break;
	case KT_REG_PURGEABLE: r->purgeable = v; r->have |= DRM_RK_PURGEABLE; break;
	case KT_REG_ACTIVE: r->active = v; r->have |= DRM_RK_ACTIVE; break;
	default: r->memory = v; r->have |= DRM_RK_MEMORY; break;
	}
	return true;
}

static void parse_line(struct drm_fdinfo *fi, const char *s, size_t n)
{
	size_t i = 0, colon, at = 0;

	while (i < n && is_blank(s[i]))
		i++;
	s += i;
	n -= i;
	if (n < 4 || memcmp(s, "drm-", 4) != 0)
		return;
	for (colon = 0; colon < n && s[colon] != ':'; colon++)
		if (is_blank(s[colon]))
			return; /* keys contain no whitespace: not a key line */
	if (colon == n)
		return;
	const struct key_rule *r = rule_for(s, colon, &at);
	if (!r || r->target == KT_IGNORE)
		return;
	const char *val = s + colon + 1, *name = s + at;
	size_t vl = n - colon - 1, nl = colon - at;
	bool ok = true;

	switch (r->target) {
	case KT_DRIVER: ok = fi->has_driver = copy_token(fi->driver, sizeof fi->driver, val, vl); break;
	case KT_PDEV: ok = fi->has_pdev = copy_token(fi->pdev, sizeof fi->pdev, val, vl); break;
	case KT_CLIENT_ID: ok = fi->has_client_id = drm_fdinfo_value(val, vl, DRM_VAL_PLAIN, &fi->client_id); break;
	case KT_ENG_CAPACITY: case KT_ENG_NS: case KT_ENG_TOTAL_CYCLES: case KT_ENG_CYCLES:
		ok = apply_engine(fi, r->target, name, nl, val, vl);
		break;
	default:
		ok = apply_region(fi, r->target, name, nl, val, vl);
		break;
	}
	if (!ok)
		fi->n_bad++;
}

int drm_fdinfo_parse(const char *buf, size_t len, struct drm_fdinfo *out)
{
	size_t pos = 0, n;
	const char *line;

	memset(out, 0, sizeof *out);
	while (drm_next_line(buf, len, &pos, &line, &n))
		parse_line(out, line, n);
	return out->has_driver ? 0 : -1;
}

bool drm_region_resident(const struct drm_fdinfo_region *r, uint64_t *bytes)
{
	if (r->have & DRM_RK_RESIDENT) {
		*bytes = r->resident;
		return true;
	}
	if (r->have & DRM_RK_MEMORY) {
		*bytes = r->memory;
		return true;
	}
	return false;
}
