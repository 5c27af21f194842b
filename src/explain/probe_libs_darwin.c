/* The POSIX probe's libraries on macOS (probe_posix.c's order): Homebrew's
 * libevent (Apple Silicon prefix) where installed, then the libcurl every
 * macOS has in /usr/lib, then Homebrew's. Never run on a Mac. */
#include "explain/probe_posix.h"

const char *const probe_backend_libs[] = {"/opt/homebrew/lib/libevent-2.1.7.dylib", "/usr/lib/libcurl.4.dylib",
					  "/opt/homebrew/opt/curl/lib/libcurl.4.dylib", NULL};
