/* The agent protocol's wire (benchtui(1) REMOTE HOSTS): one JSON object
 * per line, both ways, each line at most WIRE_LINE_MAX bytes.  The one
 * reader and writer of those lines, for the agent and its client alike:
 * a line that is not one object is named by its number. */
#ifndef BENCHTUI_WIRE_H
#define BENCHTUI_WIRE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define WIRE_LINE_MAX (1 << 20)

/* Lines read from fd, counted from 1. */
struct wire_in {
	int fd;
	char *buf;
	size_t len, cap;
	unsigned long line;      /* the last line read */
	bool eof;
	size_t max;              /* a line's limit (0: WIRE_LINE_MAX) */
	bool strict;             /* a line past max is not read to its end:
	                          * the caller drops the connection */
};

enum wire_got {
	WIRE_MSG,      /* *msg: one object (the caller's reference) */
	WIRE_EOF,      /* the other end closed (nothing half-read kept) */
	WIRE_BAD,      /* a line that is not one object: err names it */
	WIRE_TIMEOUT,  /* timeout_ms passed */
	WIRE_WOKEN,    /* wake_fd became readable first (not drained) */
	WIRE_IO,       /* read failed: err says why */
};

void wire_in_init(struct wire_in *in, int fd);
void wire_in_free(struct wire_in *in);

/* Whether a whole line waits in the buffer already (a poll of fd would
 * not show it). */
bool wire_pending(const struct wire_in *in);

/* The next message: waits up to timeout_ms (< 0: no limit; 0: only what
 * has arrived) for fd, or for wake_fd (-1: none) to become readable.  A
 * bad line's err reads "line N: what is wrong: 'its start'". */
enum wire_got wire_read(struct wire_in *in, int timeout_ms, int wake_fd,
    json_t **msg, char *err, size_t errlen);

/* msg as one line to fd (a whole write, retried on a short one); a
 * socket never raises SIGPIPE.  0, or -1 with errno (EPIPE: the other
 * end has gone). */
int wire_write(int fd, const json_t *msg);

/* This benchtui's version as the protocol compares it. */
const char *wire_version(void);

struct quiet_params;

/* hello's quiet object: the settings a gate runs with, as the client
 * asks for them and the agent answers what it runs (a new object). */
json_t *wire_quiet_json(const struct quiet_params *q);

/* The protocol a hello speaks: its "protocol", 1 where it has none (the
 * first protocol had no number). */
long long wire_protocol_of(const json_t *hello);

/* The protocol's own number, compared with the version at hello: two
 * builds of one version that speak different messages must not talk.
 * 1 (a hello without "protocol"): the far gate held by its own
 * timeout_s alone.  2: hello's quiet carries the round's budget_s,
 * max_server_busy and probe settings; open carries what is left of the
 * budget, the round's release and the leg's probe; open and close answer
 * the far gate's wait, server_busy and probe. */
#define WIRE_PROTOCOL 2

#endif
