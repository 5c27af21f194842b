/* <endian.h>'s little-endian conversions: every Windows target this build
 * makes (x86-64) is little-endian, so they are the identity. */
#ifndef GTM_WIN_ENDIAN_H
#define GTM_WIN_ENDIAN_H

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "this endian.h is for little-endian Windows targets"
#endif

#define le16toh(x) ((uint16_t)(x))
#define le32toh(x) ((uint32_t)(x))
#define le64toh(x) ((uint64_t)(x))
#define htole16(x) ((uint16_t)(x))
#define htole32(x) ((uint32_t)(x))
#define htole64(x) ((uint64_t)(x))

#endif
