#include "snapread/snap_reported.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define LABEL_MAX 160
#define WALK_DEPTH 8

/* Keys of the measured core (docs/json-schema.md, processes[]): never segments. */
static const char *const core_keys[] = {
	"pid", "host_pid", "label", "owner", "owner_reason", "name", "cmdline", "exe", "cwd", "user", "uid",
	"ppid", "start_time_ticks", "rss_bytes", "listening_ports", "gpus", "vram_total_bytes",
};

/* Source names as the explain writer spells them, and their kind. */
static const struct {
	const char *prefix;
	enum snap_seg_kind kind;
} source_kinds[] = {
	{"log", SNAP_SEG_REPORTED}, {"api", SNAP_SEG_REPORTED}, {"reported", SNAP_SEG_REPORTED},
	{"estimate", SNAP_SEG_ESTIMATED}, {"estimated", SNAP_SEG_ESTIMATED},
};

/* Objects under these keys inherit a source when they carry none of their own. */
static const struct {
	const char *key, *source;
} key_sources[] = {
	{"estimate", "estimate"}, {"estimates", "estimate"}, {"estimated", "estimate"}, {"plan", "estimate"},
	{"log", "log"}, {"logs", "log"}, {"api", "api"},
};

/* Section keys that add nothing to a label: "explain breakdown kv_cache GPU" reads
 * as "breakdown kv_cache GPU" (views/explain_json.c puts everything under "explain"). */
static const char *const quiet_keys[] = {"explain"};

/* Past figures, not the process now: a log's earlier loads. */
static const char *const skipped_keys[] = {"history"};

/* Fields that name an array element, so a segment keeps its label when the order changes. */
static const char *const name_keys[] = {"name", "segment", "kind", "buffer", "type", "device"};

const struct snap_flag_table snap_flags[SNAP_N_FLAGS] = {
	{"ctx_size", "-c"}, {"n_gpu_layers", "-ngl"}, {"parallel", "-np"},
	{"cache_type_k", "-ctk"}, {"cache_type_v", "-ctv"}, {"flash_attn", "-fa"},
};

static void read_flags(const json_t *o, struct snap_proc *p)
{
	const json_t *f = json_object_get(o, "llama_flags");

	if (!json_is_object(f))
		return;
	p->has_flags = true;
	for (size_t i = 0; i < SNAP_N_FLAGS; i++) {
		const json_t *v = json_object_get(f, snap_flags[i].key);
		/* Scalars only: anything else from a newer writer is left out, not misread. */
		p->flags[i] = v && (json_is_integer(v) || json_is_string(v) || json_is_boolean(v)) ? v : NULL;
	}
}

enum snap_seg_kind snap_seg_kind_of(const char *source)
{
	for (size_t i = 0; source && i < ARRAY_LEN(source_kinds); i++)
		if (str_starts(source, source_kinds[i].prefix))
			return source_kinds[i].kind;
	return SNAP_SEG_OTHER;
}

static bool in_table(const char *const *table, size_t n, const char *k)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(table[i], k))
			return true;
	return false;
}

#define is_skipped_key(k) in_table(skipped_keys, ARRAY_LEN(skipped_keys), k)
#define is_quiet_key(k) in_table(quiet_keys, ARRAY_LEN(quiet_keys), k)
#define is_core_key(k) in_table(core_keys, ARRAY_LEN(core_keys), k)

static const char *source_of_key(const char *k)
{
	for (size_t i = 0; i < ARRAY_LEN(key_sources); i++)
		if (!strcmp(key_sources[i].key, k))
			return key_sources[i].source;
	return NULL;
}

/* "kv", "kv_cache", "cache_kv", "KV": a KV-cache figure. */
static bool label_is_kv(const char *label)
{
	for (const char *s = label; *s; s++)
		if (tolower((unsigned char)s[0]) == 'k' && tolower((unsigned char)s[1]) == 'v' &&
		    (s == label || !isalnum((unsigned char)s[-1])) && !isalnum((unsigned char)s[2]))
			return true;
	return false;
}

static void join(char *dst, const char *base, const char *part)
{
	snprintf(dst, LABEL_MAX, "%s%s%s", base, base[0] && part[0] ? " " : "", part);
}

