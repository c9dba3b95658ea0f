/* console: the ncurses loop.  One poll over the keyboard, the engine's
 * event pipe, a self-pipe for signals and a timeout; redraws by dirty flags
 * at most 4 times a second (REDRAW_MIN_S), and about once a second while
 * nothing but a clock changes; a key's change is drawn at once.
 *
 * Nothing long runs between two polls: the ratios are brought up to date
 * in slices of WORK_SLICE_S (model_ratios_advance) and a replay seeks in
 * slices too, so a key waits for one slice at most, never for a whole
 * report. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "console.h"
#include "console_loop.h"
#include "escape.h"
#include "event.h"
#include "headless.h"
#include "round.h"
#include "words.h"
#include "xalloc.h"

#define REDRAW_MIN_S 0.25  /* at most 4 redraws a second */
#define CLOCK_S 1.0        /* the clock's tick while a leg runs */
#define WORK_SLICE_S 0.01  /* the ratios' work between two polls */

static volatile sig_atomic_t sig_winch, sig_term, sig_int;
static int sig_pipe[2] = { -1, -1 };
static bool curses_active;

/* The round a signal from its own tree is checked against. */
static struct round *volatile sig_round;

static void
console_on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	char b = (char)sig;

	(void)uc;
	/* Sent by a leg (or anything of the round's tree): the leg's doing,
	 * recorded on it; never an operator abort every resume repeats. */
	if (sig != SIGWINCH && round_signal_from_tree(sig_round, sig, si))
		return;

	if (sig == SIGWINCH)
		sig_winch = 1;
	else if (sig == SIGINT)
		sig_int = 1;
	else
		sig_term = sig;
	if (sig_pipe[1] >= 0 && write(sig_pipe[1], &b, 1) < 0) {
		/* the pipe is full: a wake-up is pending anyway */
	}
	errno = saved;
}

/* Every exit path restores the terminal, fatal ones included (out of
 * memory calls it before its message, so the message shows). */
static void
console_atexit(void)
{
	if (curses_active && !isendwin())
		endwin();
}

double
console_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
console_pipe_cloexec(int fds[2])
{
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	return 0;
}

static void
console_apply_theme(struct console *c)
{
	theme_apply(&c->theme, c->mono);
	snprintf(c->r.theme_name, sizeof c->r.theme_name, "%s", c->theme.name);
	render_touch_all(&c->r);
}

/* The signals to the self-pipe the loop polls: ours before initscr, so
 * ncurses leaves SIGWINCH to us.  0, or -1 when the pipe cannot be made. */
