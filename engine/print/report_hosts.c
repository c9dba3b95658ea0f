/* Report formats: a round on several hosts (see report_int.h).  Each
 * arm-metric's hosts beside its pooled figures, and when the hosts'
 * effects differ, the words that say so, naming the hosts: an effect
 * that depends on the machine is not averaged away. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "csvout.h"
#include "report.h"
#include "report_int.h"

bool
report_has_hosts(const json_t *rep)
{
	const json_t *cell, *arm, *m;
	const char *k1, *k2, *k3;

	json_object_foreach(json_object_get(rep, "cells"), k1, cell)
	json_object_foreach(json_object_get(cell, "arms"), k2, arm)
	json_object_foreach(json_object_get(arm, "metrics"), k3, m)
		if (json_is_object(json_object_get(m, "hosts")))
			return true;
	return false;
}

/* "host B" or "hosts A, B and C" into buf. */
static const char *
report_host_names(char *buf, size_t len, const json_t *list)
{
	size_t n = json_array_size(list), at = 0, i;
	const json_t *h;

	buf[0] = '\0';
	at = (size_t)snprintf(buf, len, "host%s", n > 1 ? "s" : "");
	json_array_foreach(list, i, h)
		if (at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
			    i == 0 ? " " : i + 1 == n ? " and " : ", ",
			    json_string_value(h) ? json_string_value(h) : "");
	return buf;
}

/* The sentence: "the effect depends on the machine: host B differs
 * from the other hosts" (or the hosts that differ; every host of the
 * round named: they differ from each other). */
static void
report_depends(char *buf, size_t len, const json_t *m)
{
	const json_t *list = json_object_get(m, "hosts_differ");
	size_t n = json_array_size(list);
	char names[1024];

	snprintf(buf, len, "the effect depends on the machine: %s %s",
	    report_host_names(names, sizeof names, list),
	    n == json_object_size(json_object_get(m, "hosts")) ?
	    "differ from each other" : n > 1 ? "differ from the other hosts" :
	    "differs from the other hosts");
}

void
report_text_hosts(FILE *out, const char *metric, const json_t *m)
{
	const json_t *hosts = json_object_get(m, "hosts"), *h;
	const char *name;
	char line[1300], buf[1200];

	/* A metric no pair has (a counter this machine lacks) gets no rows
	 * of nothing. */
	if (!json_is_object(hosts) ||
	    json_integer_value(json_object_get(m, "n")) == 0)
		return;
	json_object_foreach((json_t *)hosts, name, h) {
		char b1[32], b2[64], lbl[64];

		snprintf(lbl, sizeof lbl, "  host %s", name);
		fprintf(out, "    %-16.*s %4lld  %7s  %-18s  %7s  %-18s  %s\n",
		    (int)(strlen(lbl) > 16 ? 16 : strlen(lbl)), lbl,
		    (long long)json_integer_value(json_object_get(h, "n")), "",
		    "", report_ratio(b1, sizeof b1, json_object_get(h,
		    "estimate")), report_range(b2, sizeof b2, json_object_get(h,
		    "lo"), json_object_get(h, "hi")),
		    json_string_value(json_object_get(h, "verdict")) ?
		    json_string_value(json_object_get(h, "verdict")) : "");
	}
	if (!json_is_true(json_object_get(m, "depends_on_machine")))
		return;
	report_depends(buf, sizeof buf, m);
	snprintf(line, sizeof line, "%.60s: %s", metric, buf);
	report_wrap_at(out, 100, 6, line);
}

void
report_markdown_hosts(FILE *out, const json_t *cell)
{
	const json_t *arm, *m, *h;
	const char *aname, *metric, *name;
	bool any = false;

	json_object_foreach(json_object_get(cell, "arms"), aname, arm)
	json_object_foreach(json_object_get(arm, "metrics"), metric, m) {
		const json_t *hosts = json_object_get(m, "hosts");
		char line[1200];
		size_t i = 0;

		if (!json_is_object(hosts) ||
		    json_integer_value(json_object_get(m, "n")) == 0)
			continue;
		if (!any)
			fputs("\nPer host (pairs within a host only):\n\n", out);
		any = true;
		fprintf(out, "- `%s` %s:", aname, metric);
		json_object_foreach((json_t *)hosts, name, h) {
			char b1[32], b2[64];

			fprintf(out, "%s %s %s %s %s (n %lld)", i++ ? ";" : "",
			    name, report_ratio(b1, sizeof b1, json_object_get(h,
			    "estimate")), report_range(b2, sizeof b2,
			    json_object_get(h, "lo"), json_object_get(h, "hi")),
			    json_string_value(json_object_get(h, "verdict")) ?
			    json_string_value(json_object_get(h, "verdict")) :
			    "", (long long)json_integer_value(json_object_get(h,
			    "n")));
		}
		if (json_is_true(json_object_get(m, "depends_on_machine"))) {
			report_depends(line, sizeof line, m);
			fprintf(out, ". **%s**", line);
		}
		fputs(".\n", out);
	}
}

void
report_csv_hosts(FILE *out, const json_t *rep, const char *cell,
    const char *arm, const char *vs, const char *metric, const json_t *m)
{
	const json_t *hosts = json_object_get(m, "hosts"), *h;
	const json_t *differ = json_object_get(m, "hosts_differ"), *d;
	const char *name;
	size_t i;

	csvout_str(out, NULL, true);
	csvout_str(out, json_is_object(hosts) ? (json_is_true(
	    json_object_get(m, "depends_on_machine")) ? "true" : "false") :
	    NULL, true);
	fputc('\n', out);
	json_object_foreach((json_t *)hosts, name, h) {
		bool differs = false;

		json_array_foreach(differ, i, d)
			if (json_string_value(d) &&
			    strcmp(json_string_value(d), name) == 0)
				differs = true;
		csvout_str(out, json_string_value(json_object_get(rep,
		    "round")), false);
		csvout_str(out, cell, true);
		csvout_str(out, arm, true);
		csvout_str(out, vs, true);
		csvout_str(out, metric, true);
		csvout_num(out, json_object_get(h, "n"));
		fputs(",,,,,,", out);      /* median .. vs_abs */
		csvout_num(out, json_object_get(h, "estimate"));
		csvout_num(out, json_object_get(h, "lo"));
		csvout_num(out, json_object_get(h, "hi"));
		csvout_num(out, json_object_get(rep, "level"));
		csvout_num(out, json_object_get(rep, "margin"));
		fputs(",,", out);          /* spread, floor */
		csvout_str(out, json_string_value(json_object_get(h,
		    "verdict")), true);
		fputs(",,", out);          /* suspect, ratios */
		csvout_str(out, name, true);
		csvout_str(out, differs ? "true" : "false", true);
		fputc('\n', out);
	}
}
