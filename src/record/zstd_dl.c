/* libzstd loaded with dlopen at the first recording opened (zstd_ep.h says why). */
#include "record/zstd_ep.h"

#include <pthread.h>
#include <stdio.h>

#include "core/dl_table.h"

struct zstd_ep zstd_ep;
/* Debian's libzstd1; the soname has been 1 since zstd 1.0 */
const char *const zstd_lib_names[] = {"libzstd.so.1", NULL};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char load_why[192];

static void load(void)
{
#define ZSTD_EP_SYM(name) #name,
#define ZSTD_EP_SLOT_OF(name) (void **)&zstd_ep.name,
	static const char *const syms[] = {ZSTD_EP_NAMES(ZSTD_EP_SYM) NULL};
	static void **const slots[] = {ZSTD_EP_NAMES(ZSTD_EP_SLOT_OF) NULL};
	loaded = dl_table_open(zstd_lib_names, syms, slots, load_why, sizeof load_why);
}

bool zstd_ep_load(char *why, size_t n)
{
	pthread_once(&once, load);
	if (!loaded)
		snprintf(why, n, "recordings need libzstd (Debian: libzstd1): %s", load_why);
	return loaded;
}