static int
console_route_signals(void)
{
	struct sigaction sa;

	if (sig_pipe[0] < 0) {
		if (console_pipe_cloexec(sig_pipe) < 0)
			return -1;
		fcntl(sig_pipe[0], F_SETFL, O_NONBLOCK);
		fcntl(sig_pipe[1], F_SETFL, O_NONBLOCK);
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = console_on_signal;
	/* the engine thread's syscalls carry on */
	sa.sa_flags = SA_RESTART | SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	return 0;
}

int
console_start(struct console *c, const char *theme)
{
	static bool atexit_done;
	const char *nc = getenv("NO_COLOR");
	SCREEN *scr;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "benchtui: no terminal on stdin for the console: printing headless\n");
		return -1;
	}
	c->mono = nc && *nc;
	/* Theme warnings go to stderr before the screen takes over. */
	if (theme_load(&c->theme, theme ? theme : c->mono ? "mono" : "default",
	    stderr) < 0 && theme)
		theme_load(&c->theme, "default", stderr);
	for (size_t i = 0; i < theme_count; i++)
		if (strcmp(theme_names[i], c->theme.name) == 0)
			c->theme_idx = i;

	if (console_route_signals() < 0)
		return -1;
	/* The terminal's character set only (ncurses draws UTF-8 by it): the
	 * rest of the locale (LC_NUMERIC's decimal comma) would reach every
	 * number printed and read, the engine's sealed files among them. */
	setlocale(LC_CTYPE, "");
	if (!atexit_done) {
		atexit(console_atexit);
		xalloc_set_fatal_hook(console_atexit);
		atexit_done = true;
	}
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		fprintf(stderr, "benchtui: cannot start the console on TERM=%s: printing headless\n",
		    getenv("TERM") ? getenv("TERM") : "(unset)");
		return -1;
	}
	/* A terminal that cannot move the cursor (TERM=dumb, an editor's
	 * shell buffer) would get a blank or garbled screen. */
	const char *cup = tigetstr("cup");
	if (cup == NULL || cup == (char *)-1) {
		endwin();
		delscreen(scr);
		fprintf(stderr, "benchtui: TERM=%s cannot move the cursor: printing headless\n",
		    getenv("TERM") ? getenv("TERM") : "(unset)");
		return -1;
	}
	curses_active = c->curses_on = true;
	raw();          /* Ctrl-C arrives as a key: it acts as q */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	if (!has_colors())
		c->mono = true;
	if (!c->mono) {
		start_color();
		use_default_colors();
	}
	if (c->mono && !theme)
		theme_load(&c->theme, "mono", NULL);
	refresh();      /* stdscr once; afterwards only the panes draw */
	render_init(&c->r);
	console_apply_theme(c);
	c->last_draw = 0;
	return 0;
}

void
console_stop(struct console *c)
{
	if (c->curses_on) {
		render_finish(&c->r);
		endwin();
		c->curses_on = false;
		curses_active = false;
	}
}

/* One line of a leg's output made safe for the terminal (escape.h): a
 * tab becomes a space, control bytes and bytes that are not UTF-8 (a
 * binary leg's output) are shown as \xNN, never sent raw. */
static void
console_escape_line(const char *in, size_t n, char *out, size_t outlen)
{
	(void)escape_text(in, n, out, outlen, ESCAPE_TAB_SPACE, NULL);
}

/* The last nlines lines of a leg's output file (its tail only), escaped,
 * each at most width bytes, into lines (nlines rows of width). */
