/* A library loaded at run time into a table of entry points: the pattern of
 * the NVML, libcurl and libmicrohttpd tables, for the libraries a build
 * could link but that only some commands use (zstd: recordings; ncursesw:
 * the live view). */
#ifndef GTM_DL_TABLE_H
#define GTM_DL_TABLE_H

#include <stdbool.h>
#include <stddef.h>

/* Opens the first of libs (NULL-terminated sonames) that loads and has
 * every one of syms (NULL-terminated), storing syms[i]'s address through
 * slots[i]; on failure every slot is NULL and why says what was tried
 * ("libzstd.so.1 not loadable: ..." or "libzstd.so.1 lacks ZSTD_isError").
 * The library stays loaded. */
bool dl_table_open(const char *const *libs, const char *const *syms, void **const *slots, char *why, size_t n);

#endif
