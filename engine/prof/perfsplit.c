/* One recording of several arms' runs split by run (see perfsplit.h). */
#include "perfsplit.h"

#include <stdlib.h>
#include <string.h>

#include "perfread.h"
#include "xalloc.h"

/* The run whose processes pid is of: the run it is (a leg's own process
 * is most of its samples), else the run whose range holds it, from its
 * pid up to the next run's (runs follow each other, so pids rise from
 * run to run; past a wrap of the kernel's pids the range runs to the
 * top), the one that started nearest below it; -1 for the runner's own
 * (self). */
static long
perfsplit_run(const long long *pids, size_t nruns, long long self,
    long long pid)
{
	if (pid == self)
		return -1;
	for (size_t r = 0; r < nruns; r++)
		if (pids[r] == pid)
			return (long)r;
	long best = -1;

	for (size_t r = 0; r < nruns; r++)
		if (pids[r] <= pid && (r + 1 == nruns || pids[r + 1] > pid ||
		    pids[r + 1] < pids[r]) && (best < 0 || pids[r] > pids[best]))
			best = (long)r;
	return best;
}

/* v[r] += n of a per-run vector in map under key (made with nruns 0s). */
static void
perfsplit_add(json_t *map, const char *key, size_t nruns, size_t r,
    long long n)
{
	json_t *v = json_object_get(map, key);

	if (v == NULL) {
		v = json_array();
		for (size_t i = 0; i < nruns; i++)
			json_array_append_new(v, json_integer(0));
		json_object_set_new(map, key, v);
	}
	json_array_set_new(v, r, json_integer(json_integer_value(
	    json_array_get(v, r)) + n));
}

/* The sum of a per-run vector. */
static long long
perfsplit_sum(const json_t *v)
{
	long long s = 0;
	const json_t *x;
	size_t i;

	json_array_foreach(v, i, x)
		s += json_integer_value(x);
	return s;
}

/* One arm's rows of prof (the rows whose run is the arm's), summed over
 * its runs, as perfread_parse's object with "runs" and "per_run". */
static json_t *
perfsplit_arm(const json_t *prof, const long long *pids, const int *arm,
    size_t nruns, long long self, int k)
{
	json_t *syms = json_object(), *callers = json_object(),
	    *nsamp = json_array(), *out = json_array(), *row, *v;
	const json_t *r, *c;
	size_t i, j, nk = 0, *idx = xcalloc(nruns + 1, sizeof *idx);
	long long total = 0, none = 0;
	char key[1400];
	const char *name;

	/* the arm's runs, numbered 0.. in their order */
	for (size_t q = 0; q < nruns; q++)
		idx[q] = arm[q] == k ? nk++ : (size_t)-1;
	for (size_t q = 0; q < nk; q++)
		json_array_append_new(nsamp, json_integer(0));
	json_array_foreach(json_object_get(prof, "symbols"), i, r) {
		long run = perfsplit_run(pids, nruns, self, json_integer_value(
		    json_object_get(r, "pid")));
		long long n = json_integer_value(json_object_get(r, "samples"));

		if (run < 0 || arm[run] != k)
			continue;
		snprintf(key, sizeof key, "%s\t%s", json_string_value(
		    json_object_get(r, "object")), json_string_value(
		    json_object_get(r, "symbol")));
		perfsplit_add(syms, key, nk, idx[run], n);
		json_array_set_new(nsamp, idx[run], json_integer(
		    json_integer_value(json_array_get(nsamp, idx[run])) + n));
		total += n;
		none += json_integer_value(json_object_get(r, "no_caller"));
		json_array_foreach(json_object_get(r, "callers"), j, c) {
			char ck[1700];

			snprintf(ck, sizeof ck, "%s\t%s", key, json_string_value(
			    json_object_get(c, "caller")));
			perfsplit_add(callers, ck, nk, idx[run], json_integer_value(
			    json_object_get(c, "samples")));
		}
	}
	/* the symbols with their summed callers, largest first */
	json_object_foreach(syms, name, v) {
		const char *tab = strchr(name, '\t');
		json_t *cl = json_object();
		const char *ck;
		json_t *cv;

		row = json_pack("{s:s,s:s%,s:I}", "symbol", tab + 1, "object",
		    name, (size_t)(tab - name), "samples",
		    (json_int_t)perfsplit_sum(v));
		json_object_foreach(callers, ck, cv)
			if (strncmp(ck, name, strlen(name)) == 0 &&
			    ck[strlen(name)] == '\t')
				json_object_set_new(cl, ck + strlen(name) + 1,
				    json_integer(perfsplit_sum(cv)));
		json_object_set_new(row, "callers", perfread_rank(cl, "caller"));
		json_decref(cl);
		json_array_append_new(out, row);
	}
	perfread_order(out);
	free(idx);
	return json_pack("{s:O,s:I,s:I,s:o,s:o,s:I,s:{s:o,s:o,s:o}}", "event",
	    json_object_get(prof, "event"), "samples", (json_int_t)total,
	    "no_caller", (json_int_t)none, "symbols", out, "objects",
	    json_array(), "runs", (json_int_t)nk, "per_run", "samples", nsamp,
	    "symbols", syms, "callers", callers);
}

json_t *
perfsplit(const json_t *prof, const json_t *list, long long self,
    size_t narms)
{
	size_t nruns = json_array_size(list), i;
	long long *pids = xcalloc(nruns + 1, sizeof *pids);
	int *arm = xcalloc(nruns + 1, sizeof *arm);
	json_t *out = json_array();
	const json_t *x;

	json_array_foreach(list, i, x) {
		pids[i] = json_integer_value(json_object_get(x, "pid"));
		arm[i] = (int)json_integer_value(json_object_get(x, "arm"));
	}
	for (size_t k = 0; k < narms; k++)
		json_array_append_new(out, perfsplit_arm(prof, pids, arm, nruns,
		    self, (int)k));
	free(pids);
	free(arm);
	return out;
}