static void
console_read_tail(const char *dir, const char *rel, char *lines, int nlines,
    size_t width)
{
	char path[PATH_MAX], buf[8192];
	ssize_t got;
	off_t size;
	int fd, n = 0;
	char *end;

	for (int i = 0; i < nlines; i++)
		lines[(size_t)i * width] = '\0';
	if (!dir || !rel)
		return;
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	size = lseek(fd, 0, SEEK_END);
	if (size > (off_t)sizeof buf - 1)
		lseek(fd, size - (off_t)sizeof buf + 1, SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	got = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (got <= 0)
		return;
	buf[got] = '\0';
	/* Walk back over the last nlines lines (a line is cut at 4 KiB). */
	end = buf + got;
	while (end > buf && end[-1] == '\n')
		end--;
	while (n < nlines && end > buf) {
		char *p = end;

		while (p > buf && p[-1] != '\n' && end - p < 4096)
			p--;
		n++;
		console_escape_line(p, (size_t)(end - p), lines + (size_t)(nlines - n) *
		    width, width);
		if (p == buf)
			break;
		end = p[-1] == '\n' ? p - 1 : p;
	}
	/* Move them to the top. */
	if (n < nlines) {
		for (int i = 0; i < n; i++)
			memcpy(lines + (size_t)i * width, lines + (size_t)(nlines -
			    n + i) * width, width);
		for (int i = n; i < nlines; i++)
			lines[(size_t)i * width] = '\0';
	}
}

static void
console_feed_line(struct console *c, const char *line)
{
	json_error_t jerr;
	json_t *ev = json_loads(line, 0, &jerr);

	if (!json_is_object(ev)) {
		json_decref(ev);
		return;
	}
	model_feed(&c->m, ev);
	json_decref(ev);
}

/* Read what the engine wrote; whole lines are events. */
static void
console_drain_events(struct console *c)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(c->ev_fd, buf, sizeof buf)) > 0) {
		size_t start = 0;
		if (c->evlen + (size_t)n + 1 > c->evcap) {
			c->evcap = xgrow(c->evcap, c->evlen + (size_t)n + 1, 4096);
			c->evbuf = xrealloc(c->evbuf, c->evcap);
		}
		memcpy(c->evbuf + c->evlen, buf, (size_t)n);
		c->evlen += (size_t)n;
		c->evbuf[c->evlen] = '\0';
		for (size_t i = 0; i < c->evlen; i++)
			if (c->evbuf[i] == '\n') {
				c->evbuf[i] = '\0';
				console_feed_line(c, c->evbuf + start);
				start = i + 1;
			}
		memmove(c->evbuf, c->evbuf + start, c->evlen - start);
		c->evlen -= start;
	}
	if (n == 0) {
		/* EOF: the engine thread returned and closed its end. */
		pthread_join(c->thread, NULL);
		c->thread_started = false;
		close(c->ev_fd);
		c->ev_fd = -1;
		c->engine_done = true;
		if (c->engine_rc == ROUND_EXIT_FAIL &&
		    c->m.state != MODEL_ABORTED)
			model_set_failed(&c->m, c->engine_err);
		else if (c->engine_rc == ROUND_EXIT_ABORTED)
			model_set_aborted(&c->m);
		c->exit_code = c->engine_rc;
		if (c->quit_when_done || c->end_quits)
			c->quit = true;
		/* A question about a round that has ended on its own is moot. */
		if (c->r.overlay == OVERLAY_CONFIRM_QUIT ||
		    c->r.overlay == OVERLAY_CONFIRM_ABORT) {
			c->r.overlay = OVERLAY_NONE;
			snprintf(c->r.message, sizeof c->r.message,
			    "the round has ended on its own; q quits");
			render_touch_all(&c->r);
		}
	}
}

/* A round whose engine still runs (the live source's running, too). */
static bool
console_round_live(const struct console *c)
{
	return c->round && !c->engine_done;
}

/* The operator's abort (a then y, or q then y): once the engine has
 * stopped there is nothing left to watch, so the console exits 3. */
static void
console_ask_abort(struct console *c)
{
	c->src->abort(c, "operator");
	model_set_aborting(&c->m);
	c->quit_when_done = true;
	snprintf(c->r.message, sizeof c->r.message,
	    "aborting: ending the current leg");
}

static void
console_key_dispatch(struct console *c, int key)
{
	struct render *r = &c->r;

	if (r->overlay == OVERLAY_CONFIRM_ABORT || r->overlay == OVERLAY_CONFIRM_QUIT) {
		/* Ctrl-C twice: abort (resumable) and quit without asking. */
		if (key == 3 && r->overlay == OVERLAY_CONFIRM_QUIT)
			key = 'y';
		if (key == 'y' || key == 'Y') {
			r->overlay = OVERLAY_NONE;
			if (c->src->running(c))
				console_ask_abort(c);
			else
				c->quit = true;
		} else if (key == 'n' || key == 'N' || key == 27 || key == 'q')
			r->overlay = OVERLAY_NONE;
		return;
	}
	if (r->overlay == OVERLAY_NONE) {
		if (c->src->key(c, key))
			return;
		switch (key) {
		case 'q': case 'Q': case 3: /* Ctrl-C acts as q */
			if (c->src->running(c) && !c->quit_when_done)
				r->overlay = OVERLAY_CONFIRM_QUIT;
			else if (!c->src->running(c) || key == 3)
				c->quit = true; /* Ctrl-C while aborting: go */
			return;
		case 'a': case 'A':
			if (c->src->running(c) && !c->quit_when_done)
				r->overlay = OVERLAY_CONFIRM_ABORT;
			return;
		case 'p': case 'P': case 'g': case 'G':
			return; /* steering, with nothing to steer */
		case '?':
			r->overlay = OVERLAY_HELP;
			return;
		case 'w': case 'W':
			r->overlay = OVERLAY_LOG;
			r->log_back = 0;
			return;
		case 't': case 'T':
			c->theme_idx = (c->theme_idx + 1) % theme_count;
			theme_load(&c->theme, theme_names[c->theme_idx], NULL);
			console_apply_theme(c);
			snprintf(r->message, sizeof r->message, "theme %s",
			    c->theme.name);
			return;
		case KEY_RESIZE:
			return;
		}
	}
	if (render_key(r, &c->m, key) & RENDER_KEY_DETAIL) {
		const struct model_leg *l = &c->m.legs[r->detail_leg];
		const json_t *out = json_object_get(l->start ? l->start : l->ev, "out");
		console_read_tail(c->m.dir, json_string_value(out), &r->detail_tail[0][0],
		    RENDER_TAIL_LINES, sizeof r->detail_tail[0]);
	}
}

