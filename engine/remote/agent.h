/* benchtui agent: the far end of a cell server on another host
 * (benchtui(1) REMOTE HOSTS).
 *
 * Run by ssh, it reads requests from in_fd and answers on out_fd, one
 * JSON object per line (wire.h), and does on its host what the round
 * driver does for a local server, with the same code: starts, pins and
 * waits on the server (server.c), measures its tree over each window
 * (srvmeter.c), holds the quiet gate (quiet.c), stops it by pid and its
 * tree, and reports the host's facts and binaries (provenance.c).
 *
 * It writes only into dir (the servers' logs), refuses a client whose
 * version or protocol is not its own, and when in_fd closes (a dropped connection, a
 * killed benchtui) or SIGTERM, SIGINT or SIGHUP comes, ends its server's
 * whole tree within AGENT_END_S and exits. */
#ifndef BENCHTUI_AGENT_H
#define BENCHTUI_AGENT_H

#include <stddef.h>

/* SIGTERM's grace for the server when the agent's input closes: the
 * tree is gone within 2 s of the close. */
#define AGENT_END_GRACE_S 1.0

/* For the test suite only: a version the agent says it is instead of its
 * own, so a refusal can be shown without a second build. */
#define AGENT_VERSION_ENV "BENCHTUI_TEST_AGENT_VERSION"
/* The same for the protocol's number (wire.h's WIRE_PROTOCOL). */
#define AGENT_PROTOCOL_ENV "BENCHTUI_TEST_AGENT_PROTOCOL"

/* Serve requests until in_fd closes.  dir is made (its last component)
 * when missing; a dir that cannot be made is said in the reply to
 * hello.  The exit status: 0 after the input closed, 2 when the client
 * was refused (another version), 1 when out_fd failed. */
int agent_run(const char *dir, int in_fd, int out_fd);

#endif
