/* <regex.h> for the Windows build: PCRE2's POSIX API (pcre2posix.h maps
 * regcomp, regexec and regfree to pcre2_regcomp, ...), from Debian's pcre2
 * source package built into the sysroot (scripts/mingw-sysroot.sh). Its
 * syntax is a superset of the POSIX ERE the callers write; llama.cpp's own
 * -ot patterns are std::regex ECMAScript, which PCRE is closer to still.
 * REG_EXTENDED is accepted and means nothing there. */
#ifndef GTM_WIN_REGEX_H
#define GTM_WIN_REGEX_H

#define PCRE2_STATIC
#include <pcre2posix.h>

#endif
