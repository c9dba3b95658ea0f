/* The checks on what a far side sends: each reply or event is read
 * through a table of the fields it may carry (their kind and range), and
 * only those fields, checked, are copied into the object the client
 * keeps.  A number out of its range (1e308, a negative wait) or of the
 * wrong kind is refused here, before any conversion: no value from the
 * far side reaches a cast unchecked. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quiet.h"
#include "remote_int.h"
#include "xalloc.h"

enum rc_kind {
	RC_NUM,        /* a finite number in [lo, hi] */
	RC_INT,        /* an integer in [lo, hi] */
	RC_BOOL,
	RC_TEXT,       /* a string, cut to REMOTE_TEXT_MAX, made printable */
	RC_WORD,       /* one of words */
	RC_SHA,        /* 64 lowercase hex digits */
};

struct rc_field {
	const char *key;
	enum rc_kind kind;
	bool need;     /* must be there */
	bool null;     /* may be null (kept as null) */
	double lo, hi;
	const char *const *words;
};

/* Counters and CPU seconds: wide, but never past what a double holds
 * exactly as an integer. */
#define RC_BIG 9007199254740992.0
/* Cores, slowdowns, seconds of a gate. */
#define RC_CORES 1e6
#define RC_SECONDS 1e9

json_t *
remote_text(const json_t *v, size_t max)
{
	const char *s = json_string_value(v);
	size_t n;
	char *c;
	json_t *out;

	if (s == NULL)
		return NULL;
	n = json_string_length(v);
	/* Cut at a character's start: what jansson read is UTF-8, and so
	 * is what is left of it. */
	if (n > max)
		for (n = max; n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80; n--)
			;
	c = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++)
		c[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	c[n] = '\0';
	out = json_stringn(c, n);
	free(c);
	return out != NULL ? out : json_string("?");
}

