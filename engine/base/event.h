/* Events: the one stream everything else is built on.
 *
 * An event is a jansson object with "t" (type) and "ts" (UTC ISO 8601 with
 * milliseconds).  The engine creates them, the log writer appends them as
 * JSONL, front ends reduce them into a model, and replay reads them back.
 * Types and fields are SPEC.md's; types added here: "warning" (msg),
 * "quiet_wait" is not one -- gate waits are "quiet" events. */
#ifndef BENCHTUI_EVENT_H
#define BENCHTUI_EVENT_H

#include <jansson.h>
#include <stddef.h>

#define EVENT_TS_LEN 32

/* Write the current UTC time as "2026-11-29T15:04:05.123Z". */
void event_timestamp(char buf[EVENT_TS_LEN]);

/* A new event object {"t": type, "ts": now}; the caller owns the reference. */
json_t *event_new(const char *type);

/* The event as one compact line ending in '\n' (malloc'd), keys in
 * insertion order, reals printed so that they read back exactly. */
char *event_line(const json_t *ev, size_t *len);

/* The type of an event, or NULL.  A legacy row (no "t" but "cell", "arm"
 * and "rep") is a "leg". */
const char *event_type(const json_t *ev);

#endif
