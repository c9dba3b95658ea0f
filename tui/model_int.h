/* Inside the console's model: what its files share.  Not the model's
 * public surface (model.h is).  Calls run one way: a file calls only the
 * files listed below it here.
 *
 *   model.c          the reducer: events in, the model's state
 *   model_gate.c     the quiet gate's part of it, and the ETA
 *   model_field.c    an event's fields read, a name copied
 *
 * tools/include-graph checks it from the objects (make check's
 * link_walls). */
#ifndef BENCHTUI_MODEL_INT_H
#define BENCHTUI_MODEL_INT_H

#include <jansson.h>
#include <stdbool.h>

#include "model.h"

/* model_field.c. */
void model_copy_name(char dst[MODEL_NAME], const char *src);
const char *model_get_str(const json_t *ev, const char *key);
/* A number, or NAN when missing or null. */
double model_get_num(const json_t *ev, const char *key);
int model_get_int(const json_t *ev, const char *key, int dflt);

/* model_gate.c: the quiet gate's events and what the legs say of it.
 * Whether a gate holds a leg: this machine's, or a server's host's. */
bool model_holding(const struct model *m);
void model_feed_quiet(struct model *m, const json_t *ev, double ts);
/* The entry of a server's host by name, added when new (NULL past
 * MODEL_HOSTS_MAX). */
struct model_host *model_host(struct model *m, const char *name);
/* A sample of a server's host's gate: its line in the quiet box; while
 * it holds, the gate waits as it does here. */
void model_feed_host_quiet(struct model *m, struct model_host *h,
    const json_t *ev, double ts);
/* A "gate" event (release, budget): MODEL_CHANGE_* bits. */
unsigned model_feed_gate(struct model *m, const json_t *ev);
/* The round event's "quiet" settings. */
void model_gate_round(struct model *m, const json_t *ev);
/* A leg line: its wait and how the gate let it go; counted (not a
 * warm-up, not aborted), its wait is the ETA's. */
void model_gate_leg(struct model *m, struct model_leg *l, const json_t *ev,
    bool counted);

#endif
