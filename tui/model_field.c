/* model: an event's fields read as the reducer wants them (a missing or
 * mistyped field is NULL, NAN or a default), and a name copied into its
 * slot.  model.c and model_gate.c both call it; it calls neither. */
#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "model_int.h"

void
model_copy_name(char dst[MODEL_NAME], const char *src)
{
	snprintf(dst, MODEL_NAME, "%s", src ? src : "");
}

const char *
model_get_str(const json_t *ev, const char *key)
{
	const json_t *v = json_object_get(ev, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* A number, or NAN when missing or null. */
double
model_get_num(const json_t *ev, const char *key)
{
	const json_t *v = json_object_get(ev, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

int
model_get_int(const json_t *ev, const char *key, int dflt)
{
	const json_t *v = json_object_get(ev, key);
	double d = json_is_real(v) ? json_real_value(v) : 0;

	/* Out of int's range is dflt: converting such a real is undefined
	 * (found by fuzz/fuzz_logread.c: "rep": 99999e99). */
	if (json_is_integer(v))
		return json_integer_value(v) >= INT_MIN &&
		    json_integer_value(v) <= INT_MAX ?
		    (int)json_integer_value(v) : dflt;
	return json_is_real(v) && d >= INT_MIN && d <= INT_MAX ? (int)d : dflt;
}
