/* IOKit registry entries as a flat list in registry order, each with its
 * class, registry id, depth below the matched entries and its properties as
 * a property tree (ptree.h). On a Mac iokit_read.c fills one from the live
 * registry; in the tests ioreg_text.c and ioreg_plist.c fill one from
 * `ioreg -r -d N -w 0 -c CLASS` output and its `-a` (plist) form. The
 * rules (agx.h) read only this list. Pure C. */
#ifndef GTM_IOREG_H
#define GTM_IOREG_H

#include <stddef.h>
#include <stdint.h>

#include "ptree.h"

struct ioreg_entry {
	char cls[64];        /* IOObjectGetClass: "AGXAcceleratorG13X", "AGXDeviceUserClient" */
	uint64_t id;         /* IORegistryEntryGetRegistryEntryID; 0 when not given */
	int depth;           /* 0: a matched entry; 1: its child; ... */
	const struct ptree *props; /* a dictionary, owned by the list */
};

struct ioreg_list {
	struct ioreg_entry *v;
	size_t n, cap;
	struct ptree *owned; /* every tree the entries' props point into */
};

#define IOREG_MAX_ENTRIES 4096

void ioreg_list_init(struct ioreg_list *l);
void ioreg_list_free(struct ioreg_list *l);
/* Appends an entry whose props are a tree the list now owns (props_owned),
 * or a part of one it owns already (props_owned NULL). NULL past
 * IOREG_MAX_ENTRIES (props_owned is then freed). */
struct ioreg_entry *ioreg_list_add(struct ioreg_list *l, const char *cls, uint64_t id, int depth,
				   const struct ptree *props, struct ptree *props_owned);
/* The entry's parent: the nearest earlier entry one level up, or NULL. */
const struct ioreg_entry *ioreg_parent(const struct ioreg_list *l, size_t i);

/* ioreg's text output (ioreg_text.c). Appends its entries; returns how many,
 * or -1 when the text has none. Never reads past n. */
int ioreg_parse_text(const char *buf, size_t n, struct ioreg_list *out);
/* ioreg -a's plist (ioreg_plist.c): an array of entry dictionaries with
 * their children under IORegistryEntryChildren. Same returns. */
int ioreg_parse_plist(const char *buf, size_t n, struct ioreg_list *out);

#endif
