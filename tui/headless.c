/* The headless front end: one line per finished leg on stdout, warnings on
 * stderr, and the closing summary of tally_report in words (words_summary:
 * the same as `benchtui report`, summary.md and the console's on quitting). */
#include "headless.h"

#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "profdiff.h"
#include "round.h"
#include "stats.h"
#include "tally.h"
#include "words.h"

struct headless {
	/* stdout and stderr through the one escape rule (escape.h): what is
	 * printed comes from a log, and --replay reads anyone's. */
	FILE *out, *err;
	bool own_out, own_err;     /* made here: closed by destroy */
	struct tally *tally;
	json_int_t legs_total;
	json_int_t legs_shown;
	bool sealed;
	char seal[65];
	/* Why the round stopped (abort, a server's death): said at the end,
	 * and forgotten when a later resume carried the round on, so that a
	 * resume that succeeds does not repeat an earlier run's stop. */
	char stops[2048];
};

static void
headless_stop(struct headless *h, const char *fmt, const char *a,
    const char *b)
{
	size_t n = strlen(h->stops);

	snprintf(h->stops + n, sizeof h->stops - n, fmt, a, b);
}

struct headless *
headless_create(FILE *out, const struct spec *spec)
{
	struct headless *h = calloc(1, sizeof *h);

	if (h == NULL)
		return NULL;
	if ((h->tally = tally_create()) == NULL) {
		free(h);
		return NULL;
	}
	h->out = escape_stream(out);
	h->err = escape_stream(stderr);
	h->own_out = h->out != NULL;
	h->own_err = h->err != NULL;
	if (h->out == NULL)
		h->out = out;
	if (h->err == NULL)
		h->err = stderr;
	if (spec != NULL)
		tally_set_spec(h->tally, spec);
	return h;
}

static const char *
headless_str(const json_t *ev, const char *key)
{
	const char *s = json_string_value(json_object_get(ev, key));

	return s != NULL ? s : "?";
}

static double
headless_num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* " name=value" for each counter the leg counted (adaptive units), and
 * n/a for one the round names that did not count; a legacy row's
 * top-level cycles and instructions when it has no counters object. */
static void
headless_counters(struct headless *h, const json_t *ev)
{
	static const char *const legacy[] = { "cycles", "instructions" };
	const json_t *ctrs = json_object_get(ev, "counters"), *v;
	const char *k;
	char buf[48];

	if (!json_is_object(ctrs)) {
		for (size_t i = 0; i < 2; i++)
			if (json_is_number(v = json_object_get(ev, legacy[i])))
				fprintf(h->out, " %s=%s", legacy[i], words_value(
				    buf, sizeof buf, legacy[i],
				    json_number_value(v), true));
		return;
	}
	json_object_foreach((json_t *)ctrs, k, v)
		if (json_is_number(v) || tally_counter_named(h->tally, k))
			fprintf(h->out, " %s=%s", k, words_value(buf, sizeof buf,
			    k, json_is_number(v) ? json_number_value(v) : NAN,
			    true));
}

/* What else a leg line says, after its figures: a status that is not ok,
 * an exec error, a gate that let it go on a busy box ("gate=budget"), a
 * failed prepare, cut output. */
static void
headless_leg_marks(struct headless *h, const json_t *ev, const char *status)
{
	enum tally_gate g;

	if (strcmp(status, "ok") != 0)
		fprintf(h->out, " %s", status);
	if (json_is_string(json_object_get(ev, "exec_error")))
		fprintf(h->out, " (%s)", headless_str(ev, "exec_error"));
	g = tally_leg_gate(ev);
	if (g != TALLY_GATE_NONE && g != TALLY_GATE_QUIET)
		fprintf(h->out, " gate=%s", tally_gate_name(g));
	if (json_is_integer(json_object_get(ev, "prepare_rc")) &&
	    json_integer_value(json_object_get(ev, "prepare_rc")) != 0)
		fprintf(h->out, " (prepare exited %lld)", (long long)
		    json_integer_value(json_object_get(ev, "prepare_rc")));
	if (json_is_true(json_object_get(ev, "output_truncated")))
		fprintf(h->out, " (output %lld bytes, cut)", (long long)
		    json_integer_value(json_object_get(ev, "output_bytes")));
}

