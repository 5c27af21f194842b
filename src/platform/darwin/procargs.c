/* KERN_PROCARGS2's buffer (procargs.h). */
#include "procargs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* The NUL-terminated string at *p (its end within end), advancing past it;
 * NULL when it runs to the end unterminated. */
static const char *take(const char **p, const char *end)
{
	const char *s = *p, *z = s < end ? memchr(s, '\0', (size_t)(end - s)) : NULL;
	if (!z)
		return NULL;
	*p = z + 1;
	return s;
}

int procargs_parse(const char *buf, size_t n, size_t max_env, struct procargs *out)
{
	int32_t argc;
	memset(out, 0, sizeof *out);
	if (n < sizeof argc)
		return -1;
	memcpy(&argc, buf, sizeof argc);
	if (argc < 0 || argc > PROCARGS_MAX_ARGC)
		return -1;
	const char *p = buf + sizeof argc, *end = buf + n;
	out->exec_path = take(&p, end);
	while (p < end && *p == '\0') /* the padding after the path */
		p++;
	out->argv = xcalloc((size_t)argc + 1, sizeof *out->argv);
	for (int i = 0; i < argc; i++) {
		const char *a = take(&p, end);
		if (!a)
			break;
		out->argv[out->argc++] = xstrdup(a);
	}
	if (out->argc < argc)
		return 0; /* cut: no environment after it */
	const char *env = p, *cut = p;
	for (const char *e; (e = take(&p, end)) && *e;) {
		if ((size_t)(p - env) > max_env)
			break;
		cut = p;
	}
	out->env = env;
	out->env_len = (size_t)(cut - env);
	return 0;
}

void procargs_free(struct procargs *a)
{
	for (int i = 0; i < a->argc; i++)
		free(a->argv[i]);
	free(a->argv);
	memset(a, 0, sizeof *a);
}
