/* Events: jansson objects with a type and a UTC timestamp. */
#include "event.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xalloc.h"

/* The date and time to the second, formatted once a second per thread
 * (gmtime_r and strftime were most of a timestamp's cost, two a leg);
 * only the milliseconds change in between. */
static _Thread_local time_t event_ts_sec = -1;
static _Thread_local char event_ts_head[EVENT_TS_LEN];
static _Thread_local size_t event_ts_len;

void
event_timestamp(char buf[EVENT_TS_LEN])
{
	struct timespec ts;
	int ms;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (ts.tv_sec != event_ts_sec) {
		struct tm tm;

		gmtime_r(&ts.tv_sec, &tm);
		event_ts_len = strftime(event_ts_head, EVENT_TS_LEN,
		    "%Y-%m-%dT%H:%M:%S", &tm);
		event_ts_sec = ts.tv_sec;
	}
	/* ".mmmZ" and the NUL after the head: EVENT_TS_LEN leaves room. */
	ms = (int)(ts.tv_nsec / 1000000L) % 1000;
	memcpy(buf, event_ts_head, event_ts_len);
	buf[event_ts_len] = '.';
	buf[event_ts_len + 1] = (char)('0' + ms / 100);
	buf[event_ts_len + 2] = (char)('0' + ms / 10 % 10);
	buf[event_ts_len + 3] = (char)('0' + ms % 10);
	buf[event_ts_len + 4] = 'Z';
	buf[event_ts_len + 5] = '\0';
}

json_t *
event_new(const char *type)
{
	char ts[EVENT_TS_LEN];
	json_t *ev = json_object();

	if (ev == NULL)
		return NULL;
	event_timestamp(ts);
	json_object_set_new(ev, "t", json_string(type));
	json_object_set_new(ev, "ts", json_string(ts));
	return ev;
}

/* Whether x is a whole number of millionths under 1e9 in size (k / 1e6
 * correctly rounded, |k| < 1e15: what the leg line's seconds are): 15
 * significant digits then print k / 1e6 itself, which reads back to x,
 * so the printf and strtod of the check below can be skipped. */
static bool
event_real_micro(double x)
{
	double k;

	if (!(x > -1e9 && x < 1e9))
		return false;
	k = nearbyint(x * 1e6);
	return k / 1e6 == x;
}

/* Whether every real in v, printed with prec significant digits (as
 * jansson prints it), reads back to the same double. */
static bool
event_reals_exact(const json_t *v, int prec)
{
	const char *key;
	json_t *x;
	size_t i;
	char buf[64];

	switch (json_typeof(v)) {
	case JSON_REAL:
		if (prec >= 15 && event_real_micro(json_real_value(v)))
			return true;
		snprintf(buf, sizeof buf, "%.*g", prec, json_real_value(v));
		return strtod(buf, NULL) == json_real_value(v);
	case JSON_OBJECT:
		json_object_foreach((json_t *)v, key, x)
			if (!event_reals_exact(x, prec))
				return false;
		return true;
	case JSON_ARRAY:
		json_array_foreach(v, i, x)
			if (!event_reals_exact(x, prec))
				return false;
		return true;
	default:
		return true;
	}
}

/* Dump with the fewest significant digits (15, 16, then 17) for which
 * every real reads back to the same double: short lines for the usual
 * rounded values, exact for all.  Each real is checked alone (a printf
 * and a strtod), not the whole line parsed back: this runs twice a leg. */
static char *
event_dump(const json_t *ev)
{
	int prec = 15;

	while (prec < 17 && !event_reals_exact(ev, prec))
		prec++;
	return json_dumps(ev, JSON_COMPACT | JSON_PRESERVE_ORDER |
	    JSON_ENSURE_ASCII | JSON_REAL_PRECISION(prec));
}

char *
event_line(const json_t *ev, size_t *len)
{
	char *s = event_dump(ev);
	size_t n;
	char *line;

	if (s == NULL)
		return NULL;
	n = strlen(s);
	line = xrealloc(s, n + 2);
	line[n] = '\n';
	line[n + 1] = '\0';
	if (len != NULL)
		*len = n + 1;
	return line;
}

const char *
event_type(const json_t *ev)
{
	const char *t;

	if (!json_is_object(ev))
		return NULL;
	t = json_string_value(json_object_get(ev, "t"));
	if (t != NULL)
		return t;
	if (json_object_get(ev, "t") == NULL && json_object_get(ev, "cell") &&
	    json_object_get(ev, "arm") && json_object_get(ev, "rep"))
		return "leg";
	return NULL;
}
