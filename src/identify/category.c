/* Category rules, first match wins: name tables for compositors, browsers,
 * video tools and games; runtime traits for AI, compute and graphics; the
 * driver's load and process lists when nothing else is known. */
#include "identify/category.h"
#include "identify/glob.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "portable.h"

struct name_table {
	const char *what;          /* "compositor", used in the reason */
	const char *const *globs;  /* NULL-terminated */
	/* index_tables: for each first byte, the patterns (bit i: globs[i])
	 * that can match a name starting with it: those led by that byte, and
	 * those led by a wildcard */
	uint64_t by_first[256];
	bool unindexed;            /* more than 64 patterns: each is tried */
};

static const char *const compositor_globs[] = {
	"gnome-shell", "kwin_wayland", "kwin_x11", "kwin", "Xorg", "X", "Xwayland", "sway", "Hyprland",
	"weston", "mutter", "labwc", "wayfire", "river", "niri", "cosmic-comp", "gamescope", "picom",
	"compiz", "xfwm4", "marco", "muffin", "enlightenment",
	/* Windows: the Desktop Window Manager, and csrss, which holds the console
	 * windows' surfaces the same way (Task Manager shows both large) */
	"dwm.exe", "csrss.exe",
	/* macOS: the compositor */
	"WindowServer", NULL};
static const char *const browser_globs[] = {
	"firefox", "firefox-*", "firefox.*", "librewolf", "chrome", "chromium", "chromium-*", "google-chrome*",
	"msedge", "microsoft-edge*", "brave", "brave-*", "opera", "vivaldi-bin", "epiphany", "WebKitWebProces*",
	"WebKitGPUProces*", "electron", NULL};
static const char *const video_globs[] = {
	"ffmpeg", "ffplay", "obs", "mpv", "vlc", "gst-launch-1.0", "HandBrakeCLI", "ghb", "kdenlive",
	"shotcut", "totem", "celluloid", "mplayer", "kodi*", "resolve", NULL};
static const char *const game_globs[] = {
	"wine", "wine64", "wine*-preloader", "wineserver", "proton", "steam", "*/steamapps/common/*", NULL};
/* A Windows program where .exe is foreign (Wine, Proton: on Linux mostly games). */
static const char *const foreign_exe_globs[] = {"*.exe", "*.EXE", NULL};


static bool any_use(const struct gtm_process *p, bool (*pred)(const struct gtm_gpu_use *))
{
	for (int i = 0; i < p->n_uses; i++)
		if (pred(&p->uses[i]))
			return true;
	return false;
}

static bool pct_active(gtm_f64 r) { return gtm_f64_ok(r) && r.v > 0.0; }
static bool use_codec(const struct gtm_gpu_use *u) { return pct_active(u->enc_pct) || pct_active(u->dec_pct); }
static bool use_3d(const struct gtm_gpu_use *u) { return pct_active(u->gfx_pct) || u->graphics; }
static bool use_gfx_load(const struct gtm_gpu_use *u) { return pct_active(u->gfx_pct); }
static bool use_compute_list(const struct gtm_gpu_use *u) { return u->compute; }
static bool use_graphics_list(const struct gtm_gpu_use *u) { return u->graphics; }

struct rule_in {
	const struct gtm_process *p;
	const struct gtm_ident *id;
	char *reason;
	size_t n;
	const char *names[5];    /* process_names */
	int n_names;
};

typedef bool (*rule_fn)(const struct rule_in *in, const void *arg);
static struct name_table compositors = {.what = "compositor", .globs = compositor_globs};
static struct name_table browsers = {.what = "browser", .globs = browser_globs};
static struct name_table videos = {.what = "video tool", .globs = video_globs};
static struct name_table games = {.what = "game", .globs = game_globs};
static struct name_table foreign_exes = {.what = "Windows program", .globs = foreign_exe_globs};
static struct name_table *const name_tables[] = {&compositors, &browsers, &videos, &games, &foreign_exes};

static bool is_wild(char c) { return c == '*' || c == '?' || c == '['; }

