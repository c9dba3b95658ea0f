/* Fuzz target: the agent protocol's lines (wire_read, the one reader of
 * both the agent and its client), each message then read as the agent
 * reads a request (its op, a start's fields: agent_start_check, which
 * runs nothing) and as the client reads a reply (its protocol, ok, id,
 * cause).  Input: the bytes one side sends the other. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "agent_int.h"
#include "fuzz.h"
#include "wire.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-wire", MFD_CLOEXEC);
	struct wire_in in;
	char err[512];
	json_t *msg, *r;
	enum wire_got got;

	if (fd < 0 || (size > 0 && write(fd, data, size) != (ssize_t)size) ||
	    lseek(fd, 0, SEEK_SET) != 0)
		abort();
	wire_in_init(&in, fd);
	/* A bad line ends the conversation, as both sides treat it. */
	while ((got = wire_read(&in, 0, -1, &msg, err, sizeof err)) ==
	    WIRE_MSG) {
		const char *op = agent_op(msg);
		if (op != NULL && strcmp(op, "start") == 0 &&
		    (r = agent_start_check(msg)) != NULL)
			json_decref(r);
		(void)wire_protocol_of(msg);
		(void)json_is_true(json_object_get(msg, "ok"));
		(void)json_integer_value(json_object_get(msg, "id"));
		(void)json_string_value(json_object_get(msg, "cause"));
		json_decref(msg);
	}
	if (got == WIRE_BAD && strncmp(err, "line ", 5) != 0)
		abort();
	wire_in_free(&in);
	close(fd);
	return 0;
}
