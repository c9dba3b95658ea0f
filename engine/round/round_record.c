/* The round driver, the leg's events: leg_start when it is running, and
 * the leg line with every field SPEC.md names once it ended. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "event.h"
#include "round_int.h"
#include "spawn.h"
#include "sysname.h"

void
round_leg_ident(json_t *ev, const struct spec *s, const struct plan_leg *pl,
    int warmup)
{
	json_object_set_new(ev, "cell", json_string(s->cells[pl->cell].name));
	json_object_set_new(ev, "arm", json_string(s->arms[pl->arm].name));
	/* A warm-up leg is no rep of the plan: rep and seq 0, and its K. */
	json_object_set_new(ev, "rep", json_integer(warmup > 0 ? 0 : pl->rep));
	json_object_set_new(ev, "seq", json_integer(warmup > 0 ? 0 :
	    (json_int_t)pl->seq));
	if (warmup > 0)
		json_object_set_new(ev, "warmup", json_integer(warmup));
}

json_t *
round_leg_start_event(const struct spec *s, const struct plan_leg *pl,
    int warmup, const char *out)
{
	json_t *ev = event_new("leg_start");

	round_leg_ident(ev, s, pl, warmup);
	/* Its place in the line; the pid is set once the process exists. */
	json_object_set_new(ev, "pid", json_integer(0));
	json_object_set_new(ev, "out", json_string(out));
	return ev;
}

