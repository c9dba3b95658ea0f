/* A perf profile read back: perf report's flat profile by shared object
 * and symbol, with the sample counts and each symbol's callers, from
 *
 *   perf report --stdio --no-children -n --sort dso,sym -t TAB
 *       -g folded,0,callee,function,count
 *
 * (the -g part only where perf record took call chains).  Code of an
 * object without symbols is named OBJECT+0xOFFSET, and those addresses are
 * also summed per object as [OBJECT].  Nothing here runs perf: the profile
 * phase (round_prof_perf.c) does, and hands the output in. */
#ifndef BENCHTUI_PERFREAD_H
#define BENCHTUI_PERFREAD_H

#include <jansson.h>
#include <stdio.h>

/* How many callers a symbol keeps, and how many symbols a profile event
 * lists with their counts (beyond its top 20), so the differential view
 * can compare a symbol that is high in one arm and low in the other. */
#define PERFREAD_CALLERS 5
/* The caller of a sample whose chain holds nothing past its symbol. */
#define PERFREAD_NO_CALLER "(none: the chain ends here)"
#define PERFREAD_SYMBOLS 200

/* Read perf report's output from f (to its end, line by line, whatever
 * its size): {"event": "cpu-clock:pppH" or "", "samples": N (the rows'
 * sum), "symbols": [{"symbol", "object", "samples", "callers":
 * [{"caller", "samples"}] (largest first, at most PERFREAD_CALLERS)}]
 * (largest first, every symbol), "no_caller": the samples whose chain
 * ends at their symbol, "objects": [{"object": "[zstd]",
 * "samples"}] (the unnamed addresses of each object, largest first)}.
 * Only the first event's section is read.  New reference. */
json_t *perfread_parse(FILE *f);

/* Write the flat profile (rows with their samples, share and 95% interval,
 * at most limit rows), the objects' sums and the callers of the top
 * ncallers symbols, as text. */
void perfread_write(FILE *out, const json_t *prof, size_t limit,
    size_t ncallers);

/* The profile event's fields from a parsed profile: "top" (the 20
 * largest symbols and objects with share, samples and callers),
 * "symbols" ([SYMBOL, OBJECT, SAMPLES] of the next ones, up to
 * PERFREAD_SYMBOLS in all) and "samples". */
void perfread_event(json_t *ev, const json_t *prof, size_t top);

/* An array of objects sorted in place by "samples", largest first. */
void perfread_order(json_t *arr);

/* NAME -> samples as [{key: NAME, "samples"}], largest first.  New
 * reference. */
json_t *perfread_rank(json_t *byname, const char *key);

#endif