static void
headless_leg(struct headless *h, const json_t *ev)
{
	const char *status;
	json_t *rc = json_object_get(ev, "rc"), *sig = json_object_get(ev, "signal");
	json_t *seq = json_object_get(ev, "seq");
	json_t *warm = json_object_get(ev, "warmup");
	char rcs[32], pos[64], rep[32], a[48], b[48];

	/* A legacy row has no status field: the one rule gives it. */
	status = tally_leg_status_name(tally_leg_status(ev));
	if (json_is_integer(warm)) {
		/* A warm-up leg: logged, shown, never counted. */
		snprintf(pos, sizeof pos, "warm-up");
		snprintf(rep, sizeof rep, "w%lld",
		    (long long)json_integer_value(warm));
	} else if (++h->legs_shown, h->legs_total > 0)
		snprintf(pos, sizeof pos, "%lld/%lld", json_is_integer(seq) ?
		    (long long)json_integer_value(seq) :
		    (long long)h->legs_shown, (long long)h->legs_total);
	else
		snprintf(pos, sizeof pos, "%lld", json_is_integer(seq) ?
		    (long long)json_integer_value(seq) :
		    (long long)h->legs_shown);
	if (!json_is_integer(warm))
		snprintf(rep, sizeof rep, "r%lld", (long long)json_integer_value(
		    json_object_get(ev, "rep")));

	if (json_is_integer(rc))
		snprintf(rcs, sizeof rcs, "%lld", (long long)json_integer_value(rc));
	else
		snprintf(rcs, sizeof rcs, "%s", json_is_string(sig) ?
		    json_string_value(sig) : "-");
	fprintf(h->out, "[%s] %s %s %s rc=%s wall=%s cpu=%s", pos,
	    headless_str(ev, "cell"), headless_str(ev, "arm"), rep, rcs,
	    words_secs(a, sizeof a, headless_num(ev, "wall")),
	    words_secs(b, sizeof b, headless_num(ev, "cpu")));
	headless_counters(h, ev);
	/* A server's tree over the leg, the leg's bytes and its own
	 * metrics. */
	if (json_is_number(json_object_get(json_object_get(ev, "server"),
	    "cpu")))
		fprintf(h->out, " server_cpu=%s", words_secs(a, sizeof a,
		    json_number_value(json_object_get(json_object_get(ev,
		    "server"), "cpu"))));
	if (json_integer_value(json_object_get(ev, "bytes")) > 0)
		fprintf(h->out, " bytes=%s", words_bytes(a, sizeof a,
		    json_number_value(json_object_get(ev, "bytes"))));
	{
		const char *k;
		json_t *v;

		json_object_foreach(json_object_get(ev, "metrics"), k, v)
			if (json_is_number(v))
				fprintf(h->out, " %s=%s", k, words_value(a,
				    sizeof a, k, json_number_value(v), true));
	}
	headless_leg_marks(h, ev, status);
	fputc('\n', h->out);
	fflush(h->out);
}

/* "profile cpu on perf ok (2070 samples from 10 runs): prof_hot_extra
 * 49.5%, prof_base 48.6%" */
static void
headless_profile(struct headless *h, const json_t *ev)
{
	const json_t *top = json_object_get(ev, "top"), *r;
	const char *kind = headless_str(ev, "kind");
	/* the runs its intervals are over (perf, server_perf) */
	bool under, runs = json_is_integer(json_object_get(ev, "runs")) &&
	    json_is_integer(json_object_get(ev, "samples"));
	size_t i;

	fprintf(h->out, "profile %s %s %s %s", headless_str(ev, "cell"),
	    headless_str(ev, "arm"), kind, headless_str(ev, "status"));
	if (json_is_string(json_object_get(ev, "reason")))
		fprintf(h->out, ": %s", headless_str(ev, "reason"));
	/* Fewer samples than asked: its shares are coarser than promised. */
	under = json_is_true(json_object_get(ev, "under_min_samples")) ||
	    (json_is_integer(json_object_get(ev, "samples")) &&
	    json_integer_value(json_object_get(ev, "samples")) <
	    json_integer_value(json_object_get(ev, "min_samples")));
	if (runs || under) {
		fprintf(h->out, " (%lld samples", (long long)json_integer_value(
		    json_object_get(ev, "samples")));
		if (runs)
			fprintf(h->out, " from %lld runs", (long long)
			    json_integer_value(json_object_get(ev, "runs")));
		if (under)
			fprintf(h->out, ", under min_samples %lld", (long long)
			    json_integer_value(json_object_get(ev, "min_samples")));
		fputc(')', h->out);
	}
	json_array_foreach(top, i, r) {
		if (i >= 3)
			break;
		/* perf of the leg and of the cell's server: symbols. */
		if (strcmp(kind, "perf") == 0 || strcmp(kind, "server_perf") == 0)
			fprintf(h->out, "%s %s %.1f%%", i ? "," : ":",
			    headless_str(r, "symbol"),
			    json_number_value(json_object_get(r, "share")));
		else
			fprintf(h->out, "%s %s %lld", i ? "," : ":",
			    headless_str(r, "syscall"), (long long)
			    json_integer_value(json_object_get(r, "calls")));
	}
	fputc('\n', h->out);
	fflush(h->out);
}

