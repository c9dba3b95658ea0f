/* The quiet gate's sampler: how busy the machine is with work that is not
 * the round's, in the background all through the round.
 *
 * Foreign CPU is the CPU time the machine spent busy that belongs to no
 * process of this round (benchtui's own tree: itself, its legs, its
 * servers), from /proc/stat minus the tree's CPU time, in cores.  The
 * pinned cpus (the legs' client cpus, the running server's) are also
 * judged each on their own foreign work: a busy pinned cpu disturbs a leg
 * more than any other load.  A thread takes a sample 10 times a second
 * into a ring; readers ask for the newest span of a given length, or for
 * the span since a moment (a leg's window).  Only quiet.c uses it. */
#ifndef BENCHTUI_QUIETSAMP_H
#define BENCHTUI_QUIETSAMP_H

#include <stdbool.h>
#include <sys/types.h>

/* A sample every 100 ms costs some 30 us of reads (/proc/stat and the
 * round's cpu.stat through fds kept open): 0.03% of a core.  On this VM
 * each wake-up of the sampler thread costs far more (measured: 1.3 ms of
 * its CPU a sample, most of it charged to its first memory writes after
 * a sleep), so a leg that has run QUIETSAMP_SLOW_AFTER_S is sampled every
 * QUIETSAMP_SLOW_MS until it ends (quietsamp_leg takes one then): nothing
 * judges the samples in between. */
#define QUIETSAMP_MS 100
#define QUIETSAMP_SLOW_MS 5000
#define QUIETSAMP_SLOW_AFTER_S 1.0

struct cgroup;
struct quietsamp;

/* What a span of samples shows, in cores. */
struct quietsamp_view {
	double t0, t1;        /* the span's ends, CLOCK_MONOTONIC seconds */
	bool full;            /* it is as long as was asked */
	double foreign;       /* the whole machine's foreign load */
	double client_busy;   /* foreign work on the client cpus (NAN: no
	                       * client cpus) */
	double server_busy;   /* on the running server's cpus (NAN: no
	                       * server pinned) */
	double sib_busy;      /* anything on the client cpus' SMT siblings
	                       * (NAN: none) */
	double staying;       /* of foreign, the watched processes' (0:
	                       * none, or the span began before the watch) */
};

/* Sample from now on, keeping at least span_s of samples.  root_pid roots
 * the round's own tree; own (may be NULL) is a cgroup holding all of it,
 * read instead of the tree's /proc files.  client is a mask of ncpus
 * entries (the legs' cpus), or NULL.  NULL on failure. */
struct quietsamp *quietsamp_create(pid_t root_pid, struct cgroup *own,
    const unsigned char *client, int ncpus, double span_s);
void quietsamp_destroy(struct quietsamp *s);

/* The round's groups of legs and of servers (either may be NULL): their
 * cpu.stat tells the legs' CPU from the servers' and benchtui's own. */
void quietsamp_set_groups(struct quietsamp *s, struct cgroup *legs,
    struct cgroup *servers);
/* The server running now: pid (0: none) and its mask of ncpus entries
 * (NULL: not pinned). */
void quietsamp_set_server(struct quietsamp *s, pid_t pid,
    const unsigned char *mask, int ncpus);

/* The most processes quietsamp_watch keeps. */
#define QUIETSAMP_WATCH 4

/* Watch pid's own CPU from now on, sample by sample: a candidate for the
 * load that stays (quiet.c).  One /proc/PID/stat read a sample each, only
 * while any is watched; a process gone (or its pid reused) adds nothing. */
void quietsamp_watch(struct quietsamp *s, pid_t pid);
/* Judge the candidates: those that ran in at least min_frac of the
 * samples since their watch began and used at least min_cores are kept
 * (a span's "staying" is theirs from now on); the others are dropped.
 * Their pids and cores into pids and cores (up to max); how many. */
size_t quietsamp_watch_judge(struct quietsamp *s, double min_frac,
    double min_cores, pid_t *pids, double *cores, size_t max);

/* A leg runs from now (running true), or ended now: once it has run a
 * while the samples slow down, and its end takes one at once. */
void quietsamp_leg(struct quietsamp *s, bool running);

/* The newest span_s (or all there is: full false); false when no sample
 * is in yet. */
bool quietsamp_last(struct quietsamp *s, double span_s,
    struct quietsamp_view *v);
/* From the last sample at or before t0 (further back when that spans less
 * than min_s) to the newest: a leg's window, without a sample of its own.
 * false when fewer than two samples are in. */
bool quietsamp_since(struct quietsamp *s, double t0, double min_s,
    struct quietsamp_view *v);

/* The client cpus' SMT siblings ("3,5"), or NULL when there are none. */
const char *quietsamp_siblings(const struct quietsamp *s);
bool quietsamp_has_client(const struct quietsamp *s);

#endif
