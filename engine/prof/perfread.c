/* perf report's flat profile and call chains read back (see perfread.h). */
#include "perfread.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "profdiff.h"
#include "xalloc.h"

/* Trim spaces at both ends, in place. */
static char *
perfread_trim(char *s)
{
	char *e;

	while (*s == ' ')
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* "0x000000000004ff3f" (perf's name for code without a symbol): true,
 * with the offset without its leading zeros in off. */
static bool
perfread_address(const char *sym, char *off, size_t len)
{
	const char *h = sym + 2;

	if (strncmp(sym, "0x", 2) != 0 || h[0] == '\0' ||
	    strspn(h, "0123456789abcdef") != strlen(h))
		return false;
	while (h[0] == '0' && h[1] != '\0')
		h++;
	snprintf(off, len, "0x%s", h);
	return true;
}

/* The object's short name: the last part of a path, as perf shows it. */
static const char *
perfread_base(const char *dso)
{
	const char *sl = strrchr(dso, '/');

	return sl != NULL && sl[1] != '\0' ? sl + 1 : dso;
}

/* What the parse keeps while it reads. */
struct perfread_acc {
	json_t *prof, *symbols, *objects; /* objects: NAME -> samples */
	json_t *cur;                      /* the row chains belong to */
	json_t *callers;                  /* cur's: NAME -> samples */
	long long total, no_caller;
	bool rows_seen;
};

/* A row "  47.66% \t 51 \t hot \t [.] prof_base". */
static void
perfread_row(struct perfread_acc *a, char *line)
{
	char *f[6], *save = NULL, *tok, *sym, off[40], name[1024];
	int nf = 0;
	long long n;

	long long pid = -1;

	for (tok = strtok_r(line, "\t", &save); tok != NULL && nf < 6;
	    tok = strtok_r(NULL, "\t", &save))
		f[nf++] = perfread_trim(tok);
	if (nf < 4)
		return;
	n = strtoll(f[1], NULL, 10);
	/* --sort pid,dso,sym: "4708:prof-hot" before the object */
	if (nf >= 5 && isdigit((unsigned char)f[2][0]) &&
	    f[2][strspn(f[2], "0123456789")] == ':') {
		pid = strtoll(f[2], NULL, 10);
		f[2] = f[3];
		f[3] = f[4];
	}
	sym = f[3];
	/* "[.] " user space, "[k] " kernel, "[g] " guest, ... */
	if (sym[0] == '[' && sym[1] != '\0' && sym[2] == ']' && sym[3] == ' ')
		sym = perfread_trim(sym + 4);
	if (perfread_address(sym, off, sizeof off)) {
		char obj[300];
		json_t *o;

		snprintf(name, sizeof name, "%s+%s", perfread_base(f[2]), off);
		snprintf(obj, sizeof obj, f[2][0] == '[' ? "%s" : "[%s]",
		    perfread_base(f[2]));
		o = json_object_get(a->objects, obj);
		json_object_set_new(a->objects, obj, json_integer(n +
		    (o != NULL ? json_integer_value(o) : 0)));
	} else {
		snprintf(name, sizeof name, "%s", sym);
	}
	a->cur = json_pack("{s:s,s:s,s:I}", "symbol", name, "object",
	    perfread_base(f[2]), "samples", (json_int_t)n);
	if (pid >= 0)
		json_object_set_new(a->cur, "pid", json_integer(pid));
	json_array_append_new(a->symbols, a->cur);
	a->callers = json_object();
	json_object_set_new(a->cur, "callers", a->callers);
	a->total += n;
	a->rows_seen = true;
}

/* A chain "51 prof_hot_extra\tprof_caller\tmain": its count goes to its
 * second frame, the caller (callee order: the symbol comes first). */
static void
perfread_chain(struct perfread_acc *a, char *line)
{
	char *e, *caller;
	long long n = strtoll(line, &e, 10);
	json_t *c;

	if (a->callers == NULL || *e != ' ')
		return;
	if ((caller = strchr(e + 1, '\t')) != NULL) {
		caller++;
		caller[strcspn(caller, "\t")] = '\0';
		/* a return address perf could not name (code without symbols
		 * or frame pointers: often not a return address at all) */
		if (strcmp(caller, "0") == 0 || (strncmp(caller, "0x", 2) == 0 &&
		    strspn(caller + 2, "0123456789abcdef") == strlen(caller + 2)))
			caller = "(an address without a symbol)";
	} else {
		caller = PERFREAD_NO_CALLER;
		a->no_caller += n;
		json_object_set_new(a->cur, "no_caller", json_integer(n +
		    json_integer_value(json_object_get(a->cur, "no_caller"))));
	}
	c = json_object_get(a->callers, caller);
	json_object_set_new(a->callers, caller, json_integer(n +
	    (c != NULL ? json_integer_value(c) : 0)));
}

static int
perfread_cmp(const void *pa, const void *pb)
{
	json_int_t a = json_integer_value(json_object_get(*(json_t *const *)pa,
	    "samples")), b = json_integer_value(json_object_get(
	    *(json_t *const *)pb, "samples"));

	return a < b ? 1 : a > b ? -1 : 0;
}

/* An array of objects sorted in place by "samples", largest first (perf
 * sorts by period, which differs from the count where the period
 * varies: cycles at a frequency). */
void
perfread_order(json_t *arr)
{
	size_t n = json_array_size(arr);
	json_t **v = xcalloc(n + 1, sizeof *v);

	for (size_t i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(arr, i));
	qsort(v, n, sizeof *v, perfread_cmp);
	json_array_clear(arr);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, v[i]);
	free(v);
}

static json_t *perfread_sorted(json_t *byname, const char *key,
    size_t max);

json_t *
perfread_rank(json_t *byname, const char *key)
{
	return perfread_sorted(byname, key, 0);
}

/* NAME -> samples as [{key: NAME, "samples"}], largest first, at most max
 * (0: all).  New reference. */
static json_t *
perfread_sorted(json_t *byname, const char *key, size_t max)
{
	size_t n = json_object_size(byname), k = 0;
	json_t **v = xcalloc(n + 1, sizeof *v), *out = json_array(), *x;
	const char *name;

	json_object_foreach(byname, name, x)
		v[k++] = json_pack("{s:s,s:O}", key, name, "samples", x);
	qsort(v, k, sizeof *v, perfread_cmp);
	for (size_t i = 0; i < k; i++) {
		if (max == 0 || i < max)
			json_array_append(out, v[i]);
		json_decref(v[i]);
	}
	free(v);
	return out;
}

json_t *
perfread_parse(FILE *f)
{
	struct perfread_acc a = { .symbols = json_array(),
	    .objects = json_object() };
	char *line = NULL, event[128] = "";
	size_t cap = 0;
	ssize_t len;
	json_t *s;
	size_t i;

	while ((len = getline(&line, &cap, f)) > 0) {
		const char *ev;

		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (line[0] == '#') {
			if ((ev = strstr(line, "of event '")) != NULL) {
				/* a second event's section: the first is read */
				if (a.rows_seen)
					break;
				ev += 10;
				snprintf(event, sizeof event, "%.*s",
				    (int)strcspn(ev, "'"), ev);
			}
			continue;
		}
		if (strchr(line, '%') != NULL && strchr(line, '\t') != NULL &&
		    isdigit((unsigned char)line[strspn(line, " ")]) &&
		    strchr(line, '%') < strchr(line, '\t'))
			perfread_row(&a, line);
		else if (isdigit((unsigned char)line[0]))
			perfread_chain(&a, line);
	}
	free(line);
	perfread_order(a.symbols);
	json_array_foreach(a.symbols, i, s) {
		json_t *byname = json_object_get(s, "callers");

		json_incref(byname);
		json_object_set_new(s, "callers", perfread_sorted(byname,
		    "caller", 0));
		json_decref(byname);
	}
	a.prof = json_pack("{s:s,s:I,s:I,s:o,s:o}", "event", event, "samples",
	    (json_int_t)a.total, "no_caller", (json_int_t)a.no_caller,
	    "symbols", a.symbols, "objects", perfread_sorted(a.objects,
	    "object", 0));
	json_decref(a.objects);
	return a.prof;
}

/* "  12.3% [11.0, 13.6]" of k samples in n. */
static void
perfread_share(FILE *out, long long k, long long n)
{
	double lo, hi;

	profdiff_wilson(k, n, &lo, &hi);
	fprintf(out, "%10lld %6.2f%%  [%5.2f, %5.2f]", k,
	    n > 0 ? 100.0 * (double)k / (double)n : 0, 100 * lo, 100 * hi);
}

void
perfread_write(FILE *out, const json_t *prof, size_t limit, size_t ncallers)
{
	long long n = json_integer_value(json_object_get(prof, "samples"));
	const json_t *syms = json_object_get(prof, "symbols"), *r, *c;
	size_t i, j;

	fprintf(out, "%10s %7s  %-16s  %s\n", "samples", "share",
	    "95% interval", "symbol (object)");
	json_array_foreach(syms, i, r) {
		if (limit > 0 && i >= limit) {
			fprintf(out, "(%zu more symbols, each under the last "
			    "share)\n", json_array_size(syms) - i);
			break;
		}
		perfread_share(out, json_integer_value(json_object_get(r,
		    "samples")), n);
		fprintf(out, "  %s (%s)\n", json_string_value(json_object_get(r,
		    "symbol")), json_string_value(json_object_get(r,
		    "object")));
	}
	if (json_array_size(json_object_get(prof, "objects")) > 0) {
		fprintf(out, "\naddresses without a symbol, summed per object:\n");
		json_array_foreach(json_object_get(prof, "objects"), i, r) {
			perfread_share(out, json_integer_value(json_object_get(r,
			    "samples")), n);
			fprintf(out, "  %s\n", json_string_value(json_object_get(r,
			    "object")));
		}
	}
	fprintf(out, "\ncallers of the top %zu symbols (samples of the symbol "
	    "by its immediate caller):\n", ncallers);
	json_array_foreach(syms, i, r) {
		if (i >= ncallers)
			break;
		fprintf(out, "  %s\n", json_string_value(json_object_get(r,
		    "symbol")));
		if (json_array_size(json_object_get(r, "callers")) == 0)
			fprintf(out, "    (no call chains: perf record took "
			    "none)\n");
		json_array_foreach(json_object_get(r, "callers"), j, c)
			if (j < PERFREAD_CALLERS)
				fprintf(out, "    %10lld  <- %s\n",
			    (long long)json_integer_value(json_object_get(c,
			    "samples")), json_string_value(json_object_get(c,
			    "caller")));
	}
}

void
perfread_event(json_t *ev, const json_t *prof, size_t top)
{
	long long n = json_integer_value(json_object_get(prof, "samples"));
	const json_t *syms = json_object_get(prof, "symbols"), *r;
	json_t *t = json_array(), *more = json_array(), *objs = json_array();
	size_t i;

	json_array_foreach(syms, i, r) {
		json_int_t k = json_integer_value(json_object_get(r, "samples"));

		if (i < top) {
			json_t *cl = json_array();

			for (size_t j = 0; j < PERFREAD_CALLERS &&
			    j < json_array_size(json_object_get(r, "callers"));
			    j++)
				json_array_append(cl, json_array_get(
				    json_object_get(r, "callers"), j));
			json_array_append_new(t, json_pack("{s:O,s:O,s:I,s:f,"
			    "s:o}", "symbol", json_object_get(r, "symbol"),
			    "object", json_object_get(r, "object"), "samples", k,
			    "share", n > 0 ? round(10000.0 * (double)k /
			    (double)n) / 100.0 : 0.0, "callers", cl));
		} else if (i < PERFREAD_SYMBOLS)
			json_array_append_new(more, json_pack("[O,O,I]",
			    json_object_get(r, "symbol"), json_object_get(r,
			    "object"), k));
	}
	json_array_foreach(json_object_get(prof, "objects"), i, r) {
		json_int_t k = json_integer_value(json_object_get(r, "samples"));

		if (i < top)
			json_array_append_new(objs, json_pack("{s:O,s:I,s:f}",
			    "object", json_object_get(r, "object"), "samples", k,
			    "share", n > 0 ? round(10000.0 * (double)k /
			    (double)n) / 100.0 : 0.0));
	}
	json_object_set_new(ev, "samples", json_integer((json_int_t)n));
	json_object_set(ev, "no_caller", json_object_get(prof, "no_caller"));
	json_object_set_new(ev, "top", t);
	json_object_set_new(ev, "symbols", more);
	json_object_set_new(ev, "objects", objs);
}
