#include "record/rec_time.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/util.h"

/* n decimal digits at s, or -1. */
static int digits(const char *s, size_t avail, size_t n)
{
	int v = 0;
	if (avail < n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static bool leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int rec_time_parse_iso(const char *s, size_t n, int64_t *out)
{
	static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int y = digits(s, n, 4), mo, d, h, mi, sec = 0, off = 0;
	size_t i = 10;

	if (y < 0 || n < 16 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't' && s[10] != ' '))
		return -1;
	mo = digits(s + 5, n - 5, 2);
	d = digits(s + 8, n - 8, 2);
	h = digits(s + 11, n - 11, 2);
	mi = s[13] == ':' ? digits(s + 14, n - 14, 2) : -1;
	if (mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59)
		return -1;
	if (d > mdays[mo - 1] + (mo == 2 && leap(y)))
		return -1;
	i = 16;
	if (i < n && s[i] == ':') {
		sec = digits(s + i + 1, n - i - 1, 2);
		if (sec < 0 || sec > 60)
			return -1;
		i += 3;
		if (i < n && (s[i] == '.' || s[i] == ',')) {
			i++;
			size_t start = i;
			while (i < n && s[i] >= '0' && s[i] <= '9')
				i++;
			if (i == start)
				return -1;
		}
	}
	if (i < n && (s[i] == 'Z' || s[i] == 'z') && i + 1 == n) {
		off = 0;
	} else if (i < n && (s[i] == '+' || s[i] == '-')) {
		int oh = digits(s + i + 1, n - i - 1, 2), om;
		size_t j = i + 3;
		if (j < n && s[j] == ':')
			j++;
		om = digits(s + j, n - j, 2);
		if (oh < 0 || oh > 23 || om < 0 || om > 59 || j + 2 != n)
			return -1;
		off = (oh * 3600 + om * 60) * (s[i] == '-' ? -1 : 1);
	} else {
		return -1; /* a zone is required: a bare date-time is ambiguous */
	}
	*out = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + sec - off;
	return 0;
}

int rec_time_parse_clock(const char *s, int *secs)
{
	size_t n = strlen(s);
	int h = digits(s, n, 2), m, sec = 0;

	if (h < 0 || h > 23 || n < 5 || s[2] != ':')
		return -1;
	m = digits(s + 3, n - 3, 2);
	if (m < 0 || m > 59)
		return -1;
	if (n == 8 && s[5] == ':') {
		sec = digits(s + 6, 2, 2);
		if (sec < 0 || sec > 59)
			return -1;
	} else if (n != 5) {
		return -1;
	}
	*secs = h * 3600 + m * 60 + sec;
	return 0;
}

/* t_s at the local day that holds `day` with the time of day secs (DST-aware through mktime). */
static int64_t on_local_day(int64_t day, int secs)
{
	time_t t = (time_t)day;
	struct tm tm;
	localtime_r(&t, &tm);
	tm.tm_hour = secs / 3600;
	tm.tm_min = secs / 60 % 60;
	tm.tm_sec = secs % 60;
	tm.tm_isdst = -1;
	return (int64_t)mktime(&tm);
}

int rec_time_resolve(const char *text, int64_t last_s, int64_t *out, char *err, size_t errn)
{
	int secs;

	if (rec_time_parse_iso(text, strlen(text), out) == 0)
		return 0;
	if (rec_time_parse_clock(text, &secs) == 0) {
		/* the latest such moment not after the recording's end */
		int64_t t = on_local_day(last_s, secs);
		*out = t > last_s ? on_local_day(last_s - 86400, secs) : t;
		return 0;
	}
	snprintf(err, errn, "'%s' is not a time: give ISO 8601 (2026-12-01T03:12:00Z, or with an offset: "
			    "2026-12-01T05:12:00+02:00) or a local time of day HH:MM[:SS]", text);
	return -1;
}

void rec_time_format(char *buf, size_t cap, int64_t t_s)
{
	time_t t = (time_t)t_s;
	struct tm tm;
	gmtime_r(&t, &tm);
	if (strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0 && cap > 0)
		buf[0] = '\0';
}