static bool
rc_sha(const char *s)
{
	if (s == NULL || strlen(s) != 64)
		return false;
	for (; *s != '\0'; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

/* One field's value, checked: a new reference, or NULL with why. */
static json_t *
rc_value(const struct rc_field *f, const json_t *v, char *why, size_t len)
{
	double x;

	if (json_is_null(v) && f->null)
		return json_null();
	switch (f->kind) {
	case RC_NUM:
	case RC_INT:
		if (f->kind == RC_INT ? !json_is_integer(v) : !json_is_number(v))
			break;
		x = json_number_value(v);
		if (!isfinite(x) || x < f->lo || x > f->hi) {
			snprintf(why, len, "%s: %g is out of range (%g to %g)",
			    f->key, x, f->lo, f->hi);
			return NULL;
		}
		return f->kind == RC_INT ? json_integer(json_integer_value(v)) :
		    json_real(x);
	case RC_BOOL:
		if (json_is_boolean(v))
			return json_boolean(json_is_true(v));
		break;
	case RC_TEXT:
		if (json_is_string(v))
			return remote_text(v, REMOTE_TEXT_MAX);
		break;
	case RC_WORD:
		for (size_t i = 0; json_is_string(v) && f->words[i] != NULL; i++)
			if (strcmp(json_string_value(v), f->words[i]) == 0)
				return json_string(f->words[i]);
		if (json_is_string(v)) {
			snprintf(why, len, "%s: not a word it may say", f->key);
			return NULL;
		}
		break;
	case RC_SHA:
		if (rc_sha(json_string_value(v)))
			return json_string(json_string_value(v));
		break;
	}
	snprintf(why, len, "%s: not %s", f->key, f->kind == RC_NUM ?
	    "a number" : f->kind == RC_INT ? "an integer" : f->kind == RC_BOOL ?
	    "true or false" : f->kind == RC_SHA ? "a sha256" : "a string");
	return NULL;
}

/* The fields of in, checked, into out.  0, or -1 with why. */
static int
rc_copy(const json_t *in, json_t *out, const struct rc_field *f, size_t n,
    char *why, size_t len)
{
	if (!json_is_object(in)) {
		snprintf(why, len, "not an object");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const json_t *v = json_object_get(in, f[i].key);
		json_t *c;

		if (v == NULL) {
			if (!f[i].need)
				continue;
			snprintf(why, len, "%s: missing", f[i].key);
			return -1;
		}
		if ((c = rc_value(&f[i], v, why, len)) == NULL)
			return -1;
		json_object_set_new(out, f[i].key, c);
	}
	return 0;
}

/* A new object of in's checked fields, or NULL with why. */
static json_t *
rc_build(const json_t *in, const struct rc_field *f, size_t n, char *why,
    size_t len)
{
	json_t *out = json_object();

	if (rc_copy(in, out, f, n, why, len) == 0)
		return out;
	json_decref(out);
	return NULL;
}

#define RC_N(a) (sizeof (a) / sizeof (a)[0])

json_t *
remote_check_event(const json_t *ev, double waited_max, char *why,
    size_t len)
{
	const struct rc_field f[] = {
		{ "foreign", RC_NUM, true, false, 0, RC_CORES, NULL },
		{ "threshold", RC_NUM, true, false, 0, RC_CORES, NULL },
		{ "ok", RC_BOOL, true, false, 0, 0, NULL },
		{ "waited_s", RC_NUM, true, false, 0, waited_max, NULL },
		{ "client_busy", RC_NUM, false, false, 0, RC_CORES, NULL },
		{ "max_client_busy", RC_NUM, false, false, 0, RC_SECONDS, NULL },
		{ "server_busy", RC_NUM, false, false, 0, RC_CORES, NULL },
		{ "max_server_busy", RC_NUM, false, false, 0, RC_CORES, NULL },
		{ "probe", RC_NUM, false, false, 0, RC_CORES, NULL },
		{ "probe_max", RC_NUM, false, false, 0, RC_CORES, NULL },
		{ "probe_gap_us", RC_NUM, false, false, 0, RC_SECONDS, NULL },
		{ "timeout_s", RC_NUM, true, false, 0, RC_SECONDS, NULL },
		{ "limit_s", RC_NUM, true, false, 0, RC_SECONDS, NULL },
		{ "budget_s", RC_NUM, true, false, 0, RC_SECONDS, NULL },
		{ "spent_s", RC_NUM, true, false, 0, RC_SECONDS, NULL },
		{ "timed_out", RC_BOOL, false, false, 0, 0, NULL },
		{ "override", RC_BOOL, false, false, 0, 0, NULL },
	};
	const char *t = json_string_value(json_object_get(ev, "t"));

	if (t == NULL || strcmp(t, "quiet") != 0) {
		snprintf(why, len, "an event of type %s (an agent sends only its "
		    "gate's \"quiet\" samples)", t != NULL ? "other than quiet" :
		    "none");
		return NULL;
	}
	return rc_build(ev, f, RC_N(f), why, len);
}

/* Any JSON a far side describes itself with (its host's facts), copied
 * within bounds: depth, members, text; numbers finite.  NULL with why. */
static json_t *
rc_facts(const json_t *v, int depth, char *why, size_t len)
{
	const char *k;
	json_t *out, *m, *c;
	size_t i;

	if (depth > 4) {
		snprintf(why, len, "host: nested deeper than 4");
		return NULL;
	}
	if (json_is_string(v))
		return remote_text(v, REMOTE_TEXT_MAX);
	if (json_is_real(v))
		return isfinite(json_real_value(v)) ? json_real(json_real_value(
		    v)) : json_null();
	if (!json_is_object(v) && !json_is_array(v))
		return json_deep_copy(v); /* integers, booleans, null */
	if ((json_is_object(v) ? json_object_size(v) : json_array_size(v)) >
	    256) {
		snprintf(why, len, "host: more than 256 members");
		return NULL;
	}
	out = json_is_object(v) ? json_object() : json_array();
	if (json_is_array(v)) {
		json_array_foreach(v, i, m) {
			if ((c = rc_facts(m, depth + 1, why, len)) == NULL)
				goto bad;
			json_array_append_new(out, c);
		}
		return out;
	}
	json_object_foreach((json_t *)v, k, m) {
		if (strlen(k) > 64) {
			snprintf(why, len, "host: a key longer than 64 bytes");
			goto bad;
		}
		if ((c = rc_facts(m, depth + 1, why, len)) == NULL)
			goto bad;
		json_object_set_new(out, k, c);
	}
	return out;
bad:
	json_decref(out);
	return NULL;
}

/* hello's quiet: false, or the settings the far gate runs with. */
static json_t *
rc_hello_quiet(const json_t *q, char *why, size_t len)
{
	const struct rc_field f[] = {
		{ "max_foreign_cores", RC_NUM, true, false, 0, RC_CORES, NULL },
		{ "window_ms", RC_INT, true, false, 0, RC_SECONDS, NULL },
		{ "timeout_s", RC_NUM, true, false, 0, RC_SECONDS, NULL },
		/* QUIET_BUDGET_SCALED: the default budget, which grows with
		 * the legs' time. */
		{ "budget_s", RC_NUM, true, false, QUIET_BUDGET_SCALED,
		    RC_SECONDS, NULL },
		{ "max_server_busy", RC_NUM, true, false, 0, RC_CORES, NULL },
		{ "probe", RC_BOOL, true, false, 0, 0, NULL },
		{ "probe_margin", RC_NUM, true, false, 0, RC_CORES, NULL },
		{ "probe_off", RC_TEXT, false, false, 0, 0, NULL },
	};
	json_t *out;
	double budget;

	if (json_is_false(q))
		return json_false();
	if ((out = rc_build(q, f, RC_N(f), why, len)) == NULL) {
		char sub[256];

		snprintf(sub, sizeof sub, "quiet.%s", why);
		snprintf(why, len, "%s", sub);
		return NULL;
	}
	budget = json_number_value(json_object_get(out, "budget_s"));
	if (budget < 0 && budget != QUIET_BUDGET_SCALED) {
		snprintf(why, len, "quiet.budget_s: %g is neither %g (the "
		    "default, which grows with the legs) nor 0 or more",
		    budget, QUIET_BUDGET_SCALED);
		json_decref(out);
		return NULL;
	}
	return out;
}

json_t *
remote_check_hello(const json_t *r, char *why, size_t len)
{
	const struct rc_field f[] = {
		{ "version", RC_TEXT, true, false, 0, 0, NULL },
		{ "protocol", RC_INT, false, false, 1, 1e6, NULL },
		{ "pid", RC_INT, true, false, 1, 2147483647.0, NULL },
		{ "dir", RC_TEXT, true, false, 0, 0, NULL },
	};
	json_t *out = rc_build(r, f, RC_N(f), why, len), *c;

	if (out == NULL)
		return NULL;
	if (!json_is_object(json_object_get(r, "host"))) {
		snprintf(why, len, "host: not an object");
		goto bad;
	}
	if ((c = rc_facts(json_object_get(r, "host"), 0, why, len)) == NULL)
		goto bad;
	json_object_set_new(out, "host", c);
	if ((c = rc_hello_quiet(json_object_get(r, "quiet"), why, len)) ==
	    NULL)
		goto bad;
	json_object_set_new(out, "quiet", c);
	return out;
bad:
	json_decref(out);
	return NULL;
}

json_t *
remote_check_bins(const json_t *bins, const json_t *programs, char *why,
    size_t len)
{
	json_t *out = json_object(), *v;
	const char *k;

	/* The keys are the programs as that host resolves them (a path),
	 * one for each asked at most. */
	if (!json_is_object(bins) || json_object_size(bins) >
	    json_array_size(programs)) {
		snprintf(why, len, "bins: not an object of at most one program "
		    "for each asked about");
		goto bad;
	}
	json_object_foreach((json_t *)bins, k, v) {
		bool plain = strlen(k) <= REMOTE_TEXT_MAX;

		for (const char *c = k; *c != '\0' && plain; c++)
			plain = (unsigned char)*c >= 0x20 && *c != 0x7f;
		if (!plain) {
			snprintf(why, len, "bins: a program's name that is not a "
			    "plain path");
			goto bad;
		}
		if (!json_is_null(v) && !rc_sha(json_string_value(v))) {
			snprintf(why, len, "bins: a value neither a sha256 nor "
			    "null");
			goto bad;
		}
		json_object_set_new(out, k, json_deep_copy(v));
	}
	return out;
bad:
	json_decref(out);
	return NULL;
}

json_t *
remote_check_start(const json_t *r, char *why, size_t len)
{
	const struct rc_field f[] = {
		{ "pid", RC_INT, true, false, 1, 2147483647.0, NULL },
		{ "exec", RC_TEXT, true, false, 0, 0, NULL },
		{ "sha256", RC_SHA, true, true, 0, 0, NULL },
		{ "log", RC_TEXT, true, false, 0, 0, NULL },
	};
	json_t *out = rc_build(r, f, RC_N(f), why, len), *w, *v;
	const json_t *warn = json_object_get(r, "warnings");
	size_t i;

	if (out == NULL)
		return NULL;
	w = json_array();
	json_object_set_new(out, "warnings", w);
	if (warn == NULL)
		return out;
	if (!json_is_array(warn) || json_array_size(warn) > 16) {
		snprintf(why, len, "warnings: not an array of at most 16");
		json_decref(out);
		return NULL;
	}
	json_array_foreach(warn, i, v) {
		json_t *t = remote_text(v, REMOTE_TEXT_MAX);

		if (t == NULL) {
			snprintf(why, len, "warnings[%zu]: not a string", i);
			json_decref(out);
			return NULL;
		}
		json_array_append_new(w, t);
	}
	return out;
}

json_t *
remote_check_open(const json_t *r, double waited_max, char *why,
    size_t len)
{
	static const char *const gates[] = { "quiet", "timeout", "budget",
	    "released", "off", NULL };
	const struct rc_field f[] = {
		{ "gate", RC_WORD, true, false, 0, 0, gates },
		{ "wait_s", RC_NUM, true, false, 0, waited_max, NULL },
		{ "foreign", RC_NUM, true, false, 0, RC_CORES, NULL },
		{ "server_busy", RC_NUM, true, true, 0, RC_CORES, NULL },
		{ "probe", RC_NUM, true, true, 0, RC_CORES, NULL },
		{ "probe_us", RC_NUM, true, true, 0, RC_SECONDS, NULL },
		{ "alive", RC_BOOL, true, false, 0, 0, NULL },
		{ "death", RC_TEXT, false, false, 0, 0, NULL },
	};

	return rc_build(r, f, RC_N(f), why, len);
}

/* close's server block: the tree's reading, its counters those asked. */
static json_t *
rc_server_block(const json_t *b, char *const *names, char *why, size_t len)
{
	static const char *const sources[] = { "cgroup", "proc", NULL };
	const struct rc_field f[] = {
		{ "pid", RC_INT, true, false, 1, 2147483647.0, NULL },
		{ "tasks", RC_INT, true, false, 0, 1e7, NULL },
		{ "tasks_counted", RC_INT, false, false, 0, 1e7, NULL },
		{ "cpu_source", RC_WORD, true, false, 0, 0, sources },
		{ "utime", RC_NUM, true, true, 0, RC_SECONDS, NULL },
		{ "stime", RC_NUM, true, true, 0, RC_SECONDS, NULL },
		{ "cpu", RC_NUM, true, true, 0, RC_SECONDS, NULL },
		{ "cycles", RC_INT, true, true, 0, RC_BIG, NULL },
		{ "instructions", RC_INT, true, true, 0, RC_BIG, NULL },
	};
	const struct rc_field cf = { "counters", RC_INT, true, true, 0, RC_BIG,
	    NULL };
	json_t *out = rc_build(b, f, RC_N(f), why, len), *ctr, *c;
	const json_t *in = json_object_get(b, "counters");
	size_t n = 0;

	if (out == NULL)
		return NULL;
	if (!json_is_object(in)) {
		snprintf(why, len, "counters: not an object");
		goto bad;
	}
	ctr = json_object();
	json_object_set_new(out, "counters", ctr);
	for (size_t i = 0; names != NULL && names[i] != NULL; i++) {
		const json_t *v = json_object_get(in, names[i]);

		if (v == NULL)
			continue;
		n++;
		if ((c = rc_value(&cf, v, why, len)) == NULL)
			goto bad;
		json_object_set_new(ctr, names[i], c);
	}
	if (n != json_object_size(in)) {
		snprintf(why, len, "counters: one that was not asked for");
		goto bad;
	}
	return out;
bad:
	json_decref(out);
	return NULL;
}

json_t *
remote_check_close(const json_t *r, char *const *names, char *why,
    size_t len)
{
	const struct rc_field f[] = {
		{ "foreign", RC_NUM, true, true, 0, RC_CORES, NULL },
		{ "server_busy", RC_NUM, true, true, 0, RC_CORES, NULL },
		{ "alive", RC_BOOL, true, false, 0, 0, NULL },
		{ "death", RC_TEXT, false, false, 0, 0, NULL },
	};
	json_t *out = rc_build(r, f, RC_N(f), why, len), *b;
	char sub[256];

	if (out == NULL)
		return NULL;
	if ((b = rc_server_block(json_object_get(r, "server"), names, sub,
	    sizeof sub)) == NULL) {
		snprintf(why, len, "server.%s", sub);
		json_decref(out);
		return NULL;
	}
	json_object_set_new(out, "server", b);
	return out;
}

json_t *
remote_check_stop(const json_t *r, char *why, size_t len)
{
	static const char *const states[] = { "stopped", "died", NULL };
	const struct rc_field f[] = {
		{ "state", RC_WORD, true, false, 0, 0, states },
		{ "pid", RC_INT, true, false, 1, 2147483647.0, NULL },
		{ "death", RC_TEXT, false, false, 0, 0, NULL },
	};

	return rc_build(r, f, RC_N(f), why, len);
}

json_t *
remote_check_leg(const json_t *r, double waited_max, char *const *names,
    long long max_bytes, char *why, size_t len)
{
	static const char *const gates[] = { "quiet", "timeout", "budget",
	    "released", "off", NULL };
	const struct rc_field f[] = {
		{ "pid", RC_INT, true, false, 1, 2147483647.0, NULL },
		{ "rc", RC_INT, true, false, -1, 255, NULL },
		{ "signal", RC_INT, true, false, 0, 128, NULL },
		{ "timed_out", RC_BOOL, true, false, 0, 0, NULL },
		{ "aborted", RC_BOOL, true, false, 0, 0, NULL },
		{ "exec_errno", RC_INT, true, false, 0, 4095, NULL },
		{ "exec_step", RC_INT, true, false, 0, 64, NULL },
		{ "wall", RC_NUM, true, false, 0, waited_max, NULL },
		{ "utime", RC_NUM, true, false, 0, RC_SECONDS, NULL },
		{ "stime", RC_NUM, true, false, 0, RC_SECONDS, NULL },
		{ "maxrss_kb", RC_INT, true, false, 0, RC_BIG, NULL },
		{ "minflt", RC_INT, true, false, 0, RC_BIG, NULL },
		{ "majflt", RC_INT, true, false, 0, RC_BIG, NULL },
		{ "mem_peak_kb", RC_INT, true, true, 0, RC_BIG, NULL },
		{ "strays", RC_INT, true, false, 0, 1e7, NULL },
		{ "output_bytes", RC_INT, true, false, 0, (double)max_bytes,
		    NULL },
		{ "output_truncated", RC_BOOL, true, false, 0, 0, NULL },
		{ "exec", RC_TEXT, true, false, 0, 0, NULL },
		{ "gate", RC_WORD, true, false, 0, 0, gates },
		{ "wait_s", RC_NUM, true, false, 0, waited_max, NULL },
		{ "probe", RC_NUM, true, true, 0, RC_CORES, NULL },
		{ "probe_us", RC_NUM, true, true, 0, RC_SECONDS, NULL },
		{ "foreign", RC_NUM, true, true, 0, RC_CORES, NULL },
		/* the round's prepare ran there first: its exit */
		{ "prepare_rc", RC_INT, false, false, 0, 255, NULL },
		/* the bytes in its scratch folder there after it */
		{ "scratch_bytes", RC_INT, false, true, 0, RC_BIG, NULL },
	};
	const struct rc_field cf = { "counters", RC_INT, true, true, 0, RC_BIG,
	    NULL };
	json_t *out = rc_build(r, f, RC_N(f), why, len), *ctr, *mux, *c, *v;
	const json_t *in = json_object_get(r, "counters"),
	    *min = json_object_get(r, "multiplexed");
	size_t n = 0, i;

	if (out == NULL)
		return NULL;
	if (!json_is_object(in) || !json_is_array(min)) {
		snprintf(why, len, "counters or multiplexed: not an object and "
		    "an array");
		goto bad;
	}
	ctr = json_object();
	json_object_set_new(out, "counters", ctr);
	mux = json_array();
	json_object_set_new(out, "multiplexed", mux);
	for (size_t k = 0; names != NULL && names[k] != NULL; k++) {
		if ((v = json_object_get(in, names[k])) == NULL)
			continue;
		n++;
		if ((c = rc_value(&cf, v, why, len)) == NULL)
			goto bad;
		json_object_set_new(ctr, names[k], c);
	}
	if (n != json_object_size(in)) {
		snprintf(why, len, "counters: one that was not asked for");
		goto bad;
	}
	json_array_foreach(min, i, v) {
		if (!json_is_string(v) || json_object_get(ctr,
		    json_string_value(v)) == NULL) {
			snprintf(why, len, "multiplexed[%zu]: not a counter asked "
			    "for", i);
			goto bad;
		}
		json_array_append_new(mux, json_string(json_string_value(v)));
	}
	return out;
bad:
	json_decref(out);
	return NULL;
}

json_t *
remote_check_prof_start(const json_t *r, char *why, size_t len)
{
	static const char *const unwinds[] = { "dwarf", "fp", "lbr", NULL };
	const struct rc_field f[] = {
		{ "processes", RC_INT, true, false, 1, 1e6, NULL },
		{ "tasks", RC_INT, true, false, 0, 1e7, NULL },
		{ "pids", RC_TEXT, true, false, 0, 0, NULL },
		{ "unwind", RC_WORD, false, false, 0, 0, unwinds },
		{ "fallback", RC_BOOL, false, false, 0, 0, NULL },
	};

	return rc_build(r, f, RC_N(f), why, len);
}

json_t *
remote_check_prof_stop(const json_t *r, char *why, size_t len)
{
	const struct rc_field f[] = {
		{ "stopped", RC_BOOL, true, false, 0, 0, NULL },
		{ "alive", RC_BOOL, true, false, 0, 0, NULL },
		{ "death", RC_TEXT, false, false, 0, 0, NULL },
		{ "traced_after", RC_INT, true, false, 0, 1e7, NULL },
		{ "contaminated", RC_BOOL, true, false, 0, 0, NULL },
	};

	return rc_build(r, f, RC_N(f), why, len);
}

json_t *
remote_check_prof_legs(const json_t *r, char *why, size_t len)
{
	static const char *const unwinds[] = { "dwarf", "fp", "lbr", NULL };
	const struct rc_field f[] = {
		{ "rc", RC_INT, true, false, -1, 255, NULL },
		{ "signal", RC_INT, true, false, 0, 128, NULL },
		{ "timed_out", RC_BOOL, true, false, 0, 0, NULL },
		{ "aborted", RC_BOOL, true, false, 0, 0, NULL },
		{ "wall", RC_NUM, true, false, 0, 1e7, NULL },
		{ "unwind", RC_WORD, true, false, 0, 0, unwinds },
		{ "fallback", RC_BOOL, true, false, 0, 0, NULL },
	};

	return rc_build(r, f, RC_N(f), why, len);
}

json_t *
remote_check_prof_report(const json_t *r, char *why, size_t len)
{
	const struct rc_field f[] = {
		{ "rc", RC_INT, true, false, -2, 255, NULL },
	};

	return rc_build(r, f, RC_N(f), why, len);
}