/* A key redraws what it changed: the pane it acts on (render_key marks
 * it), the footer's note, every pane when an overlay opens or closes; the
 * model's changes (a pause, an abort asked) mark their own. */
static void
console_handle_key(struct console *c, int key)
{
	struct render *r = &c->r;
	enum render_overlay overlay = r->overlay;
	bool note = r->message[0] != '\0';

	r->message[0] = '\0';
	console_key_dispatch(c, key);
	if (r->overlay != overlay)
		render_touch_all(r);
	if (note || r->message[0] != '\0')
		r->dirty |= 1u << PANE_FOOTER;
}

static void
console_handle_resize(struct console *c)
{
	struct winsize ws;

	sig_winch = 0;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
	/* stdscr was touched by the resize; settle it so a later getch does
	 * not paint it over the panes. */
	werase(stdscr);
	wnoutrefresh(stdscr);
	render_layout(&c->r);
}

static void
console_draw(struct console *c, double mono_now)
{
	double now = c->src->clock(c, mono_now);

	/* The running leg's last output line, when its pane is drawn. */
	if (!c->m.cur_active)
		c->r.out_tail[0] = '\0';
	else if (c->r.dirty & (1u << PANE_CURRENT))
		console_read_tail(c->m.dir, c->m.cur_out, c->r.out_tail, 1,
		    sizeof c->r.out_tail);
	c->src->status(c);
	render_draw(&c->r, &c->m, now);
	c->last_draw = mono_now;
}

/* The ratios' next slice, unless the source is catching up (a replay's
 * seek: the legs it feeds would make the work stale at once); true while
 * more remains. */
static bool
console_work(struct console *c)
{
	if (c->src->seeking(c))
		return true;
	return !model_ratios_advance(&c->m, clock_now() + WORK_SLICE_S);
}

/* The poll's timeout in ms: none while work remains, else until the next
 * draw, clock tick or event due (-1: none). */
static int
console_timeout(struct console *c, double now, double last_clock, bool work)
{
	double wait_s = -1, rt;

	if (work)
		return 0;
	if (c->r.dirty)
		wait_s = REDRAW_MIN_S - (now - c->last_draw);
	else if (c->src->clock_moves(c))
		wait_s = CLOCK_S - (now - last_clock);
	if ((rt = c->src->due_in(c, now)) >= 0 &&
	    (wait_s < 0 || rt < wait_s))
		wait_s = rt;
	return wait_s < 0 ? -1 : (int)(wait_s * 1000) + 1;
}

/* After the screen is gone, what the round found stays on the terminal:
 * the summary headless and report print (words_summary). */
static void
console_print_summary(struct console *c)
{
	/* A bisect's step is said in a line of its own. */
	if (c->m.nlegs == 0 || c->end_quits)
		return;
	words_summary(model_ratios(&c->m), stdout, WORDS_TEXT);
	fflush(stdout);
}

