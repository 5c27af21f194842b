/* Helpers shared by the unit tests: fixture locations, temp trees, skip. */
#ifndef GTM_TESTUTIL_H
#define GTM_TESTUTIL_H

#include <stddef.h>

/* ../shared/fixtures/<sub>, or exits 77 (meson's "skipped") saying the folder is absent. */
const char *tu_shared_fixture_or_skip(const char *sub);
/* ../shared/fixtures/<sub> or NULL when absent (for suites that only skip some cases). */
const char *tu_shared_fixture(const char *sub);
/* Reads a whole file (test use only; aborts on error). *len may be NULL. */
char *tu_read_file(const char *path, size_t *len);
/* The lines under the "## " heading of a quoted-lines file that starts with
 * title, up to the next "## " (malloc'd); aborts when the heading is absent. */
char *tu_fixture_block(const char *path, const char *title);
/* Writes bytes to path, creating parent folders. */
void tu_write_file(const char *path, const void *data, size_t len);
/* mkdir -p */
void tu_mkdirs(const char *path);
/* A fresh temp folder (removed by tu_rmrf). */
char *tu_tempdir(void);
void tu_rmrf(const char *path);
/* path as the OS's process layer reports it (malloc'd): realpath(3) on
 * Linux, _fullpath on Windows ("/tmp/x" -> "Z:\\tmp\\x" under Wine). */
char *tu_native_path(const char *path);
/* End-to-end checks that go on after a failure: prints "FAIL: ..." when ok
 * is false and counts it; tu_failures() is the count so far. */
void tu_check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tu_failures(void);
/* open_memstream for every OS's tests (portable.h's os_memstream): the text
 * and its length are stored into *text and *len by tu_memclose, as fclose
 * does for open_memstream. At most 8 open at once. */
#include <stdio.h>
FILE *tu_memstream(char **text, size_t *len);
void tu_memclose(FILE *f);
/* The project's source root and build root (set by meson). */
const char *tu_source_root(void);
const char *tu_build_root(void);

#endif