/* Which patterns can match a name, by its first byte, once: each name is
 * tried against only those (against every GPU process's three to five names,
 * the tables' 70 patterns one by one were most of the process's
 * identification). A table of more than 64 patterns tries them all. */
static void index_tables(void)
{
	for (size_t t = 0; t < ARRAY_LEN(name_tables); t++) {
		struct name_table *nt = name_tables[t];
		uint64_t wild = 0;
		int i;
		for (i = 0; nt->globs[i] && i < 64; i++) {
			unsigned char c = (unsigned char)nt->globs[i][0];
			if (is_wild((char)c))
				wild |= UINT64_C(1) << i;
			else
				nt->by_first[c] |= UINT64_C(1) << i;
		}
		nt->unindexed = nt->globs[i] != NULL;
		for (int c = 0; c < 256; c++)
			nt->by_first[c] |= wild;
	}
}

static pthread_once_t tables_indexed = PTHREAD_ONCE_INIT;

static const char *name_table_match(const struct rule_in *in, const struct name_table *t)
{
	for (int k = 0; k < in->n_names; k++) {
		const char *name = in->names[k];
		uint64_t todo = t->by_first[(unsigned char)name[0]];
		for (int i = 0; (todo || t->unindexed) && t->globs[i]; i++, todo >>= 1)
			if ((t->unindexed || (todo & 1)) && glob_match(t->globs[i], name))
				return path_base(name);
	}
	return NULL;
}

/* The names a process goes by, each once: comm, the executable's base name
 * and path, argv[0]'s base name and argv[0] (often one name). */
static int process_names(const struct gtm_process *p, const char *names[5])
{
	const struct gtm_proc_detail *d = p->detail;
	const char *all[5] = {p->name[0] ? p->name : NULL, NULL, NULL, NULL, NULL};
	int n = 0;

	if (d && d->exe) {
		all[1] = path_base(d->exe);
		all[2] = d->exe;
	}
	if (d && d->argc > 0 && d->argv[0]) {
		all[3] = path_base(d->argv[0]);
		all[4] = d->argv[0];
	}
	for (int k = 0; k < 5; k++) {
		bool seen = !all[k];
		for (int j = 0; j < n && !seen; j++)
			seen = strcmp(names[j], all[k]) == 0;
		if (!seen)
			names[n++] = all[k];
	}
	return n;
}

static bool rule_named(const struct rule_in *in, const void *arg)
{
	const struct name_table *t = arg;
	const char *name = name_table_match(in, t);
	if (name)
		str_cat3(in->reason, in->n, t->what, " ", name);
	return name != NULL;
}

static bool rule_foreign_exe(const struct rule_in *in, const void *arg)
{
	return OS_EXE_IS_FOREIGN && rule_named(in, arg);
}

static bool rule_gpu_process(const struct rule_in *in, const void *arg)
{
	const struct gtm_proc_detail *d = in->p->detail;
	(void)arg;
	for (int i = 1; d && i < d->argc; i++)
		if (!strcmp(d->argv[i], "--type=gpu-process")) {
			snprintf(in->reason, in->n, "Chromium-based GPU process (%s)", path_base(d->argv[0]));
			return true;
		}
	return false;
}

static bool rule_trait(const struct rule_in *in, const void *arg)
{
	const unsigned *trait = arg;
	const struct ident_runtime *r = ident_find_trait(in->id, *trait);
	const char *what = *trait == RT_T_AI ? "AI runtime" : *trait == RT_T_COMPUTE ? "compute API" : "graphics API";
	if (r)
		str_cat3(in->reason, in->n, what, " ", r->name);
	return r != NULL;
}

static bool rule_codec_load(const struct rule_in *in, const void *arg)
{
	(void)arg;
	if (!any_use(in->p, use_codec) || any_use(in->p, use_3d))
		return false;
	snprintf(in->reason, in->n, "video encoder/decoder load without 3D load");
	return true;
}

/* A graphics API wins over a compute API unless the driver lists the
 * process for compute only. */
