/* Intervals with the run as the unit (see profdiff_runs.h). */
#include "profdiff_runs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

bool
profdiff_runs_has(const json_t *ev)
{
	return json_array_size(json_object_get(json_object_get(ev, "per_run"),
	    "samples")) > 0;
}

bool
profdiff_runs_share(const json_t *ev, const char *map, const char *key,
    struct profdiff_share *s)
{
	const json_t *pr = json_object_get(ev, "per_run"),
	    *n = json_object_get(pr, "samples"),
	    *k = json_object_get(json_object_get(pr, map), key);
	double ss = 0;
	size_t r = json_array_size(n);

	memset(s, 0, sizeof *s);
	if (r == 0)
		return false;
	s->runs = (int)r;
	for (size_t i = 0; i < r; i++) {
		s->n += json_integer_value(json_array_get(n, i));
		s->k += json_integer_value(json_array_get(k, i));
	}
	s->p = s->n > 0 ? (double)s->k / (double)s->n : 0;
	for (size_t i = 0; i < r && s->n > 0; i++) {
		double e = (double)json_integer_value(json_array_get(k, i)) -
		    s->p * (double)json_integer_value(json_array_get(n, i));

		ss += e * e;
	}
	s->var = r > 1 && s->n > 0 ? (double)r / (double)(r - 1) * ss /
	    ((double)s->n * (double)s->n) : 0;
	/* Never narrower than samples taken independently: perf's clock
	 * samples each run at a fixed period, so a rare symbol's counts
	 * vary less between runs than they would by chance, and the runs'
	 * spread alone marked 12% of an A/A pair's symbols above 0.5% moved
	 * (bench/prof_aa.py, 11 rounds). */
	if (s->n > 0 && s->var < s->p * (1 - s->p) / (double)s->n)
		s->var = s->p * (1 - s->p) / (double)s->n;
	return true;
}

double
profdiff_runs_t(int df)
{
	/* t(0.975, df) for df 1..30; beyond, the Cornish-Fisher series */
	static const double tab[] = { 12.7062, 4.3027, 3.1824, 2.7764, 2.5706,
	    2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010, 2.1788, 2.1604,
	    2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796,
	    2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452,
	    2.0423 };
	const double z = 1.959963984540054, v = df;

	if (df < 1)
		return INFINITY;
	if (df <= 30)
		return tab[df - 1];
	return z + (z * z * z + z) / (4 * v) + (5 * pow(z, 5) + 16 * z * z * z +
	    3 * z) / (96 * v * v);
}

void
profdiff_runs_ci(const struct profdiff_share *s, double *lo, double *hi)
{
	double h = profdiff_runs_t(s->runs - 1) * sqrt(s->var);

	*lo = fmax(0, s->p - h);
	*hi = fmin(1, s->p + h);
}

void
profdiff_runs_diff(const struct profdiff_share *a,
    const struct profdiff_share *b, double *lo, double *hi)
{
	int df = (a->runs < b->runs ? a->runs : b->runs) - 1;
	double h = profdiff_runs_t(df) * sqrt(a->var + b->var);

	*lo = a->p - b->p - h;
	*hi = a->p - b->p + h;
}

/* The mean and variance of the mean of key's per-run counts in ev (a
 * key it lacks: 0 every run); the runs in *r. */
static void
profdiff_runs_mean(const json_t *ev, const char *key, double *mean,
    double *var, int *r)
{
	const json_t *pr = json_object_get(ev, "per_run"),
	    *k = json_object_get(json_object_get(pr, "callers"), key);
	size_t n = json_array_size(json_object_get(pr, "samples"));
	double sum = 0, ss = 0;

	*r = (int)n;
	for (size_t i = 0; i < n; i++)
		sum += (double)json_integer_value(json_array_get(k, i));
	*mean = n > 0 ? sum / (double)n : 0;
	for (size_t i = 0; i < n; i++) {
		double e = (double)json_integer_value(json_array_get(k, i)) -
		    *mean;

		ss += e * e;
	}
	*var = n > 1 ? ss / (double)(n - 1) / (double)n : 0;
	/* never below a count's own chance (Poisson: its mean), as for the
	 * shares (profdiff_runs_share) */
	if (n > 0 && *var < *mean / (double)n)
		*var = *mean / (double)n;
}

static json_t *
profdiff_runs_real(double x)
{
	return isfinite(x) ? json_real(round(x * 1000) / 1000) : json_null();
}

/* Whether the caller moved: its samples per run (its time in the symbol
 * per run: the sampling rate is one for both arms) in each arm, their
 * difference and its interval, t(min(Ra, Rb) - 1) times the root of the
 * two means' variances.  A caller moved when its share and its time per
 * run both did (r's "noise" holds the share's verdict): a caller's share
 * of all samples moves whenever anything else does (one that copies what
 * it did has a smaller share of a larger whole), and its time per run
 * moves with what the other caller did to the cache. */
