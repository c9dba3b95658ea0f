/* Tally: a leg line read straight from its text (see tally_int.h).
 *
 * report reads a million leg lines, and building a json_t for each (a
 * tree of small allocations, freed again at once) was most of its time.
 * This is a strict JSON scanner for one object that fills a
 * tally_legrec without allocating: tally_leg.c then gives the fields
 * their meaning, as it does for a json_t.  It takes only what it follows
 * to the letter and hands back everything else, which jansson then reads
 * (and words the errors of):
 *   - strings of printable ASCII without escapes (anything else needs
 *     decoding or UTF-8 checks);
 *   - numbers by JSON's grammar, converted as jansson does: an integer of
 *     up to 18 digits exactly, a real exactly (Clinger's fast path, else
 *     strtod), no integer jansson would find too big, no real that
 *     overflows;
 *   - nesting up to TLINE_DEPTH;
 *   - a leg line: "t": "leg", or no "t" but "cell", "arm" and "rep" (a
 *     legacy row).  Other events go to jansson. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tally_int.h"
#include "xalloc.h"

#define TLINE_DEPTH 32

struct tline {
	const char *p, *end;
	char *scratch;      /* NUL-terminated copies of the strings kept */
};

/* What the line says beyond the record: its type and which keys it has. */
enum { TLINE_T_ABSENT, TLINE_T_LEG, TLINE_T_OTHER };
struct tline_seen {
	int t;
	bool cell, arm, rep, warmup;
};

enum tval_type { TV_STRING, TV_NUMBER, TV_TRUE, TV_FALSE, TV_NULL,
    TV_OBJECT, TV_ARRAY };
struct tval {
	enum tval_type type;
	const char *str;    /* TV_STRING: in the line, len bytes */
	size_t len;
	double num;         /* TV_NUMBER */
	bool is_int;        /* TV_NUMBER jansson reads as an integer */
	long long ival;
	size_t items;       /* TV_ARRAY: its length */
};

static bool tally_line_value(struct tline *s, int depth, struct tval *v);