/* host: the figure is in host memory (explain's "host_memory": true), so it is
 * not compared with a GPU's measured growth. */
/* Whether `label` is `base` or `base #N`. */
static bool same_base(const char *label, const char *base)
{
	size_t n = strlen(base);
	return !strncmp(label, base, n) && (label[n] == '\0' || !strncmp(label + n, " #", 2));
}

/* One process's walk, and the snapshot's budget for what it lists. */
struct walk {
	struct snap_rows *snap;
	struct snap_proc *p;
};

/* Takes one from the snapshot's budget of listed extras; false (and truncated noted) when spent. */
static bool take_budget(struct snap_rows *s)
{
	if (s->n_extras >= SNAP_MAX_EXTRAS_TOTAL) {
		s->extras_truncated = true;
		return false;
	}
	s->n_extras++;
	return true;
}

static void add_seg(struct walk *w, const char *label, const char *source, bool host, const json_t *v, uint64_t unit)
{
	struct snap_proc *p = w->p;
	struct snap_seg *s;
	int same = 0;

	if (p->n_segs >= SNAP_MAX_SEGMENTS) {
		w->snap->extras_truncated = true;
		return;
	}
	if (!take_budget(w->snap))
		return;
	p->segs = grow_array(p->segs, sizeof *p->segs, &p->cap_segs, (size_t)p->n_segs);
	/* Same label and source twice (two unnamed elements): number them, so pairing stays one to one. */
	for (int i = 0; i < p->n_segs; i++)
		same += same_base(p->segs[i].label, label) && !strcmp(p->segs[i].source, source);
	s = &p->segs[p->n_segs++];
	memset(s, 0, sizeof *s);
	if (same) {
		char buf[LABEL_MAX + 16];
		snprintf(buf, sizeof buf, "%s #%d", label, same + 1);
		s->label = xstrdup(buf);
	} else {
		s->label = xstrdup(label);
	}
	s->source = xstrdup(source);
	s->kind = snap_seg_kind_of(source);
	s->host = host;
	s->is_kv = s->kind == SNAP_SEG_ESTIMATED && label_is_kv(label);
	/* A count beyond int64 / unit is not a size any snapshot holds: left unknown. */
	if (json_is_integer(v) && json_integer_value(v) >= 0 && (uint64_t)json_integer_value(v) <= INT64_MAX / unit)
		s->bytes = (struct snap_val){true, (uint64_t)json_integer_value(v) * unit};
}

/* Size keys and their unit: "bytes" → the object's own label; "kv_bytes" →
 * "<label> kv"; "context_mib" (llama.cpp's memory-breakdown table, whole MiB) →
 * "<label> context", in bytes. Returns the unit, or 0 when k is not a size. */
static uint64_t size_key(const char *k, char *part, size_t n)
{
	static const struct {
		const char *suffix;
		uint64_t unit;
	} units[] = {{"_bytes", 1}, {"_mib", MIB}};
	size_t len = strlen(k);

	if (!strcmp(k, "bytes")) {
		part[0] = '\0';
		return 1;
	}
	for (size_t i = 0; i < ARRAY_LEN(units); i++) {
		size_t sl = strlen(units[i].suffix);
		if (len > sl && !strcmp(k + len - sl, units[i].suffix)) {
			snprintf(part, n, "%.*s", (int)(len - sl), k);
			return units[i].unit;
		}
	}
	return 0;
}

static void walk(const json_t *v, const char *label, const char *source, int depth, struct walk *w);

static void walk_object(const json_t *o, const char *label, const char *source, int depth, struct walk *w)
{
	const json_t *src = json_object_get(o, "source");
	const char *k;
	json_t *v;
	char sub[LABEL_MAX], part[LABEL_MAX];
	bool host = json_is_true(json_object_get(o, "host_memory"));

	if (json_is_string(src) && json_string_length(src) > 0)
		source = json_string_value(src);
	json_object_foreach((json_t *)o, k, v) {
		if (depth == 0 && is_core_key(k))
			continue;
		uint64_t unit = source && (json_is_integer(v) || json_is_null(v)) ? size_key(k, part, sizeof part) : 0;
		if (unit) {
			join(sub, label, part);
			add_seg(w, sub[0] ? sub : k, source, host, v, unit);
		} else if ((json_is_object(v) || json_is_array(v)) && !is_skipped_key(k)) {
			const char *ks = source_of_key(k);
			join(sub, label, is_quiet_key(k) ? "" : k);
			walk(v, sub, source ? source : ks, depth + 1, w);
		}
	}
}