void
headless_event(struct headless *h, const json_t *ev)
{
	const char *t = json_string_value(json_object_get(ev, "t"));

	if (t == NULL)
		t = json_object_get(ev, "cell") ? "leg" : "";
	tally_feed(h->tally, ev);
	if (strcmp(t, "round") == 0 || strcmp(t, "resume") == 0) {
		json_t *n = json_object_get(ev, "legs_total");

		if (json_is_integer(n))
			h->legs_total = json_integer_value(n);
		if (strcmp(t, "resume") == 0 &&
		    strcmp(headless_str(ev, "from"), "restart") == 0)
			h->stops[0] = '\0';
	} else if (strcmp(t, "leg") == 0) {
		headless_leg(h, ev);
	} else if (strcmp(t, "leg_state") == 0) {
		bool stopped = strcmp(headless_str(ev, "state"), "stopped") == 0;

		fprintf(h->out, "[%lld/%lld] %s %s r%lld %s%s%s\n",
		    (long long)h->legs_shown + 1, (long long)h->legs_total,
		    headless_str(ev, "cell"), headless_str(ev, "arm"),
		    (long long)json_integer_value(json_object_get(ev, "rep")),
		    stopped ? "stopped (" : "running again",
		    stopped ? headless_str(ev, "signal") : "",
		    stopped ? "): it waits to be continued; an abort "
		    "(Ctrl-C) ends it" : "");
		fflush(h->out);
	} else if (strcmp(t, "profile") == 0) {
		headless_profile(h, ev);
	} else if (strcmp(t, "hook_start") == 0) {
		fprintf(h->out, "cell %s: %s running (at most %g s; its output "
		    "in %s)\n", headless_str(ev, "cell"), headless_str(ev,
		    "hook"), json_number_value(json_object_get(ev,
		    "timeout_s")), headless_str(ev, "out"));
		fflush(h->out);
	} else if (strcmp(t, "warning") == 0) {
		fprintf(h->err, "benchtui: warning: %s\n", headless_str(ev, "msg"));
	} else if (strcmp(t, "abort") == 0) {
		headless_stop(h, "benchtui: round stopped: %s%s\n",
		    headless_str(ev, "reason"), "");
	} else if (strcmp(t, "log_cut") == 0) {
		fprintf(h->err, "benchtui: log.jsonl: cut a torn last line "
		    "(%lld bytes)\n",
		    (long long)json_integer_value(json_object_get(ev, "bytes")));
	} else if (strcmp(t, "server") == 0 &&
	    strcmp(headless_str(ev, "state"), "died") == 0) {
		const char *cause = headless_str(ev, "cause");
		const char *cell = headless_str(ev, "cell"), *msg =
		    headless_str(ev, "msg");
		size_t n = strlen(cell);

		/* The message names the cell itself ("cell C: ..."): once. */
		if (strncmp(msg, "cell ", 5) == 0 &&
		    strncmp(msg + 5, cell, n) == 0 && msg[5 + n] == ':' &&
		    msg[6 + n] == ' ')
			msg += 7 + n;

		headless_stop(h, strcmp(cause, "port_taken") == 0 ?
		    "benchtui: cell %s: server not started, its port is "
		    "taken: %s\n" : strcmp(cause, "ready_timeout") == 0 ?
		    "benchtui: cell %s: server not ready in time: %s\n" :
		    strcmp(cause, "failed") == 0 ?
		    "benchtui: cell %s: server could not start: %s\n" :
		    "benchtui: cell %s: server died: %s\n", cell, msg);
	} else if (strcmp(t, "seal") == 0) {
		h->sealed = true;
		snprintf(h->seal, sizeof h->seal, "%s", headless_str(ev, "sha256"));
	}
}

