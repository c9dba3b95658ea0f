/* The calibration probe: a short fixed loop timed on a leg's cpu just
 * before the leg, against its own floor on that cpu.  It sees what the
 * guest's counters cannot: a noisy neighbour on the host, a busy sibling
 * hyperthread, a frequency drop, all of which make the same instructions
 * take longer.
 *
 * One probe is PROBE_SLICES slices of a dependent chain of multiply-adds
 * (no memory traffic, nothing the compiler can fold), each timed; the
 * loop's length is calibrated once so a slice takes about PROBE_SLICE_US
 * (a probe, PROBE_SLICES of them: 100 us, 1% of a 10 ms leg).  Its figure is the median slice (one interrupt or one
 * preemption moves one slice, not the median); its floor is the lowest
 * median seen on that cpu; its slowdown is median / floor.  A slice that
 * took PROBE_GAP_US longer than the median means the thread was off the
 * cpu meanwhile (stolen by the host or preempted): a gap. */
#ifndef BENCHTUI_PROBE_H
#define BENCHTUI_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#define PROBE_SLICES 8
#define PROBE_SLICE_US 12.5
#define PROBE_GAP_US 50.0

struct probe;

/* What one probe measured. */
struct probe_result {
	int cpu;            /* where it ran */
	double us;          /* its whole time, microseconds */
	double slice_us;    /* its median slice */
	double floor_us;    /* the lowest median slice on that cpu before it
	                     * (NAN: the first there) */
	double slowdown;    /* slice_us / floor_us (1 for the first) */
	double gap_us;      /* the slowest slice past the median */
};

/* A probe for legs pinned to mask (ncpus entries; NULL: any cpu): its
 * slice length calibrated and each cpu's floor seeded with a few probes
 * (some hundred microseconds a cpu).  NULL when the calling thread cannot
 * be pinned or timed. */
struct probe *probe_create(const unsigned char *mask, int ncpus);

/* One probe on a cpu of the mask (the calling thread is pinned there for
 * it and put back after), its floor updated.  0, or -1 when it could not
 * run. */
int probe_run(struct probe *p, struct probe_result *r);

/* Probe on the cpus of mask (ncpus entries; NULL: any cpu) from now on.
 * Each cpu keeps its floor; a probe made with a NULL mask has seeded
 * every cpu it may run on, so the new mask's floors are known already
 * (the agent's probe follows its server's cpus). */
void probe_set_mask(struct probe *p, const unsigned char *mask, int ncpus);

/* Iterations of the loop per slice, for the record. */
long probe_iterations(const struct probe *p);

void probe_destroy(struct probe *p);

/* Whether this machine's clock can time a probe: a high-resolution
 * monotonic clock (clock_getres at most 1 us) from a clocksource that
 * counts, not jiffies.  false with why ("clocksource jiffies: ...").  The
 * clocksource is read from BENCHTUI_SYSFS_CLOCKSOURCE when set (the tests
 * fake one), else from sysfs. */
bool probe_clock_stable(char *why, size_t len);

#endif
