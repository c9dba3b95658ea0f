/* replay: `benchtui --replay DIR|LOG` / `benchtui replay DIR|LOG`.
 *
 * The log's events go through the same reducer and renderer as a live
 * round, paced by their timestamps divided by the speed.  A gap between two
 * events is shortened to REPLAY_GAP_MAX seconds (after the speed), so a
 * round that sat paused overnight does not replay overnight. */
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "cmd.h"
#include "console.h"
#include "console_loop.h"
#include "round.h"
#include "event.h"
#include "headless.h"
#include "logread.h"
#include "spec.h"
#include "xalloc.h"

#define REPLAY_GAP_MAX 5.0
#define REPLAY_SLICE_S 0.01  /* events fed between two polls, at most */
#define REPLAY_SPEED_MIN (1.0 / 64)
#define REPLAY_SPEED_MAX 4096.0


struct events {
	json_t **ev;
	size_t n, cap;
};

static int
replay_collect(json_t *ev, size_t lineno, void *arg)
{
	struct events *e = arg;

	(void)lineno;
	if (e->n == e->cap) {
		e->cap = xgrow(e->cap, e->n + 1, 256);
		e->ev = xreallocarray(e->ev, e->cap, sizeof *e->ev);
	}
	e->ev[e->n++] = json_incref(ev);
	return 0;
}

static void
replay_events_free(struct events *e)
{
	for (size_t i = 0; i < e->n; i++)
		json_decref(e->ev[i]);
	free(e->ev);
	memset(e, 0, sizeof *e);
}

/* The folder a log sits in (a round folder when round.json is there). */
static void
replay_log_dir(const char *log, char *dir, size_t len)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof tmp, "%s", log);
	snprintf(dir, len, "%s", dirname(tmp));
}

/* Read the log (and the round file beside it).  The seal event is not in
 * a sealed round's log -- appending it would change a sealed file -- so a
 * SHA256SUMS beside the log stands for it.  0, or 2 with a message. */
static int
replay_load(const char *log, struct events *e, struct spec **spec)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], err[512];
	struct logread_info info;

	memset(&info, 0, sizeof info);
	*spec = NULL;
	if (logread_file(log, replay_collect, e, &info, err, sizeof err) != 0) {
		fprintf(stderr, "benchtui replay: %s\n", err[0] ? err : log);
		return 2;
	}
	if (info.torn)
		fprintf(stderr, "benchtui replay: %s:%zu: torn last line (%zu bytes) skipped\n",
		    log, info.torn_line, info.torn_bytes);
	/* A log inside a round folder (round.json and environment.json beside
	 * it, as report decides) takes vs and aa_of from its round file.  Its
	 * workdir is irrelevant here and may not exist where the folder is
	 * read (a relative "workdir", a copied folder): use the folder, as
	 * report does. */
	replay_log_dir(log, dir, sizeof dir);
	snprintf(path, sizeof path, "%s/round.json", dir);
	if (cmd_round_folder(dir, R_OK) &&
	    spec_load(path, dir, spec, err, sizeof err) < 0) {
		fprintf(stderr, "benchtui replay: %s (comparing with the first arm seen instead)\n",
		    err);
		*spec = NULL;
	}
	bool has_seal = false;
	for (size_t i = 0; i < e->n; i++) {
		const char *t = event_type(e->ev[i]);
		has_seal |= t && strcmp(t, "seal") == 0;
	}
	json_t *seal = has_seal ? NULL : round_seal_event(dir,
	    e->n ? json_object_get(e->ev[e->n - 1], "ts") : NULL);
	if (seal != NULL) {
		replay_collect(seal, 0, e);
		json_decref(seal);
	}
	return 0;
}

static double
replay_ev_ts(const struct console_replay *p, size_t i)
{
	return model_parse_ts(json_string_value(json_object_get(p->ev[i], "ts")));
}

static bool
replay_is_leg(const json_t *ev)
{
	const char *t = event_type(ev);
	return t && strcmp(t, "leg") == 0;
}

/* Feed the next event; true when the slice that began at t0 is over
 * (the clock is read every 64 events). */
static bool
replay_feed_one(struct console *c, double t0)
{
	struct console_replay *p = c->replay;

	model_feed(&c->m, p->ev[p->pos++]);
	return (p->pos & 63) == 0 && clock_now() - t0 >= REPLAY_SLICE_S;
}

/* Go to target: the events are fed in slices by replay_advance (a
 * thousand-rep log is tens of thousands of them), so keys are read in
 * between.  Going backwards rebuilds the model from the start. */
static void
replay_seek(struct console *c, size_t target)
{
	struct console_replay *p = c->replay;

	if (target > p->n)
		target = p->n;
	if (target < p->pos) {
		model_restart(&c->m, p->spec);
		p->pos = 0;
		c->r.sel_leg = 0;
	}
	p->target = target;
	render_touch_replay(&c->r);
}

