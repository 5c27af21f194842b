#include "snapread/json_get.h"

#include <stdio.h>

const char *jr_type_name(const json_t *v)
{
	static const char *const names[] = {
		[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array", [JSON_STRING] = "a string",
		[JSON_INTEGER] = "an integer", [JSON_REAL] = "a real number", [JSON_TRUE] = "true",
		[JSON_FALSE] = "false", [JSON_NULL] = "null",
	};
	return names[json_typeof(v)];
}

static int wrong(const json_t *v, const char *key, const char *want, const char *where, char *err, size_t errn)
{
	/* "an integer" alone would not say what is wrong with -5 as a byte count */
	const char *found = json_is_integer(v) && json_integer_value(v) < 0 ? "a negative integer" : jr_type_name(v);
	snprintf(err, errn, "%s%s%s: expected %s, found %s", where, where[0] ? "." : "", key, want, found);
	return -1;
}

int jr_bytes(const json_t *obj, const char *key, struct snap_val *out, const char *where, char *err, size_t errn)
{
	const json_t *v = json_object_get(obj, key);

	*out = (struct snap_val){0};
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return wrong(v, key, "a byte count (an integer >= 0) or null", where, err, errn);
	*out = (struct snap_val){true, (uint64_t)json_integer_value(v)};
	return 0;
}

int jr_str(const json_t *obj, const char *key, const char **out, const char *where, char *err, size_t errn)
{
	const json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return wrong(v, key, "a string or null", where, err, errn);
	*out = json_string_value(v);
	return 0;
}

int jr_int(const json_t *obj, const char *key, long long lo, long long hi, bool *has, long long *out,
	   const char *where, char *err, size_t errn)
{
	const json_t *v = json_object_get(obj, key);

	*has = false;
	*out = 0;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
		char want[64];
		snprintf(want, sizeof want, "an integer in %lld..%lld or null", lo, hi);
		return wrong(v, key, want, where, err, errn);
	}
	*has = true;
	*out = json_integer_value(v);
	return 0;
}

int jr_array(const json_t *obj, const char *key, size_t max, const json_t **out, const char *where, char *err,
	     size_t errn)
{
	const json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v))
		return wrong(v, key, "an array or null", where, err, errn);
	if (json_array_size(v) > max) {
		snprintf(err, errn, "%s%s%s: %zu entries, more than the %zu a snapshot may hold", where,
			 where[0] ? "." : "", key, json_array_size(v), max);
		return -1;
	}
	*out = v;
	return 0;
}
