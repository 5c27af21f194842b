/* Fuzzes ioreg's text form (src/platform/darwin/ioreg_text.c) and the Apple
 * GPU rules over what it yields (agx.c): the input as `ioreg -r -d 2`
 * output, walked for devices and clients, then two tracker samples.
 * Invariants: nothing read past the input (ASan), every entry's props a
 * dictionary, every rate within 0..100 %. */
#include "darwin_fuzz_walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return darwin_fuzz_walk(data, size, ioreg_parse_text);
}
