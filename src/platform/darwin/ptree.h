/* A property tree: the IOKit registry's values as gputaskman reads them,
 * whatever read them (CoreFoundation on a Mac: iokit_read.c; `ioreg`'s text
 * and plist output in the tests: ioreg_text.c, ioreg_plist.c). Only the four
 * kinds the rules look at are kept apart; booleans, data and dates are
 * PT_OTHER. Pure C, no macOS header: the rules over it (agx.c) are
 * unit-tested on Linux. */
#ifndef GTM_PTREE_H
#define GTM_PTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ptree_kind { PT_DICT, PT_ARRAY, PT_NUMBER, PT_STRING, PT_OTHER };

struct ptree {
	enum ptree_kind kind;
	char *key;            /* the member's key inside a dictionary, else NULL */
	int64_t num;          /* PT_NUMBER (CFNumber as SInt64, ioreg's decimal) */
	char *str;            /* PT_STRING, NUL-terminated UTF-8 */
	struct ptree *first;  /* PT_DICT, PT_ARRAY: the members in order */
	struct ptree *last;
	struct ptree *next;   /* the next member of the parent */
	size_t n;             /* members */
};

/* Parsers refuse deeper nesting than this (a hostile input is no stack
 * overflow); registry values nest two or three deep. */
#define PTREE_MAX_DEPTH 32

struct ptree *ptree_new(enum ptree_kind kind);
/* A string node holding a copy of n bytes of s. */
struct ptree *ptree_new_str(const char *s, size_t n);
struct ptree *ptree_new_num(int64_t v);
/* Appends child to a dictionary (under a copy of key, n bytes) or an array
 * (key NULL). */
void ptree_add(struct ptree *parent, const char *key, size_t key_n, struct ptree *child);
void ptree_free(struct ptree *t);

/* The member of a dictionary under key (the first, should keys repeat), or
 * NULL when t is no dictionary or lacks it. */
const struct ptree *ptree_get(const struct ptree *t, const char *key);
/* The number under key: true and *out set when it is one. */
bool ptree_get_num(const struct ptree *t, const char *key, int64_t *out);
/* The string under key, or NULL. */
const char *ptree_get_str(const struct ptree *t, const char *key);

#endif
