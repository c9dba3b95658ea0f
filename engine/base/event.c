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

/* The fewest significant digits (15, 16, then 17) for which every real
 * in ev reads back to the same double: short lines for the usual rounded
 * values, exact for all.  Each real is checked alone (a printf and a
 * strtod), not the whole line parsed back: this runs twice a leg. */
static int
event_precision(const json_t *ev)
{
	int prec = 15;

	while (prec < 17 && !event_reals_exact(ev, prec))
		prec++;
	return prec;
}

/* --- the line, written as jansson writes it ------------------------------
 *
 * json_dumps (compact, in order, ASCII only) was most of a line's cost: a
 * callback a token, an snprintf for every number, integers too.  These
 * write the same bytes for what events hold: printable ASCII strings,
 * numbers, true, false, null, arrays and objects.  Anything else (another
 * byte in a string, a real this locale prints otherwise, deep nesting)
 * makes them give up, and jansson writes the line. */

#define EVENT_MAX_DEPTH 32

static bool
event_put_str(struct xbuf *b, const char *s, size_t n)
{
	size_t from = 0;

	xbuf_add(b, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c > 0x7e)
			return false;
		if (c == '"' || c == '\\') {
			xbuf_add(b, s + from, i - from);
			xbuf_add(b, c == '"' ? "\\\"" : "\\\\", 2);
			from = i + 1;
		}
	}
	xbuf_add(b, s + from, n - from);
	xbuf_add(b, "\"", 1);
	return true;
}

static void
event_put_int(struct xbuf *b, json_int_t v)
{
	char tmp[24];
	size_t n = sizeof tmp;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v :
	    (unsigned long long)v;

	do
		tmp[--n] = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		tmp[--n] = '-';
	xbuf_add(b, tmp + n, sizeof tmp - n);
}

/* A whole number of millionths (event_real_micro) as %.15g writes it,
 * without printf (most of a leg line's reals, a printf each): from 1e-4
 * up %g writes fixed notation, and 15 significant digits are every digit
 * of k / 1e6 (|k| < 1e15), so the text is k's digits with the point six
 * from the right and the trailing zeros dropped (".0" for a whole
 * number, as jansson adds).  false below 1e-4 (%g's exponent form). */
static bool
event_put_micro(struct xbuf *b, double v)
{
	char tmp[32];
	size_t n = sizeof tmp;
	unsigned long long u, ip;
	unsigned long fr;
	int dec = 6;

	if (v != 0.0 && fabs(v) < 1e-4)
		return false;
	u = (unsigned long long)nearbyint(fabs(v) * 1e6);
	ip = u / 1000000ULL;
	fr = (unsigned long)(u % 1000000ULL);
	if (fr == 0) {
		tmp[--n] = '0';
	} else {
		while (fr % 10 == 0) {
			fr /= 10;
			dec--;
		}
		for (int i = 0; i < dec; i++, fr /= 10)
			tmp[--n] = (char)('0' + fr % 10);
	}
	tmp[--n] = '.';
	do
		tmp[--n] = (char)('0' + ip % 10);
	while ((ip /= 10) != 0);
	if (signbit(v))
		tmp[--n] = '-';
	xbuf_add(b, tmp + n, sizeof tmp - n);
	return true;
}

/* jansson's jsonp_dtostr: %.*g, ".0" when it reads as an integer, no '+'
 * and no leading zeros in the exponent. */
static bool
event_put_real(struct xbuf *b, double v, int prec)
{
	char buf[64], *start, *end;
	int r;
	size_t len;

	if (prec == 15 && event_real_micro(v) && event_put_micro(b, v))
		return true;
	r = snprintf(buf, sizeof buf, "%.*g", prec, v);
	if (r < 0 || (size_t)r + 3 >= sizeof buf)
		return false;
	len = (size_t)r;
	if (strspn(buf, "0123456789.e+-") != len)
		return false;
	if (strchr(buf, '.') == NULL && strchr(buf, 'e') == NULL) {
		memcpy(buf + len, ".0", 3);
		len += 2;
	}
	if ((start = strchr(buf, 'e')) != NULL) {
		start++;
		end = start + 1;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, len - (size_t)(end - buf));
			len -= (size_t)(end - start);
		}
	}
	xbuf_add(b, buf, len);
	return true;
}

static bool event_put_value(struct xbuf *b, const json_t *v, int prec,
    int depth);

static bool
event_put_object(struct xbuf *b, const json_t *v, int prec, int depth)
{
	json_t *o = (json_t *)v;
	bool first = true;

	xbuf_add(b, "{", 1);
	for (void *it = json_object_iter(o); it != NULL;
	    it = json_object_iter_next(o, it)) {
		if (!first)
			xbuf_add(b, ",", 1);
		first = false;
		if (!event_put_str(b, json_object_iter_key(it),
		    json_object_iter_key_len(it)))
			return false;
		xbuf_add(b, ":", 1);
		if (!event_put_value(b, json_object_iter_value(it), prec,
		    depth + 1))
			return false;
	}
	xbuf_add(b, "}", 1);
	return true;
}

static bool
event_put_value(struct xbuf *b, const json_t *v, int prec, int depth)
{
	if (depth > EVENT_MAX_DEPTH)
		return false;
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return event_put_object(b, v, prec, depth);
	case JSON_ARRAY:
		xbuf_add(b, "[", 1);
		for (size_t i = 0; i < json_array_size(v); i++) {
			if (i > 0)
				xbuf_add(b, ",", 1);
			if (!event_put_value(b, json_array_get(v, i), prec,
			    depth + 1))
				return false;
		}
		xbuf_add(b, "]", 1);
		return true;
	case JSON_STRING:
		return event_put_str(b, json_string_value(v),
		    json_string_length(v));
	case JSON_INTEGER:
		event_put_int(b, json_integer_value(v));
		return true;
	case JSON_REAL:
		return event_put_real(b, json_real_value(v), prec);
	case JSON_TRUE:
		xbuf_add(b, "true", 4);
		return true;
	case JSON_FALSE:
		xbuf_add(b, "false", 5);
		return true;
	case JSON_NULL:
		xbuf_add(b, "null", 4);
		return true;
	}
	return false;
}

char *
event_line(const json_t *ev, size_t *len)
{
	int prec = event_precision(ev);
	struct xbuf b = { NULL, 0, 0 };
	char *s;

	if (!json_is_object(ev) || !event_put_value(&b, ev, prec, 0)) {
		free(b.p);
		if ((s = json_dumps(ev, JSON_COMPACT | JSON_PRESERVE_ORDER |
		    JSON_ENSURE_ASCII | JSON_REAL_PRECISION(prec))) == NULL)
			return NULL;
		b = (struct xbuf){ s, strlen(s), strlen(s) + 1 };
	}
	xbuf_add(&b, "\n", 1);
	if (len != NULL)
		*len = b.len;
	return b.p;
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
