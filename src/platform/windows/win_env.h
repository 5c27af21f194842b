/* The pure half of reading another process's environment on Windows: where
 * the PEB keeps it (per bitness of the target: a 64-bit process, or a
 * 32-bit one under WOW64 with its own 32-bit PEB) and how its UTF-16 block
 * becomes the NUL-separated UTF-8 entries the Linux side reads from
 * /proc/PID/environ. No Windows header: the Linux unit tests and the fuzz
 * target build this file too (win_env.c); proc_environ.c does the reading
 * with ReadProcessMemory. */
#ifndef GTM_WIN_ENV_H
#define GTM_WIN_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Offsets into the PEB and RTL_USER_PROCESS_PARAMETERS of one bitness
 * (Vista and later: EnvironmentSize exists since 6.0). winternl.h hides
 * these fields in Reserved arrays, so they are data here. */
struct win_peb_layout {
	uint8_t ptr_size;          /* 8 (x64) or 4 (the 32-bit PEB of a WOW64 process) */
	uint16_t peb_params;       /* PEB.ProcessParameters */
	uint16_t params_env;       /* RTL_USER_PROCESS_PARAMETERS.Environment */
	uint16_t params_env_size;  /* RTL_USER_PROCESS_PARAMETERS.EnvironmentSize (bytes) */
};
extern const struct win_peb_layout win_peb_x64, win_peb_x86;

/* Bytes of the PEB and of the parameters to read so that every field of
 * the layout is inside. */
size_t win_peb_bytes(const struct win_peb_layout *l);
size_t win_params_bytes(const struct win_peb_layout *l);

/* The ProcessParameters pointer in the PEB bytes read (n of them); false
 * when they are too short or the pointer is NULL. */
bool win_peb_params(const uint8_t *peb, size_t n, const struct win_peb_layout *l, uint64_t *params);

/* The Environment pointer and EnvironmentSize in the parameters read (n
 * bytes). *size is 0 where the process's Windows left it so (the block then
 * ends at its empty entry, bounded by the caller). False when too short or
 * the pointer is NULL. */
bool win_params_environment(const uint8_t *params, size_t n, const struct win_peb_layout *l, uint64_t *env,
			    uint64_t *size);

/* The most bytes of a UTF-16 block read for an output of cap bytes: an
 * ASCII entry takes two bytes in UTF-16 and one in UTF-8. */
#define WIN_ENV_RAW_MAX(cap) (2u * (size_t)(cap))

/* Turns a UTF-16LE environment block (entries "NAME=value", each ended by a
 * UTF-16 NUL, the block by an empty entry) of n bytes into NUL-separated
 * UTF-8 entries in out, at most cap bytes: the block's end, an entry cut by
 * n (an odd byte, no NUL) or one that would pass cap ends the output after
 * the last whole entry, as the Linux side cuts /proc/PID/environ. Unpaired
 * surrogates become U+FFFD. Returns the bytes written. */
size_t win_environ_to_utf8(const uint8_t *blk, size_t n, char *out, size_t cap);

#endif