int
console_loop(struct console *c)
{
	double last_clock = clock_now();
	bool work = true, keyed = false;

	render_touch_all(&c->r);
	while (!c->quit) {
		struct pollfd pfd[3];
		nfds_t n = 0;
		double now = clock_now();
		int timeout, key;
		char drain[64];

		render_touch_changes(&c->r, model_take_changes(&c->m));
		if (c->src->clock_moves(c) && now - last_clock >= CLOCK_S) {
			render_touch_clock(&c->r, &c->m);
			last_clock = now;
		}
		if (c->r.dirty && (keyed || now - c->last_draw >= REDRAW_MIN_S))
			console_draw(c, now);
		keyed = false;
		timeout = console_timeout(c, now, last_clock, work);

		pfd[n++] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = sig_pipe[0], .events = POLLIN };
		if (c->src->fd(c) >= 0)
			pfd[n++] = (struct pollfd){ .fd = c->src->fd(c),
			    .events = POLLIN };
		if (poll(pfd, n, timeout) < 0 && errno != EINTR)
			break;

		while (read(sig_pipe[0], drain, sizeof drain) > 0)
			;
		if (sig_term)
			break;
		if (sig_winch)
			console_handle_resize(c);
		if (sig_int) {
			sig_int = 0;
			console_handle_key(c, 3);
		}
		if (pfd[0].revents & (POLLHUP | POLLERR)) {
			sig_term = SIGHUP; /* the terminal went away */
			break;
		}
		while ((key = getch()) != ERR) {
			console_handle_key(c, key);
			keyed = true;
		}
		if (keyed) {
			/* Drawn before any more work: what the key changed. */
			work = true;
			continue;
		}
		c->src->feed(c, clock_now());
		work = console_work(c);
	}
	if (c->src->running(c)) {
		/* SIGTERM, SIGHUP, a lost terminal or a failed poll: stop
		 * resumably, then leave.  The engine still writes events until
		 * it returns, and the round must not be freed under it. */
		c->src->abort(c, sig_term == SIGHUP ? "hangup (SIGHUP)" :
		    sig_term == SIGTERM ? "terminated (SIGTERM)" :
		    sig_term ? "signal" : "console");
		while (c->src->fd(c) >= 0) {
			struct pollfd p = { .fd = c->src->fd(c), .events = POLLIN };
			poll(&p, 1, 1000);
			c->src->feed(c, clock_now());
		}
	}
	if (sig_term && c->src->signal_status >= 0)
		c->exit_code = c->src->signal_status;
	console_stop(c);
	console_print_summary(c);
	return c->exit_code;
}

/* --- the live round's source ------------------------------------------ */

static int
console_live_fd(const struct console *c)
{
	return c->ev_fd;
}

static double
console_live_due_in(struct console *c, double now)
{
	(void)c;
	(void)now;
	return -1;
}

static void
console_live_feed(struct console *c, double now)
{
	(void)now;
	if (c->ev_fd >= 0)
		console_drain_events(c);
}

static double
console_live_clock(struct console *c, double now)
{
	(void)c;
	(void)now;
	return console_wall();
}

static bool
console_live_clock_moves(const struct console *c)
{
	return (c->m.state == MODEL_RUNNING || c->m.state == MODEL_PAUSED ||
	    c->m.state == MODEL_ABORTING) && !c->engine_done;
}

/* p pauses between legs, g lets a held leg past the quiet gate, G the
 * rest of the round. */
static int
console_live_key(struct console *c, int key)
{
	struct render *r = &c->r;

	switch (key) {
	case 'p': case 'P':
		if (console_round_live(c)) {
			c->paused_req = !(c->m.state == MODEL_PAUSED ||
			    c->paused_req);
			round_pause(c->round, c->paused_req);
			snprintf(r->message, sizeof r->message, "%s",
			    c->paused_req ? "pausing after the current leg" :
			    "resuming");
		}
		return 1;
	case 'g': case 'G':
		if (console_round_live(c)) {
			round_release_gate(c->round, key == 'G');
			snprintf(r->message, sizeof r->message, "%s", key == 'G' ?
			    "the quiet gate lets the rest of the round go (no "
			    "more waits; logged, and each leg on a busy box is "
			    "marked waived)" : "the quiet gate lets this leg go "
			    "(logged, and the leg is marked waived)");
		}
		return 1;
	}
	return 0;
}