/* Where the player is, or is going. */
static size_t
replay_at(const struct console_replay *p)
{
	return p->pos < p->target ? p->target : p->pos;
}

/* One slice of a seek. */
static void
replay_seek_slice(struct console *c)
{
	struct console_replay *p = c->replay;
	double t0 = clock_now();

	while (p->pos < p->target && !replay_feed_one(c, t0))
		;
	render_touch_replay(&c->r);
}

static void
replay_schedule(struct console *c, double now)
{
	struct console_replay *p = c->replay;
	double gap = 0;

	if (p->pos > 0 && p->pos < p->n)
		gap = replay_ev_ts(p, p->pos) - replay_ev_ts(p, p->pos - 1);
	if (gap < 0)
		gap = 0;
	gap /= p->speed;
	p->due = now + (gap > REPLAY_GAP_MAX ? REPLAY_GAP_MAX : gap);
}

static double
replay_due_in(struct console *c, double now)
{
	struct console_replay *p = c->replay;

	if (p->pos < p->target)
		return 0;
	if (!p->playing || p->pos >= p->n)
		return -1;
	return p->due > now ? p->due - now : 0;
}

static void
replay_advance(struct console *c, double now)
{
	struct console_replay *p = c->replay;
	bool over = false;

	if (p->pos < p->target) {
		replay_seek_slice(c);
		return;
	}
	while (p->playing && p->pos < p->n && now >= p->due && !over) {
		over = replay_feed_one(c, now);
		render_touch_replay(&c->r);
		p->fed_at = p->due > now - 1 ? p->due : now;
		replay_schedule(c, p->fed_at);
	}
	if (p->pos >= p->n && p->playing) {
		p->playing = false;
		render_touch_replay(&c->r);
	}
}

/* The log's clock while playing: the last event's ts plus the time since,
 * times the speed, never past the next event. */
static double
replay_clock(struct console *c, double now)
{
	struct console_replay *p = c->replay;
	double t;

	if (!p->playing || p->pos == 0 || p->pos >= p->n)
		return c->m.last_ts;
	t = replay_ev_ts(p, p->pos - 1) + (now - p->fed_at) * p->speed;
	return t < replay_ev_ts(p, p->pos) ? t : replay_ev_ts(p, p->pos);
}

static int
replay_key(struct console *c, int key)
{
	struct console_replay *p = c->replay;
	size_t i;

	switch (key) {
	case ' ':
		p->playing = !p->playing && p->pos < p->n;
		p->fed_at = clock_now();
		replay_schedule(c, p->fed_at);
		break;
	case '+': case '=':
		p->speed = p->speed * 2 > REPLAY_SPEED_MAX ? REPLAY_SPEED_MAX : p->speed * 2;
		break;
	case '-': case '_':
		p->speed = p->speed / 2 < REPLAY_SPEED_MIN ? REPLAY_SPEED_MIN : p->speed / 2;
		break;
	case KEY_RIGHT: case 'l':
		for (i = replay_at(p); i < p->n && !replay_is_leg(p->ev[i]); i++)
			;
		p->playing = false;
		replay_seek(c, i < p->n ? i + 1 : p->n);
		break;
	case KEY_LEFT: case 'h': {
		/* Back to just after the leg before the last one shown. */
		size_t seen = 0, target = 0;
		for (i = replay_at(p); i > 0; i--)
			if (replay_is_leg(p->ev[i - 1]) && ++seen == 2) {
				target = i;
				break;
			}
		p->playing = false;
		replay_seek(c, target);
		break;
	}
	case KEY_HOME:
		p->playing = false;
		replay_seek(c, 0);
		break;
	case KEY_END:
		p->playing = false;
		replay_seek(c, p->n);
		break;
	default:
		return 0;
	}
	/* The player's line; the model's changes mark the rest. */
	render_touch_replay(&c->r);
	return 1;
}

static int
replay_fd(const struct console *c)
{
	(void)c;
	return -1;
}

static bool
replay_seeking(const struct console *c)
{
	return c->replay->pos < c->replay->target;
}

static bool
replay_clock_moves(const struct console *c)
{
	return c->replay->playing && c->m.cur_active;
}

static bool
replay_running(const struct console *c)
{
	(void)c;
	return false;
}

static void
replay_abort(struct console *c, const char *reason)
{
	(void)c;
	(void)reason;
}

/* The player's place in the header. */
static void
replay_status(struct console *c)
{
	c->r.replay = true;
	c->r.replay_playing = c->replay->playing;
	c->r.replay_speed = c->replay->speed;
	c->r.replay_pos = c->replay->pos;
	c->r.replay_len = c->replay->n;
}

const struct console_source replay_source = {
	.fd = replay_fd,
	.due_in = replay_due_in,
	.feed = replay_advance,
	.seeking = replay_seeking,
	.clock = replay_clock,
	.clock_moves = replay_clock_moves,
	.running = replay_running,
	.key = replay_key,
	.abort = replay_abort,
	.status = replay_status,
	.signal_status = -1,
};