void
headless_finish(struct headless *h)
{
	json_t *rep = tally_report_brief(h->tally);

	fputs(h->stops, h->err);
	fputc('\n', h->out);
	/* The same summary as report, summary.md and the console's. */
	words_summary(rep, h->out, WORDS_TEXT);
	profdiff_brief(json_object_get(rep, "profiles"), h->out);
	if (h->sealed)
		fprintf(h->out, "sealed: SHA256SUMS sha256 %s\n", h->seal);
	fflush(h->out);
	json_decref(rep);
}

void
headless_destroy(struct headless *h)
{
	if (h == NULL)
		return;
	tally_destroy(h->tally);
	if (h->own_out)
		fclose(h->out);
	if (h->own_err)
		fclose(h->err);
	free(h);
}

/* The round a signal aborts.  Set before the handlers are installed. */
static struct round *volatile headless_round;

static void
headless_on_signal(int sig, siginfo_t *si, void *uc)
{
	struct round *r = headless_round;

	(void)uc;
	/* Sent by a leg (or anything of the round's tree): the leg's doing,
	 * recorded on it; never an operator abort every resume repeats. */
	if (round_signal_from_tree(r, sig, si))
		return;
	if (r != NULL)
		round_abort(r, sig == SIGINT ? "interrupted (SIGINT)" :
		    sig == SIGHUP ? "hangup (SIGHUP)" : "terminated (SIGTERM)");
}

static void
headless_on_event(const json_t *ev, void *arg)
{
	headless_event(arg, ev);
}

/* The dispositions a round's run replaces, put back after it. */
struct headless_sigs {
	struct sigaction oint, oterm, ohup;
};

/* round_run(r) with SIGINT, SIGTERM (and SIGHUP) aborting it
 * resumably. */
static int
headless_round_run(struct round *r, char *err, size_t errlen)
{
	struct sigaction act = { .sa_sigaction = headless_on_signal };
	struct headless_sigs o;
	int rc;

	headless_round = r;
	sigemptyset(&act.sa_mask);
	/* Restart what can be restarted; the waits that matter (poll on the
	 * abort pipe) see the abort through the pipe anyway. */
	act.sa_flags = SA_RESTART | SA_SIGINFO;
	sigaction(SIGINT, &act, &o.oint);
	sigaction(SIGTERM, &act, &o.oterm);
	/* A closed terminal (or ssh session) would otherwise kill benchtui by
	 * its default action, leaving the leg's children and the server's
	 * running and no abort logged.  Under nohup (SIGHUP ignored) it stays
	 * ignored. */
	sigaction(SIGHUP, NULL, &o.ohup);
	if (o.ohup.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &act, NULL);
	/* A closed pipe on stdout (| head) must not kill a round midway; the
	 * legs get default dispositions back in the child. */
	signal(SIGPIPE, SIG_IGN);
	rc = round_run(r, err, errlen);
	sigaction(SIGINT, &o.oint, NULL);
	sigaction(SIGTERM, &o.oterm, NULL);
	sigaction(SIGHUP, &o.ohup, NULL);
	headless_round = NULL;
	return rc;
}

static void
headless_on_nothing(const json_t *ev, void *arg)
{
	(void)ev;
	(void)arg;
}

int
headless_run_silent(struct round *r, char *err, size_t errlen)
{
	round_set_event_fn(r, headless_on_nothing, NULL);
	return headless_round_run(r, err, errlen);
}

int
headless_run_round(struct round *r)
{
	struct headless *h = headless_create(stdout, round_spec(r));
	char err[1024] = "";
	int rc;

	if (h == NULL) {
		fprintf(stderr, "benchtui: out of memory\n");
		return ROUND_EXIT_FAIL;
	}
	round_set_event_fn(r, headless_on_event, h);
	rc = headless_round_run(r, err, sizeof err);
	headless_finish(h);
	/* The abort event's reason may be err itself (fail_fast, a full
	 * disk), said already with the stops: once is enough. */
	if (rc != ROUND_EXIT_OK && (err[0] == '\0' || strstr(h->stops,
	    err) == NULL))
		fprintf(h->err, "benchtui: %s: %s\n", round_dir(r),
		    err[0] != '\0' ? err : "the round did not complete");
	if (rc == ROUND_EXIT_ABORTED)
		fprintf(h->err, "benchtui: resume with: benchtui resume %s\n",
		    round_dir(r));
	headless_destroy(h);
	return rc;
}