static void
console_live_abort(struct console *c, const char *reason)
{
	round_abort(c->round, reason);
}

static void
console_live_status(struct console *c)
{
	(void)c;
}

static bool
console_live_seeking(const struct console *c)
{
	(void)c;
	return false;
}

static const struct console_source console_live_source = {
	.fd = console_live_fd,
	.due_in = console_live_due_in,
	.feed = console_live_feed,
	.seeking = console_live_seeking,
	.clock = console_live_clock,
	.clock_moves = console_live_clock_moves,
	.running = console_round_live,
	.key = console_live_key,
	.abort = console_live_abort,
	.status = console_live_status,
	.signal_status = ROUND_EXIT_ABORTED,
};

static void
console_engine_event(const json_t *ev, void *arg)
{
	struct console *c = arg;
	size_t len = 0, off = 0;
	char *line = event_line(ev, &len);

	while (line && off < len) {
		ssize_t w = write(c->ev_wfd, line + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	free(line);
}

static void *
console_engine_main(void *arg)
{
	struct console *c = arg;

	c->engine_rc = round_run(c->round, c->engine_err, sizeof c->engine_err);
	close(c->ev_wfd);
	c->ev_wfd = -1;
	return NULL;
}

/* A live round on the console; with hunt (a bisect's step) the line
 * about the hunt in the header, and the console closes when the round
 * ends. */
static int
console_run_live(struct round *r, const char *theme, const char *hunt)
{
	struct console c;
	int fds[2], rc;

	memset(&c, 0, sizeof c);
	c.ev_fd = c.ev_wfd = -1;
	c.round = r;
	c.end_quits = hunt != NULL;
	c.src = &console_live_source;
	model_init(&c.m);
	if (round_spec(r))
		model_set_spec(&c.m, round_spec(r));
	/* No need to read the log here: for a resumed round the engine hands
	 * its earlier events to the callback before it carries on. */
	if (console_start(&c, theme) < 0) {
		/* No usable terminal: the round still runs, headless. */
		model_finish(&c.m);
		return headless_run_round(r);
	}
	if (hunt != NULL)
		snprintf(c.r.hunt, sizeof c.r.hunt, "%s", hunt);
	if (console_pipe_cloexec(fds) < 0) {
		console_stop(&c);
		fprintf(stderr, "benchtui: event pipe: %s\n", strerror(errno));
		model_finish(&c.m);
		return ROUND_EXIT_FAIL;
	}
	c.ev_fd = fds[0];
	c.ev_wfd = fds[1];
	sig_round = r;
	fcntl(c.ev_fd, F_SETFL, O_NONBLOCK);
	round_set_event_fn(r, console_engine_event, &c);
	if (pthread_create(&c.thread, NULL, console_engine_main, &c) != 0) {
		console_stop(&c);
		fprintf(stderr, "benchtui: cannot start the engine thread\n");
		model_finish(&c.m);
		return ROUND_EXIT_FAIL;
	}
	c.thread_started = true;
	rc = console_loop(&c);
	sig_round = NULL;
	if (c.engine_err[0] && rc != ROUND_EXIT_OK)
		fprintf(stderr, "benchtui: %s\n", c.engine_err);
	free(c.evbuf);
	model_finish(&c.m);
	return rc;
}

int
console_run_round(struct round *r, const char *theme)
{
	return console_run_live(r, theme, NULL);
}

int
console_run_step(struct round *r, const char *theme, const char *hunt)
{
	return console_run_live(r, theme, hunt);
}