static int replay_headless(const char *log);

int
console_replay(const char *log_path, double speed, bool instant,
    const char *theme)
{
	struct events e = { 0 };
	struct console_replay p;
	struct console c;
	struct spec *spec = NULL;
	int rc;

	if ((rc = replay_load(log_path, &e, &spec)) != 0)
		return rc;
	memset(&c, 0, sizeof c);
	memset(&p, 0, sizeof p);
	c.ev_fd = c.ev_wfd = -1;
	p.ev = e.ev;
	p.n = e.n;
	p.speed = speed > 0 ? speed : 1;
	p.spec = spec;
	c.replay = &p;
	c.src = &replay_source;
	model_init(&c.m);
	model_set_replay(&c.m);
	if (spec) {
		char dir[PATH_MAX];

		model_set_spec(&c.m, spec);
		/* The folder as given, where its legs' output is now. */
		replay_log_dir(log_path, dir, sizeof dir);
		model_set_dir(&c.m, dir);
	}
	if (console_start(&c, theme) < 0) {
		rc = replay_headless(log_path);
		goto out;
	}
	c.r.replay = true;
	if (instant) {
		/* The end, ratios and all, on the first screen: a start, no key
		 * waits for it. */
		while (p.pos < p.n)
			model_feed(&c.m, p.ev[p.pos++]);
		(void)model_ratios(&c.m);
	} else {
		p.playing = true;
		p.due = clock_now();
	}
	c.exit_code = 0; /* a signal ends a replay too: no round to abort */
	rc = console_loop(&c);
out:
	model_finish(&c.m);
	spec_destroy(spec);
	replay_events_free(&e);
	return rc;
}

/* --headless or a stdout that is not a terminal: the headless printer. */
static int
replay_headless(const char *log)
{
	struct events e = { 0 };
	struct spec *spec = NULL;
	struct headless *h;
	int rc;

	if ((rc = replay_load(log, &e, &spec)) != 0)
		return rc;
	h = headless_create(stdout, spec);
	if (!h) {
		rc = 1;
		goto out;
	}
	for (size_t i = 0; i < e.n; i++)
		headless_event(h, e.ev[i]);
	headless_finish(h);
	headless_destroy(h);
	fflush(stdout);
out:
	spec_destroy(spec);
	replay_events_free(&e);
	return rc;
}

enum { OPT_INSTANT = 1, OPT_HEADLESS, OPT_SPEED, OPT_THEME };

static const struct opts_opt cmd_replay_rows[] = {
	{ "speed", 0, "X", 0, OPT_SPEED, "play X times faster than recorded" },
	{ "instant", 0, NULL, OPTS_OR, OPT_INSTANT, "show the end state at "
	  "once" },
	{ "headless", 0, NULL, 0, OPT_HEADLESS, "print the legs and the "
	  "summary instead" },
	{ "theme", 0, "NAME", 0, OPT_THEME, "the console's colours" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

/* "benchtui --replay" is the same command (main.c). */
const struct opts_cmd cmd_replay_opts = {
	"replay", "DIR|LOG.jsonl",
	"Show a recorded round in the console, as it happened.",
	"benchtui-replay(1)", cmd_replay_rows,
};

int
cmd_replay(int argc, char **argv)
{
	const char *input = NULL, *theme = NULL;
	double speed = 1;
	bool instant = false, headless = false, have_speed = false;
	struct stat st;
	char *log, *end;
	struct opts_parser p;
	int c, rc;

	opts_init(&p, &cmd_replay_opts, argc, argv);
	while ((c = opts_next(&p)) != OPTS_END) {
		switch (c) {
		case OPTS_STOP:
			return p.status;
		case OPT_INSTANT:
			instant = true;
			break;
		case OPT_HEADLESS:
			headless = true;
			break;
		case OPT_SPEED:
			speed = strtod(p.arg, &end);
			if (*end || !(speed > 0) || speed > 1e6)
				return opts_error(&cmd_replay_opts, "--speed: "
				    "'%s' is not a positive number", p.arg);
			have_speed = true;
			break;
		case OPT_THEME:
			theme = p.arg;
			break;
		}
	}
	if ((rc = cmd_operand(argc, argv, &cmd_replay_opts, "no log given",
	    "more than one log given ('%s')", &input)) != 0)
		return rc;
	/* A round folder, as report takes: its log. */
	log = cmd_log_path(input, stat(input, &st) == 0 && S_ISDIR(st.st_mode));
	if (instant && have_speed)
		rc = opts_error(&cmd_replay_opts,
		    "--speed and --instant exclude each other");
	else if (headless || !isatty(STDOUT_FILENO))
		rc = replay_headless(log);
	else
		rc = console_replay(log, speed, instant, theme);
	free(log);
	return rc;
}
