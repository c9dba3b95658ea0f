/* Fuzz target: one line from a far side (an agent's answer or event, as
 * the client reads it: JSON, at most a line) through every check the
 * client runs on it (remote_check.c).  What a check builds must be
 * printable text and finite numbers only; nothing it reads may crash it. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "fuzz.h"
#include "remote_int.h"

static char *const fuzz_names[] = { "cycles", "instructions", "task-clock",
	NULL };

/* Every number a check kept is finite; every text has no control byte. */
static void
fuzz_remote_clean(const json_t *v)
{
	const char *k;
	json_t *m;
	size_t i;

	if (json_is_real(v) && !isfinite(json_real_value(v)))
		abort();
	if (json_is_string(v))
		for (const char *c = json_string_value(v); *c != '\0'; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				abort();
	if (json_is_array(v))
		json_array_foreach(v, i, m)
			fuzz_remote_clean(m);
	if (json_is_object(v))
		json_object_foreach((json_t *)v, k, m)
			fuzz_remote_clean(m);
}

static void
fuzz_remote_kept(json_t *out)
{
	if (out == NULL)
		return;
	fuzz_remote_clean(out);
	json_decref(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES,
	    NULL), *progs, *t;
	char why[320];

	if (!json_is_object(j)) {
		json_decref(j);
		return 0;
	}
	progs = json_pack("[s,s]", "/bin/a", "/bin/b");
	fuzz_remote_kept(remote_check_event(j, 10, why, sizeof why));
	fuzz_remote_kept(remote_check_hello(j, why, sizeof why));
	fuzz_remote_kept(remote_check_bins(json_object_get(j, "bins"), progs,
	    why, sizeof why));
	fuzz_remote_kept(remote_check_start(j, why, sizeof why));
	fuzz_remote_kept(remote_check_open(j, 10, why, sizeof why));
	fuzz_remote_kept(remote_check_close(j, fuzz_names, why, sizeof why));
	fuzz_remote_kept(remote_check_stop(j, why, sizeof why));
	fuzz_remote_kept(remote_check_leg(j, 10, fuzz_names, 1 << 20, why,
	    sizeof why));
	t = remote_text(json_object_get(j, "error"), 60);
	fuzz_remote_kept(t);
	json_decref(progs);
	json_decref(j);
	return 0;
}
