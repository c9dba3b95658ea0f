/* The round file's "quiet" field: the quiet gate's settings, and the one
 * JSON form of them (environment.json's settings, the round event). */
#include <string.h>

#include "quiet.h"
#include "spec.h"
#include "spec_int.h"

int
spec_parse_quiet(struct parser *p, json_t *j)
{
	static const char *const keys[] = { "max_foreign_cores", "window_ms",
	    "timeout_s", "budget_s", "on_timeout", "max_client_busy",
	    "max_server_busy", "probe", NULL };
	struct spec_quiet *q = &p->s->quiet;
	json_t *v;

	/* true means the gate with its defaults, as if the key were absent. */
	if (json_is_boolean(j)) {
		q->enabled = json_is_true(j);
		return 0;
	}
	if (!json_is_object(j))
		return spec_perr(p, "quiet", "must be an object or false, not %s",
		    spec_json_type(j));
	if (spec_check_keys(p, j, "quiet", keys) < 0)
		return -1;
	if ((v = json_object_get(j, "max_foreign_cores")) != NULL &&
	    spec_want_number(p, v, "quiet.max_foreign_cores", 0, false,
	    &q->max_foreign_cores) < 0)
		return -1;
	if ((v = json_object_get(j, "window_ms")) != NULL &&
	    spec_want_int(p, v, "quiet.window_ms", 1, 3600000, &q->window_ms) < 0)
		return -1;
	if ((v = json_object_get(j, "timeout_s")) != NULL &&
	    spec_want_number(p, v, "quiet.timeout_s", 0, true, &q->timeout_s) < 0)
		return -1;
	if ((v = json_object_get(j, "budget_s")) != NULL &&
	    spec_want_number(p, v, "quiet.budget_s", 0, false, &q->budget_s) < 0)
		return -1;
	if ((v = json_object_get(j, "max_client_busy")) != NULL &&
	    spec_want_number(p, v, "quiet.max_client_busy", 0, false,
	    &q->max_client_busy) < 0)
		return -1;
	if ((v = json_object_get(j, "max_server_busy")) != NULL &&
	    spec_want_number(p, v, "quiet.max_server_busy", 0, false,
	    &q->max_server_busy) < 0)
		return -1;
	if ((v = json_object_get(j, "probe")) != NULL) {
		const char *o = json_string_value(v);

		if (json_is_boolean(v))
			q->probe = json_is_true(v) ? SPEC_PROBE_ON : SPEC_PROBE_OFF;
		else if (o != NULL && strcmp(o, "auto") == 0)
			q->probe = SPEC_PROBE_AUTO;
		else if (o != NULL)
			return spec_perr(p, "quiet.probe", "must be true, false "
			    "or \"auto\", not \"%.40s\"", o);
		else
			return spec_perr(p, "quiet.probe", "must be true, false "
			    "or \"auto\", not %s", spec_json_type(v));
	}
	if ((v = json_object_get(j, "on_timeout")) != NULL) {
		const char *o = json_string_value(v);

		if (o != NULL && strcmp(o, "abort") == 0)
			q->abort_on_timeout = true;
		else if (o != NULL && strcmp(o, "proceed") == 0)
			q->abort_on_timeout = false;
		else
			return spec_perr(p, "quiet.on_timeout", "must be \"abort\" "
			    "or \"proceed\"");
	}
	return 0;
}

json_t *
spec_quiet_json(const struct spec_quiet *q)
{
	json_t *o = json_object();

	json_object_set_new(o, "enabled", json_boolean(q->enabled));
	if (!q->enabled)
		return o;
	json_object_set_new(o, "max_foreign_cores",
	    json_real(q->max_foreign_cores));
	json_object_set_new(o, "window_ms", json_integer(q->window_ms));
	json_object_set_new(o, "timeout_s", json_real(q->timeout_s));
	/* null: the default budget, which scales with the legs' time. */
	json_object_set_new(o, "budget_s", q->budget_s >= 0 ?
	    json_real(q->budget_s) : json_null());
	json_object_set_new(o, "max_client_busy", json_real(q->max_client_busy));
	json_object_set_new(o, "max_server_busy", json_real(q->max_server_busy));
	json_object_set_new(o, "on_timeout", json_string(q->abort_on_timeout ?
	    "abort" : "proceed"));
	json_object_set_new(o, "probe", q->probe == SPEC_PROBE_AUTO ?
	    json_string("auto") : json_boolean(q->probe == SPEC_PROBE_ON));
	return o;
}

struct quiet_params
spec_quiet_params(const struct spec *s)
{
	const struct spec_quiet *q = &s->quiet;

	return (struct quiet_params){ .max_foreign_cores = q->max_foreign_cores,
	    .window_ms = q->window_ms, .timeout_s = q->timeout_s,
	    .budget_s = q->budget_s, .max_client_busy = q->max_client_busy,
	    .max_server_busy = q->max_server_busy, .probe_margin = s->margin,
	    .stay = true };
}