static double
round_record_tv(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* Seconds rounded to the microsecond: what rusage and the clock resolve. */
static json_t *
round_record_secs(double s)
{
	if (!isfinite(s))
		return json_null();
	return json_real((double)(long long)(s * 1e6 + 0.5) / 1e6);
}

/* ok: exited with a code of ok_rc (default 0), never by a signal or a
 * failed exec (127 in ok_rc does not make "not found" ok). */
static const char *
round_record_status(const struct spec *s, const struct leg_result *res,
    bool server_died)
{
	if (res->aborted)
		return "aborted";
	if (res->timed_out)
		return "timed_out";
	if (server_died || res->signal != 0 || res->exec_errno != 0 ||
	    !spec_ok_rc(s, res->rc))
		return "failed";
	return "ok";
}

/* How the leg ended and what it used: status through majflt. */
static void
round_record_leg_result(json_t *ev, const struct spec *s,
    const struct leg_result *res, bool server_died)
{
	double ut = round_record_tv(&res->ru.ru_utime), st = round_record_tv(&res->ru.ru_stime);
	char sig[32];

	json_object_set_new(ev, "status",
	    json_string(round_record_status(s, res, server_died)));
	json_object_set_new(ev, "rc", res->signal == 0 && res->rc >= 0 ?
	    json_integer(res->rc) : json_null());
	if (res->signal != 0 && sysname_sigabbrev(res->signal) != NULL) {
		snprintf(sig, sizeof sig, "SIG%s", sysname_sigabbrev(res->signal));
		json_object_set_new(ev, "signal", json_string(sig));
	} else {
		json_object_set_new(ev, "signal", res->signal != 0 ?
		    json_integer(res->signal) : json_null());
	}
	json_object_set_new(ev, "timed_out", json_boolean(res->timed_out));
	json_object_set_new(ev, "wall", round_record_secs(res->wall));
	json_object_set_new(ev, "utime", round_record_secs(ut));
	json_object_set_new(ev, "stime", round_record_secs(st));
	json_object_set_new(ev, "cpu", round_record_secs(ut + st));
	json_object_set_new(ev, "maxrss_kb", json_integer(res->ru.ru_maxrss));
	/* The whole tree's peak (the cgroup's memory.peak), where the
	 * machine gives one per leg. */
	json_object_set_new(ev, "mem_peak_kb", res->mem_peak_kb >= 0 ?
	    json_integer(res->mem_peak_kb) : json_null());
	json_object_set_new(ev, "minflt", json_integer(res->ru.ru_minflt));
	json_object_set_new(ev, "majflt", json_integer(res->ru.ru_majflt));
}

void
round_record_ipc(json_t *ev)
{
	const json_t *cy = json_object_get(ev, "cycles"),
	    *in = json_object_get(ev, "instructions");

	json_object_del(ev, "ipc");
	if (json_is_integer(cy) && json_is_integer(in) &&
	    json_integer_value(cy) > 0)
		json_object_set_new(ev, "ipc", json_real(
		    (double)(long long)((double)json_integer_value(in) /
		    (double)json_integer_value(cy) * 1000.0 + 0.5) / 1000.0));
}

/* The counters: ipc, cycles, instructions, every counter by name, and
 * which were multiplexed. */
static void
round_record_leg_counters(json_t *ev, const struct run *u)
{
	json_t *ctrs = json_object(), *mux = json_array(),
	    *cycles = json_null(), *instr = json_null();

	for (int i = 0; u->ctr != NULL && i < counters_count(u->ctr); i++) {
		const char *name = counters_name(u->ctr, i);
		uint64_t v;
		json_t *j = counters_value(u->ctr, i, &v) ?
		    json_integer((json_int_t)v) : json_null();

		if (strcmp(name, "cycles") == 0)
			cycles = json_incref(j);
		else if (strcmp(name, "instructions") == 0)
			instr = json_incref(j);
		json_object_set_new(ctrs, name, j);
		if (counters_multiplexed(u->ctr, i))
			json_array_append_new(mux, json_string(name));
	}
	json_object_set_new(ev, "cycles", cycles);
	json_object_set_new(ev, "instructions", instr);
	round_record_ipc(ev);
	json_object_set_new(ev, "counters", ctrs);
	json_object_set_new(ev, "multiplexed", mux);
}

json_t *
round_leg_event(struct run *u, const struct plan_leg *pl, int warmup,
    const struct leg_result *res, const char *bin, long long bytes,
    double foreign, const struct round_gate_rec *gate, bool server_died)
{
	const struct spec *s = u->r->spec;
	json_t *ev = event_new("leg"), *jbin;

	round_leg_ident(ev, s, pl, warmup);
	round_record_leg_result(ev, s, res, server_died);
	round_record_leg_counters(ev, u);
	json_object_set_new(ev, "bytes", bytes >= 0 ? json_integer(bytes) :
	    json_null());
	json_object_set_new(ev, "foreign", isfinite(foreign) && foreign >= 0 ?
	    json_real((double)(long long)(foreign * 1000.0 + 0.5) / 1000.0) :
	    json_null());
	/* json_string refuses bytes that are not UTF-8: a path that is not
	 * becomes null rather than a missing field. */
	jbin = bin != NULL ? json_string(bin) : NULL;
	json_object_set_new(ev, "bin", jbin != NULL ? jbin : json_null());
	json_object_set_new(ev, "pid", json_integer(res->pid));
	if (res->exec_errno != 0) {
		char why[1200];

		spawn_step_words(res->exec_step, res->exec_errno, bin,
		    u->r->spec->workdir, u->r->spec->nice, why, sizeof why);
		json_object_set_new(ev, "exec_error", json_string(why));
	}
	/* What the gate did before the leg (absent with the gate off). */
	if (gate->how != TALLY_GATE_NONE) {
		json_object_set_new(ev, "gate",
		    json_string(tally_gate_name(gate->how)));
		json_object_set_new(ev, "wait_s", round_record_secs(
		    (double)(long long)(gate->wait_s * 1000.0 + 0.5) / 1000.0));
		/* The probe's slowdown and time, just before the leg (null
		 * where none ran). */
		json_object_set_new(ev, "probe", isnan(gate->probe) ?
		    json_null() : json_real(gate->probe));
		json_object_set_new(ev, "probe_us", isnan(gate->probe_us) ?
		    json_null() : json_real(gate->probe_us));
		/* Foreign work on the pinned cpus during the leg (null where
		 * none are pinned). */
		json_object_set_new(ev, "client_busy", isnan(gate->client_busy) ?
		    json_null() : json_real(gate->client_busy));
		json_object_set_new(ev, "server_busy", isnan(gate->server_busy) ?
		    json_null() : json_real(gate->server_busy));
		/* The staying load the leg ran beside: its pids. */
		if (gate->nstaying > 0) {
			json_t *a = json_array();

			for (size_t i = 0; i < gate->nstaying; i++)
				json_array_append_new(a, json_integer(
				    gate->staying[i]));
			json_object_set_new(ev, "staying", a);
		}
	}
	if (server_died)
		json_object_set_new(ev, "server_died", json_true());
	return ev;
}

void
round_warn_counters(struct run *u)
{
	for (int i = 0; u->ctr != NULL && i < counters_count(u->ctr); i++) {
		int e = counters_errno(u->ctr, i);

		if (e == 0 || u->ctr_warned[i])
			continue;
		u->ctr_warned[i] = true;
		if (counters_is_hardware(counters_name(u->ctr, i)) &&
		    (e == ENOENT || e == ENODEV || e == EOPNOTSUPP))
			round_warn(u, "counter %s is n/a: this machine has no "
			    "hardware PMU (no CPU performance counters, as in "
			    "most virtual machines), so it is recorded as null; "
			    "software events such as task-clock still count",
			    counters_name(u->ctr, i));
		else
			round_warn(u, "counter %s is not supported here (%s); it "
			    "is recorded as null", counters_name(u->ctr, i),
			    strerror(e));
	}
}
