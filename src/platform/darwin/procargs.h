/* sysctl(KERN_PROCARGS2)'s buffer, pure: a native int argc, the executable's
 * path, NUL padding, argc NUL-terminated arguments, then the environment's
 * NUL-terminated entries up to an empty one or the end (xnu's
 * bsd/kern/kern_sysctl.c, sysctl_procargsx; ps and htop's darwin/ read it
 * so). Tested and fuzzed on Linux. */
#ifndef GTM_PROCARGS_H
#define GTM_PROCARGS_H

#include <stddef.h>

struct procargs {
	char **argv;        /* argc copies and a NULL, malloc'd (procargs_free) */
	int argc;
	const char *exec_path; /* into the buffer; NULL when absent */
	const char *env;       /* into the buffer: entries NUL-separated, env_len bytes, */
	size_t env_len;        /* cut after the last whole entry within max_env */
};

#define PROCARGS_MAX_ARGC 4096

/* Returns 0, or -1 when buf is no such buffer (too short, argc out of
 * range); the arguments it holds are kept even when cut short. */
int procargs_parse(const char *buf, size_t n, size_t max_env, struct procargs *out);
void procargs_free(struct procargs *a);

#endif
