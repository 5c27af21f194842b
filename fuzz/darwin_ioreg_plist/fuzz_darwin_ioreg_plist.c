/* Fuzzes ioreg -a's plist form (src/platform/darwin/ioreg_plist.c) and the
 * Apple GPU rules over it; invariants as fuzz_darwin_ioreg_text.c's. */
#include "../darwin_ioreg_text/darwin_fuzz_walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return darwin_fuzz_walk(data, size, ioreg_parse_plist);
}