static void
tally_line_ws(struct tline *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' ||
	    *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

/* The next byte (after white space) is c: consume it. */
static bool
tally_line_eat(struct tline *s, char c)
{
	tally_line_ws(s);
	if (s->p < s->end && *s->p == c) {
		s->p++;
		return true;
	}
	return false;
}

static bool
tally_line_string(struct tline *s, const char **str, size_t *len)
{
	const char *q;

	tally_line_ws(s);
	if (s->p >= s->end || *s->p != '"')
		return false;
	q = ++s->p;
	for (;; s->p++) {
		unsigned c;
		if (s->p >= s->end)
			return false;
		/* A control byte or non-ASCII, then a quote or an escape. */
		if ((c = (unsigned char)*s->p) - 0x20u >= 0x60u)
			return false;
		if (c == '"')
			break;
		if (c == '\\')
			return false;
	}
	*str = q;
	*len = (size_t)(s->p++ - q);
	return true;
}

static const char *
tally_line_copy(struct tline *s, const char *str, size_t len)
{
	char *d = s->scratch;

	memcpy(d, str, len);
	d[len] = '\0';
	s->scratch += len + 1;
	return d;
}

static bool
tally_line_isdigit(const struct tline *s, const char *p)
{
	return p < s->end && *p >= '0' && *p <= '9';
}

/* A real of the text [start, end): exact by Clinger's fast path when the
 * digits fit in 53 bits and the power of ten is exact, else strtod.
 * false when it overflows (jansson refuses it) or strtod disagrees on the
 * text (a locale's decimal point). */
static bool
tally_line_real(const char *start, const char *end, uint64_t mant, bool exact,
    int e10, bool neg, double *x)
{
	static const double p10[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
	    1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
	    1e19, 1e20, 1e21, 1e22 };
	char buf[64], *stop;
	size_t n = (size_t)(end - start);

	if (exact && mant < (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22) {
		double m = (double)mant;
		*x = e10 < 0 ? m / p10[-e10] : m * p10[e10];
		*x = neg ? -*x : *x;
		return true;
	}
	if (n >= sizeof buf)
		return false;
	memcpy(buf, start, n);
	buf[n] = '\0';
	*x = strtod(buf, &stop);
	return stop == buf + n && !isinf(*x);
}

/* Digits into *mant while they fit (19 of them), counting those past
 * that in *lost (any but zeros: inexact) and, after the point, down *e10. */
static void
tally_line_digits(struct tline *s, uint64_t *mant, int *nd, bool *exact,
    int *e10, bool frac)
{
	for (; tally_line_isdigit(s, s->p); s->p++) {
		unsigned d = (unsigned)(*s->p - '0');
		if (*nd < 19) {
			*mant = *mant * 10 + d;
			*nd += *mant != 0;
			*e10 -= frac;
		} else {
			*exact = *exact && d == 0;
			*e10 += !frac;
		}
	}
}

/* A number by JSON's grammar, into v as jansson would read it. */
static bool
tally_line_number(struct tline *s, struct tval *v)
{
	const char *start = s->p;
	uint64_t mant = 0;
	int nd = 0, e10 = 0, ex = 0, exsign = 1;
	bool neg = false, exact = true, real = false;

	if (s->p < s->end && *s->p == '-') {
		neg = true;
		s->p++;
	}
	if (!tally_line_isdigit(s, s->p))
		return false;
	if (*s->p == '0')
		s->p++;
	else
		tally_line_digits(s, &mant, &nd, &exact, &e10, false);
	if (s->p < s->end && *s->p == '.') {
		real = true;
		if (!tally_line_isdigit(s, ++s->p))
			return false;
		tally_line_digits(s, &mant, &nd, &exact, &e10, true);
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		real = true;
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			exsign = *s->p++ == '-' ? -1 : 1;
		if (!tally_line_isdigit(s, s->p))
			return false;
		/* Past the cap the exponent is not known, and with enough
		 * leading zeros (0.000...1e1000005) a wrong one could still
		 * land in the fast path's range: strtod reads it. */
		for (; tally_line_isdigit(s, s->p); s->p++)
			if (ex < 100000)
				ex = ex * 10 + (*s->p - '0');
			else
				exact = false;
	}
	v->type = TV_NUMBER;
	v->is_int = !real;
	if (!real) {
		/* Past 18 digits jansson may find it too big: let it say. */
		if (nd > 18 || e10 != 0)
			return false;
		v->ival = neg ? -(long long)mant : (long long)mant;
		v->num = (double)v->ival;
		return true;
	}
	return tally_line_real(start, s->p, mant, exact, e10 + exsign * ex, neg,
	    &v->num);
}

static bool
tally_line_literal(struct tline *s, const char *word, enum tval_type type,
    struct tval *v)
{
	size_t n = strlen(word);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
		return false;
	s->p += n;
	v->type = type;
	return true;
}

/* An array or an object, checked and passed over; an array's length in
 * v->items. */
static bool
tally_line_skip(struct tline *s, int depth, struct tval *v)
{
	bool object = *s->p++ == '{';
	char close = object ? '}' : ']';
	struct tval item;
	const char *key;
	size_t len;

	v->type = object ? TV_OBJECT : TV_ARRAY;
	v->items = 0;
	if (tally_line_eat(s, close))
		return true;
	do {
		if (object && (!tally_line_string(s, &key, &len) ||
		    !tally_line_eat(s, ':')))
			return false;
		if (!tally_line_value(s, depth + 1, &item))
			return false;
		v->items++;
	} while (tally_line_eat(s, ','));
	return tally_line_eat(s, close);
}

static bool
tally_line_value(struct tline *s, int depth, struct tval *v)
{
	tally_line_ws(s);
	if (s->p >= s->end || depth > TLINE_DEPTH)
		return false;
	switch (*s->p) {
	case '"':
		v->type = TV_STRING;
		return tally_line_string(s, &v->str, &v->len);
	case '{':
	case '[':
		return tally_line_skip(s, depth, v);
	case 't':
		return tally_line_literal(s, "true", TV_TRUE, v);
	case 'f':
		return tally_line_literal(s, "false", TV_FALSE, v);
	case 'n':
		return tally_line_literal(s, "null", TV_NULL, v);
	default:
		return tally_line_number(s, v);
	}
}

static double
tally_line_num(const struct tval *v)
{
	return v->type == TV_NUMBER ? v->num : NAN;
}

static const char *
tally_line_str(struct tline *s, const struct tval *v)
{
	return v->type == TV_STRING ? tally_line_copy(s, v->str, v->len) : NULL;
}

/* An object of names and numbers ("counters", "metrics") into l; any other
 * value is passed over and l is not present. */
static bool
tally_line_kvs(struct tline *s, int depth, struct tally_kvlist *l)
{
	struct tval v;
	const char *key;
	size_t len;

	l->n = 0;
	l->present = false;
	tally_line_ws(s);
	if (s->p >= s->end || *s->p != '{')
		return tally_line_value(s, depth, &v);
	l->present = true;
	s->p++;
	if (tally_line_eat(s, '}'))
		return true;
	do {
		if (!tally_line_string(s, &key, &len) || !tally_line_eat(s, ':') ||
		    !tally_line_value(s, depth + 1, &v))
			return false;
		tally_kv_add(l, tally_line_copy(s, key, len), tally_line_num(&v));
	} while (tally_line_eat(s, ','));
	return tally_line_eat(s, '}');
}

/* The "server" block: its "cpu" and "counters". */
static bool
tally_line_server(struct tline *s, struct tally_legrec *r)
{
	struct tval v;
	const char *key;
	size_t len;

	r->server = false;
	r->server_cpu = NAN;
	r->server_ctr.n = 0;
	r->server_ctr.present = false;
	tally_line_ws(s);
	if (s->p >= s->end || *s->p != '{')
		return tally_line_value(s, 1, &v);
	r->server = true;
	s->p++;
	if (tally_line_eat(s, '}'))
		return true;
	do {
		if (!tally_line_string(s, &key, &len) || !tally_line_eat(s, ':'))
			return false;
		if (len == 8 && memcmp(key, "counters", 8) == 0) {
			if (!tally_line_kvs(s, 2, &r->server_ctr))
				return false;
		} else if (!tally_line_value(s, 2, &v))
			return false;
		else if (len == 3 && memcmp(key, "cpu", 3) == 0)
			r->server_cpu = tally_line_num(&v);
	} while (tally_line_eat(s, ','));
	return tally_line_eat(s, '}');
}

/* The top-level fields the record takes. */
enum tally_line_key {
	K_OTHER, K_T, K_CELL, K_ARM, K_REP, K_STATUS, K_TIMED_OUT, K_RC,
	K_SIGNAL, K_WARMUP, K_MULTIPLEXED, K_FOREIGN, K_THRESHOLD, K_MAXFC,
	K_GATE, K_QTIMEOUT, K_QOVERRIDE, K_WAIT, K_CLIENT_BUSY, K_SERVER_BUSY,
	K_WALL, K_CPU, K_CYCLES, K_INSTRUCTIONS, K_UTIME, K_STIME, K_BYTES,
	K_COUNTERS, K_SERVER, K_METRICS, K_HOST,
};

static enum tally_line_key
tally_line_key(const char *k, size_t n)
{
#define TLINE_KEY(s, id) { s, sizeof s - 1, id }
	static const struct {
		const char *name;
		size_t len;
		enum tally_line_key key;
	} keys[] = {
		TLINE_KEY("t", K_T), TLINE_KEY("cell", K_CELL),
		TLINE_KEY("arm", K_ARM), TLINE_KEY("rep", K_REP),
		TLINE_KEY("status", K_STATUS),
		TLINE_KEY("timed_out", K_TIMED_OUT), TLINE_KEY("rc", K_RC),
		TLINE_KEY("signal", K_SIGNAL), TLINE_KEY("warmup", K_WARMUP),
		TLINE_KEY("multiplexed", K_MULTIPLEXED),
		TLINE_KEY("foreign", K_FOREIGN),
		TLINE_KEY("threshold", K_THRESHOLD),
		TLINE_KEY("max_foreign_cores", K_MAXFC),
		TLINE_KEY("gate", K_GATE),
		TLINE_KEY("quiet_timeout", K_QTIMEOUT),
		TLINE_KEY("quiet_override", K_QOVERRIDE),
		TLINE_KEY("wait_s", K_WAIT),
		TLINE_KEY("client_busy", K_CLIENT_BUSY),
		TLINE_KEY("server_busy", K_SERVER_BUSY),
		TLINE_KEY("wall", K_WALL), TLINE_KEY("cpu", K_CPU),
		TLINE_KEY("cycles", K_CYCLES),
		TLINE_KEY("instructions", K_INSTRUCTIONS),
		TLINE_KEY("utime", K_UTIME), TLINE_KEY("stime", K_STIME),
		TLINE_KEY("bytes", K_BYTES),
		TLINE_KEY("counters", K_COUNTERS), TLINE_KEY("server", K_SERVER),
		TLINE_KEY("metrics", K_METRICS), TLINE_KEY("host", K_HOST),
	};
#undef TLINE_KEY

	/* About 25 keys a line, a million lines: compare lengths first. */
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (keys[i].len == n && keys[i].name[0] == k[0] &&
		    memcmp(keys[i].name, k, n) == 0)
			return keys[i].key;
	return K_OTHER;
}

/* A scalar field's value into r; each occurrence sets the field whole, so
 * a repeated key ends with its last value, as jansson reads it. */
static void
tally_line_set(struct tline *s, struct tally_legrec *r, struct tline_seen *seen,
    enum tally_line_key key, const struct tval *v)
{
	bool str = v->type == TV_STRING;

	switch (key) {
	case K_T:
		seen->t = str && v->len == 3 && memcmp(v->str, "leg", 3) == 0 ?
		    TLINE_T_LEG : TLINE_T_OTHER;
		break;
	case K_CELL:
		seen->cell = true;
		r->cell = tally_line_str(s, v);
		break;
	case K_ARM:
		seen->arm = true;
		r->arm = tally_line_str(s, v);
		break;
	case K_REP:
		seen->rep = true;
		r->rep = tally_line_num(v);
		break;
	case K_STATUS:
		r->status = tally_line_str(s, v);
		break;
	case K_HOST:
		r->host = tally_line_str(s, v);
		break;
	case K_TIMED_OUT:
		r->timed_out = v->type == TV_TRUE;
		break;
	case K_RC:
		r->rc_kind = v->type == TV_NUMBER && v->is_int ? TALLY_RC_INT :
		    TALLY_RC_OTHER;
		r->rc = r->rc_kind == TALLY_RC_INT ? v->ival : 0;
		break;
	case K_SIGNAL:
		r->signalled = str || (v->type == TV_NUMBER && v->is_int &&
		    v->ival != 0);
		break;
	case K_WARMUP:
		seen->warmup = true;
		break;
	case K_MULTIPLEXED:
		r->multiplexed = v->type == TV_TRUE ||
		    (v->type == TV_ARRAY && v->items > 0);
		break;
	case K_GATE:
		r->gate = tally_line_str(s, v);
		break;
	case K_QTIMEOUT:
		r->quiet_timeout = v->type == TV_TRUE;
		break;
	case K_QOVERRIDE:
		r->quiet_override = v->type == TV_TRUE;
		break;
	default:
		break;
	}
}

/* A number field's place in r, or NULL. */
static double *
tally_line_numfield(struct tally_legrec *r, enum tally_line_key key)
{
	switch (key) {
	case K_FOREIGN:      return &r->foreign;
	case K_THRESHOLD:    return &r->threshold;
	case K_MAXFC:        return &r->max_foreign_cores;
	case K_WAIT:         return &r->wait_s;
	case K_CLIENT_BUSY:  return &r->client_busy;
	case K_SERVER_BUSY:  return &r->server_busy;
	case K_WALL:         return &r->fixed[M_WALL];
	case K_CPU:          return &r->fixed[M_CPU];
	case K_CYCLES:       return &r->fixed[M_CYCLES];
	case K_INSTRUCTIONS: return &r->fixed[M_INSTRUCTIONS];
	case K_UTIME:        return &r->utime;
	case K_STIME:        return &r->stime;
	case K_BYTES:        return &r->bytes;
	default:             return NULL;
	}
}

/* One "key": value of the top-level object. */
static bool
tally_line_field(struct tline *s, struct tally_legrec *r, struct tline_seen *seen)
{
	const char *k;
	size_t n;
	enum tally_line_key key;
	struct tval v;
	double *x;

	if (!tally_line_string(s, &k, &n) || !tally_line_eat(s, ':'))
		return false;
	key = n ? tally_line_key(k, n) : K_OTHER;
	if (key == K_COUNTERS)
		return tally_line_kvs(s, 1, &r->ctr);
	if (key == K_METRICS)
		return tally_line_kvs(s, 1, &r->mets);
	if (key == K_SERVER)
		return tally_line_server(s, r);
	if (!tally_line_value(s, 1, &v))
		return false;
	if ((x = tally_line_numfield(r, key)) != NULL) {
		*x = tally_line_num(&v);
		if (x >= r->fixed && x < r->fixed + M_FIXED &&
		    v.type != TV_NUMBER && v.type != TV_NULL)
			r->badtype[x - r->fixed] = v.type == TV_STRING ?
			    "a string" : v.type == TV_ARRAY ? "an array" :
			    v.type == TV_OBJECT ? "an object" : "a boolean";
	} else
		tally_line_set(s, r, seen, key, &v);
	return true;
}

bool
tally_line_scan(const char *line, size_t len, struct tally_legrec *r,
    char **scratch, size_t *scap, bool *fed)
{
	struct tline s = { .p = line, .end = line + len };
	struct tline_seen seen = { .t = TLINE_T_ABSENT };

	/* A number's place and exponent counts are ints: a line long enough
	 * to overflow them (2 GiB of zeros) goes to jansson. */
	if (len > INT_MAX / 4)
		return false;
	/* Every string kept is at most its quotes' room in the line. */
	if (*scap < len + 1) {
		*scap = xgrow(*scap, len + 1, 1024);
		*scratch = xrealloc(*scratch, *scap);
	}
	s.scratch = *scratch;
	tally_rec_clear(r);
	if (!tally_line_eat(&s, '{') || tally_line_eat(&s, '}'))
		return false;
	do {
		if (!tally_line_field(&s, r, &seen))
			return false;
	} while (tally_line_eat(&s, ','));
	if (!tally_line_eat(&s, '}'))
		return false;
	tally_line_ws(&s);
	if (s.p != s.end)
		return false;
	if (seen.t == TLINE_T_OTHER || (seen.t == TLINE_T_ABSENT &&
	    !(seen.cell && seen.arm && seen.rep)))
		return false;
	*fed = !seen.warmup;
	return true;
}