static bool rule_graphics_first(const struct rule_in *in, const void *arg)
{
	const unsigned g = RT_T_GRAPHICS;
	(void)arg;
	if (!ident_find_trait(in->id, RT_T_GRAPHICS))
		return false;
	if (ident_find_trait(in->id, RT_T_COMPUTE) && in->p->n_uses > 0 && !any_use(in->p, use_3d))
		return false;
	return rule_trait(in, &g);
}

static bool rule_driver_list(const struct rule_in *in, const void *arg)
{
	(void)arg;
	if (!any_use(in->p, use_compute_list))
		return false;
	snprintf(in->reason, in->n, "the driver lists it as a compute process");
	return true;
}

/* Metal (macOS) gives one GPU time per process, no engine breakdown: a
 * graphics client busier than 10 % that no runtime explains is taken for
 * 3D work (the original's rule), anything less says nothing. */
static bool use_metal_busy(const struct gtm_gpu_use *u)
{
	return u->graphics && !u->compute && u->n_engines == 0 && gtm_f64_ok(u->busy_pct) && u->busy_pct.v > 10.0;
}

static bool rule_metal_load(const struct rule_in *in, const void *arg)
{
	(void)arg;
	if (!any_use(in->p, use_metal_busy))
		return false;
	snprintf(in->reason, in->n, "GPU time over 10 %% (one GPU time per process: no engine breakdown)");
	return true;
}

/* Graphics work measured by the driver, with no 3D runtime recognised. */
static bool rule_graphics_load(const struct rule_in *in, const void *arg)
{
	(void)arg;
	if (!any_use(in->p, use_gfx_load))
		return false;
	snprintf(in->reason, in->n, "graphics load measured by the driver");
	return true;
}

/* Every DRM client without KFD is on the graphics list (drm_attrib.c), and
 * so are X servers and toolkits that only draw: listed alone, with no 3D
 * runtime mapped and no load, it is a graphics client, not a game. */
static bool rule_graphics_client(const struct rule_in *in, const void *arg)
{
	(void)arg;
	if (!any_use(in->p, use_graphics_list))
		return false;
	snprintf(in->reason, in->n, "graphics client (the driver lists it; no 3D runtime or load)");
	return true;
}

static const unsigned trait_ai = RT_T_AI, trait_compute = RT_T_COMPUTE, trait_graphics = RT_T_GRAPHICS;

static const struct category_rule {
	enum ident_category cat;
	rule_fn fn;
	const void *arg;
} category_rules[] = {
	{IDENT_CAT_COMPOSITOR, rule_named, &compositors},
	{IDENT_CAT_BROWSER, rule_named, &browsers},
	{IDENT_CAT_BROWSER, rule_gpu_process, NULL},
	{IDENT_CAT_AI, rule_trait, &trait_ai},
	{IDENT_CAT_VIDEO, rule_named, &videos},
	{IDENT_CAT_3D, rule_named, &games},
	{IDENT_CAT_3D, rule_foreign_exe, &foreign_exes},
	{IDENT_CAT_VIDEO, rule_codec_load, NULL},
	{IDENT_CAT_3D, rule_graphics_first, NULL},
	{IDENT_CAT_COMPUTE, rule_trait, &trait_compute},
	{IDENT_CAT_3D, rule_trait, &trait_graphics},
	{IDENT_CAT_COMPUTE, rule_driver_list, NULL},
	{IDENT_CAT_3D, rule_graphics_load, NULL},
	{IDENT_CAT_3D, rule_metal_load, NULL},
	{IDENT_CAT_OTHER, rule_graphics_client, NULL},
};

void category_assign(const struct gtm_process *p, struct gtm_ident *id)
{
	struct rule_in in = {p, id, id->category_reason, sizeof id->category_reason, {NULL}, 0};

	pthread_once(&tables_indexed, index_tables);
	in.n_names = process_names(p, in.names);

	for (size_t i = 0; i < ARRAY_LEN(category_rules); i++)
		if (category_rules[i].fn(&in, category_rules[i].arg)) {
			id->category = category_rules[i].cat;
			return;
		}
	id->category = IDENT_CAT_OTHER;
	snprintf(id->category_reason, sizeof id->category_reason, "no GPU runtime recognised");
}
