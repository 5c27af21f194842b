#include "views/tui/tui_ident.h"

#include <stdio.h>
#include <string.h>

#include "core/util.h"

#include "identify/ident.h"

const char *tui_cat_name(enum tui_cat c)
{
	static const char *const names[TUI_CAT_COUNT] = {"AI", "compositor", "browser", "other", "unattributed"};
	return (unsigned)c < TUI_CAT_COUNT ? names[c] : names[TUI_CAT_OTHER];
}

/* What each identify category usually keeps in GPU memory, for rows whose
 * contents are not known in detail. */
static const char *const usual_contents[IDENT_CAT_COUNT] = {
	[IDENT_CAT_OTHER] = "",
	[IDENT_CAT_AI] = "model weights, KV cache (model not identified)",
	[IDENT_CAT_COMPOSITOR] = "window surfaces, frame buffers",
	[IDENT_CAT_BROWSER] = "page layers, video frames, WebGL",
	[IDENT_CAT_3D] = "textures, frame buffers",
	[IDENT_CAT_VIDEO] = "video frames",
	[IDENT_CAT_COMPUTE] = "compute buffers",
};

enum tui_cat tui_process_cat(const struct gtm_process *p)
{
	if (p->owner == GTM_OWNER_UNATTRIBUTED)
		return TUI_CAT_UNATTRIBUTED;
	if (!p->ident)
		return TUI_CAT_OTHER;
	switch (p->ident->category) {
	case IDENT_CAT_AI: return TUI_CAT_AI;
	case IDENT_CAT_COMPOSITOR: return TUI_CAT_COMPOSITOR;
	case IDENT_CAT_BROWSER: return TUI_CAT_BROWSER;
	default: return TUI_CAT_OTHER;
	}
}

const char *tui_process_cat_text(const struct gtm_process *p)
{
	if (p->owner == GTM_OWNER_UNATTRIBUTED)
		return "unattributed";
	return p->ident ? ident_category_text(p->ident->category) : "";
}

char *tui_process_runtimes(const struct gtm_process *p, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; p->ident && i < p->ident->n_runtimes && len + 1 < n; i++) {
		const char *name = p->ident->runtimes[i].id ? p->ident->runtimes[i].id : "?";
		/* as snprintf "%s%s" would cut it, without printf (every row, every redraw) */
		if (i && (len += str_copy(buf + len, ", ", n - len)) + 1 >= n)
			break;
		len += str_copy(buf + len, name, n - len);
	}
	return buf;
}

char *tui_process_inside(const struct gtm_process *p, char *buf, size_t n)
{
	const struct ident_model *m;

	if (p->owner == GTM_OWNER_UNATTRIBUTED) {
		str_copy(buf, "buffers no process is charged with", n);
		return buf;
	}
	if (!p->ident) {
		buf[0] = '\0';
		return buf;
	}
	if (p->ident->n_models > 0) {
		m = &p->ident->models[0];
		const char *alias = ident_model_alias(p->ident, m);
		snprintf(buf, n, "%s%s%s%s%s%s%s%s", m->name ? m->name : (m->path ? path_base(m->path) : "model"),
			 alias ? " (alias " : "", alias ? alias : "", alias ? ")" : "",
			 m->have_info ? " " : "", m->have_info ? gguf_kind_text(m->info.kind) : "",
			 m->have_info && m->info.incomplete ? " (incomplete file)" : "",
			 ident_model_unproven(m) ? " (not proven loaded)" : "");
		return buf;
	}
	str_copy(buf, (unsigned)p->ident->category < IDENT_CAT_COUNT ? usual_contents[p->ident->category] : "", n);
	return buf;
}
