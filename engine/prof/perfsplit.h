/* One perf recording of several arms' runs (benchtui prof-repeat, which
 * runs them in turn) split by run: each sample is its run's by the pid
 * of its process (a run's own, or one from its pid up to the next run's:
 * runs follow each other; past a wrap of the kernel's pids, up to the
 * top), each run its arm's. */
#ifndef BENCHTUI_PERFSPLIT_H
#define BENCHTUI_PERFSPLIT_H

#include <jansson.h>
#include <stddef.h>

/* prof: perfread_parse of perf report --sort pid,dso,sym (rows with
 * "pid"); list: prof-repeat's [{"arm", "pid"}] in run order.  An array
 * of narms profiles, each as perfread_parse's (its rows summed over the
 * arm's runs; "objects" empty) with "runs" and "per_run": {"samples":
 * [N per run], "symbols": {"OBJECT\tSYMBOL": [K per run]}, "callers":
 * {"OBJECT\tSYMBOL\tCALLER": [K per run]}}.  Samples of no run (the
 * runner's own, pid self) are left out.  New reference. */
json_t *perfsplit(const json_t *prof, const json_t *list, long long self,
    size_t narms);

#endif
