/* <endian.h>'s conversions, which macOS's C library lacks (it has
 * libkern/OSByteOrder.h): Apple Silicon is little-endian, so the
 * little-endian ones are identities; the rest are the compiler's swaps. */
#ifndef GTM_DARWIN_ENDIAN_H
#define GTM_DARWIN_ENDIAN_H

#include <stdint.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "this endian.h is for little-endian macOS targets"
#endif

#define le16toh(x) ((uint16_t)(x))
#define le32toh(x) ((uint32_t)(x))
#define le64toh(x) ((uint64_t)(x))
#define htole16(x) ((uint16_t)(x))
#define htole32(x) ((uint32_t)(x))
#define htole64(x) ((uint64_t)(x))
#define be16toh(x) __builtin_bswap16(x)
#define be32toh(x) __builtin_bswap32(x)
#define be64toh(x) __builtin_bswap64(x)
#define htobe16(x) __builtin_bswap16(x)
#define htobe32(x) __builtin_bswap32(x)
#define htobe64(x) __builtin_bswap64(x)

#endif