static void
profdiff_runs_moved(json_t *r, const json_t *a, const json_t *b,
    const char *key)
{
	double ma, va, mb, vb, h;
	int ra, rb;

	profdiff_runs_mean(a, key, &ma, &va, &ra);
	profdiff_runs_mean(b, key, &mb, &vb, &rb);
	h = profdiff_runs_t((ra < rb ? ra : rb) - 1) * sqrt(va + vb);
	json_object_set_new(r, "per_run", profdiff_runs_real(ma));
	json_object_set_new(r, "vs_per_run", profdiff_runs_real(mb));
	json_object_set_new(r, "per_run_diff", profdiff_runs_real(ma - mb));
	json_object_set_new(r, "per_run_diff_ci", json_pack("[o,o]",
	    profdiff_runs_real(ma - mb - h), profdiff_runs_real(ma - mb + h)));
	/* moved: its share and its time per run both moved */
	json_object_set_new(r, "noise", json_boolean((ma - mb - h <= 0 &&
	    ma - mb + h >= 0) || json_is_true(json_object_get(r, "noise"))));
}

/* The callers named under prefix in an event's per-run map, into set. */
static void
profdiff_runs_names(const json_t *ev, const char *prefix, json_t *set)
{
	const char *key;
	json_t *v;
	size_t n = strlen(prefix);

	json_object_foreach(json_object_get(json_object_get(ev, "per_run"),
	    "callers"), key, v)
		if (strncmp(key, prefix, n) == 0)
			json_object_set_new(set, key + n, json_true());
}

static int
profdiff_runs_cmp(const void *pa, const void *pb)
{
	const json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
	double x = fabs(json_number_value(json_object_get(a, "diff"))),
	    y = fabs(json_number_value(json_object_get(b, "diff")));
	bool na = json_is_true(json_object_get(a, "noise")),
	    nb = json_is_true(json_object_get(b, "noise"));

	/* real callers before what perf could not name ("(none: the
	 * chain ends here)", "(an address without a symbol)"), the callers
	 * that moved first, largest move first */
	const char *ca = json_string_value(json_object_get(a, "caller")),
	    *cb = json_string_value(json_object_get(b, "caller"));

	if ((ca[0] == '(') != (cb[0] == '('))
		return ca[0] == '(' ? 1 : -1;
	if (na != nb)
		return na ? 1 : -1;
	if (x != y)
		return x < y ? 1 : -1;
	return strcmp(json_string_value(json_object_get(a, "caller")),
	    json_string_value(json_object_get(b, "caller")));
}

json_t *
profdiff_runs_callers(const json_t *a, const json_t *b, const char *key)
{
	json_t *set = json_object(), *v, *out = json_array(), **rows;
	char prefix[1400], ck[1800];
	const char *name;
	size_t n = 0;

	snprintf(prefix, sizeof prefix, "%s\t", key);
	profdiff_runs_names(a, prefix, set);
	profdiff_runs_names(b, prefix, set);
	rows = xcalloc(json_object_size(set) + 1, sizeof *rows);
	json_object_foreach(set, name, v) {
		struct profdiff_share sa, sb;
		double lo, hi;
		json_t *r;

		snprintf(ck, sizeof ck, "%s%s", prefix, name);
		profdiff_runs_share(a, "callers", ck, &sa);
		profdiff_runs_share(b, "callers", ck, &sb);
		r = json_pack("{s:s,s:I,s:o,s:I,s:o,s:o}", "caller", name,
		    "samples", (json_int_t)sa.k, "share", profdiff_runs_real(100 *
		    sa.p), "vs_samples", (json_int_t)sb.k, "vs_share",
		    profdiff_runs_real(100 * sb.p), "diff", profdiff_runs_real(
		    100 * (sa.p - sb.p)));
		profdiff_runs_ci(&sa, &lo, &hi);
		json_object_set_new(r, "ci", json_pack("[o,o]",
		    profdiff_runs_real(100 * lo), profdiff_runs_real(100 * hi)));
		profdiff_runs_ci(&sb, &lo, &hi);
		json_object_set_new(r, "vs_ci", json_pack("[o,o]",
		    profdiff_runs_real(100 * lo), profdiff_runs_real(100 * hi)));
		profdiff_runs_diff(&sa, &sb, &lo, &hi);
		json_object_set_new(r, "diff_ci", json_pack("[o,o]",
		    profdiff_runs_real(100 * lo), profdiff_runs_real(100 * hi)));
		json_object_set_new(r, "noise", json_boolean(lo <= 0 && hi >= 0));
		profdiff_runs_moved(r, a, b, ck);
		rows[n++] = r;
	}
	qsort(rows, n, sizeof *rows, profdiff_runs_cmp);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(out, rows[i]);
	free(rows);
	json_decref(set);
	return out;
}
