/* Events: jansson objects with a type and a UTC timestamp. */
#include "event.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xalloc.h"

void
event_timestamp(char buf[EVENT_TS_LEN])
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	size_t n = strftime(buf, EVENT_TS_LEN, "%Y-%m-%dT%H:%M:%S", &tm);

	snprintf(buf + n, EVENT_TS_LEN - n, ".%03dZ",
	    (int)(ts.tv_nsec / 1000000L) % 1000);
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

/* Dump with the fewest significant digits (15, 16, then 17) for which
 * every real reads back to the same double: short lines for the usual
 * rounded values, exact for all. */
static char *
event_dump(const json_t *ev)
{
	for (int prec = 15; prec <= 17; prec++) {
		size_t flags = JSON_COMPACT | JSON_PRESERVE_ORDER |
		    JSON_ENSURE_ASCII | JSON_REAL_PRECISION(prec);
		char *s = json_dumps(ev, flags);
		json_t *back;
		bool same;

		if (s == NULL || prec == 17)
			return s;
		back = json_loads(s, JSON_DECODE_ANY, NULL);
		same = back != NULL && json_equal(back, (json_t *)ev);
		json_decref(back);
		if (same)
			return s;
		free(s);
	}
	return NULL;
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