/* An array element's name from its identifying fields ("kv CUDA0"), or its index. */
static void element_label(const json_t *e, size_t i, const char *label, char *out)
{
	char part[LABEL_MAX] = "";

	for (size_t k = 0; json_is_object(e) && k < ARRAY_LEN(name_keys); k++) {
		const json_t *n = json_object_get(e, name_keys[k]);
		if (json_is_string(n) && strlen(part) + json_string_length(n) + 2 < sizeof part) {
			if (part[0])
				strcat(part, " ");
			strcat(part, json_string_value(n));
		}
	}
	if (!part[0])
		snprintf(part, sizeof part, "%zu", i);
	join(out, label, part);
}

static void walk(const json_t *v, const char *label, const char *source, int depth, struct walk *w)
{
	char sub[LABEL_MAX];
	size_t i;
	json_t *e;

	if (depth > WALK_DEPTH)
		return;
	if (json_is_object(v)) {
		walk_object(v, label, source, depth, w);
		return;
	}
	json_array_foreach((json_t *)v, i, e) {
		element_label(e, i, label, sub);
		walk(e, sub, source, depth + 1, w);
	}
}

/* Evidence as one word: ["mapped","cmdline"] → "mapped+cmdline". */
static char *evidence_text(const json_t *ev)
{
	char buf[128] = "";
	size_t i;
	json_t *e;

	if (json_is_string(ev))
		return xstrdup(json_string_value(ev));
	json_array_foreach((json_t *)ev, i, e) {
		const json_t *name = json_is_object(e) ? json_object_get(e, "kind") : e;
		if (!json_is_string(name) || strlen(buf) + json_string_length(name) + 2 >= sizeof buf)
			continue;
		if (buf[0])
			strcat(buf, "+");
		strcat(buf, json_string_value(name));
	}
	return buf[0] ? xstrdup(buf) : NULL;
}

static void read_models(const json_t *o, struct snap_rows *snap, struct snap_proc *p)
{
	const json_t *models = json_object_get(o, "models");
	size_t i;
	json_t *m;

	if (!json_is_array(models) || json_array_size(models) == 0)
		return;
	json_array_foreach((json_t *)models, i, m) {
		const json_t *path = json_object_get(m, "path"), *name = json_object_get(m, "name");
		const char *ps = json_is_string(path) ? json_string_value(path) : NULL;
		const char *ns = json_is_string(name) ? json_string_value(name) : NULL;
		struct snap_model *dm;

		if (!json_is_object(m) || (!ps && !ns))
			continue;
		if (p->n_models >= SNAP_MAX_MODELS || !take_budget(snap)) {
			snap->extras_truncated = true;
			break;
		}
		p->models = grow_array(p->models, sizeof *p->models, &p->cap_models, (size_t)p->n_models);
		dm = &p->models[p->n_models++];
		memset(dm, 0, sizeof *dm);
		dm->name = xstrdup(ns ? ns : path_base(ps));
		dm->key = xstrdup(ps ? ps : ns);
		dm->evidence = evidence_text(json_object_get(m, "evidence"));
		const json_t *st = json_object_get(m, "status");
		dm->status = json_is_string(st) ? xstrdup(json_string_value(st)) : NULL;
	}
}

void snap_reported_read(const json_t *o, struct snap_rows *snap, struct snap_proc *p)
{
	struct walk w = {snap, p};

	read_models(o, snap, p);
	read_flags(o, p);
	walk(o, "", NULL, 0, &w);
}

void snap_reported_free(struct snap_proc *p)
{
	for (int i = 0; i < p->n_segs; i++) {
		free(p->segs[i].label);
		free(p->segs[i].source);
	}
	free(p->segs);
	for (int i = 0; i < p->n_models; i++) {
		free(p->models[i].name);
		free(p->models[i].key);
		free(p->models[i].evidence);
		free(p->models[i].status);
	}
	free(p->models);
	p->segs = NULL;
	p->models = NULL;
	p->n_segs = p->n_models = 0;
	p->cap_segs = p->cap_models = 0;
}
