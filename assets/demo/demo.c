/* benchtui-demo: a small workload that behaves like a client under test.
 *
 *   benchtui-demo work [--mib N]
 *       copy N MiB (default 64) through a buffer in chunks of DEMO_CHUNK
 *       bytes (env, default 4096), checksumming as it goes; print the sum.
 *   benchtui-demo serve --port P
 *       answer requests on 127.0.0.1:P until SIGTERM (then exit 0).
 *   benchtui-demo client --port P [--requests N] [--bytes B]
 *       N request/response round trips over loopback, each response checked;
 *       non-zero exit on any mismatch.
 *
 * Every chunk pays a fixed framing cost (a short hash of the chunk's header)
 * on top of its bytes, as a real protocol would, so a smaller DEMO_CHUNK
 * costs more per byte and arms that set it differ for real.  DEMO_SPIN_MS
 * adds that many milliseconds of busy CPU (for tests).
 *
 * Protocol: the client sends 8 bytes (length, seed; big endian); the server
 * answers with `length` bytes of the stream generate(seed). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define DEMO_DEFAULT_CHUNK 4096
#define DEMO_FRAME_ROUNDS 96 /* framing cost per chunk */

static volatile sig_atomic_t demo_stop;

static size_t
demo_chunk(void)
{
	const char *s = getenv("DEMO_CHUNK");
	long v;

	if (s == NULL || *s == '\0')
		return DEMO_DEFAULT_CHUNK;
	v = strtol(s, NULL, 10);
	if (v < 16)
		v = 16;
	if (v > (1 << 24))
		v = 1 << 24;
	return (size_t)v;
}

static double
demo_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
demo_spin(void)
{
	const char *s = getenv("DEMO_SPIN_MS");
	volatile uint64_t x = 1;
	double end;

	if (s == NULL || *s == '\0')
		return;
	end = demo_now() + strtod(s, NULL) / 1000.0;
	while (demo_now() < end)
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
}

/* The per-chunk framing cost: mixing rounds the compiler cannot drop. */
static __attribute__((noinline)) uint64_t
demo_frame(uint64_t h, size_t off, size_t len)
{
	for (int i = 0; i < DEMO_FRAME_ROUNDS; i++) {
		h ^= (uint64_t)off + (uint64_t)len + (uint64_t)i;
		h *= 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h;
}

static uint64_t
demo_sum(uint64_t h, const unsigned char *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* Fill p with the stream for seed starting at byte offset off. */
static void
demo_generate(unsigned char *p, size_t len, uint32_t seed, size_t off)
{
	for (size_t i = 0; i < len; i++) {
		uint32_t x = seed ^ (uint32_t)(off + i) * 2654435761u;
		x ^= x >> 15;
		p[i] = (unsigned char)(x ^ (x >> 8));
	}
}

static int
demo_work(int argc, char **argv)
{
	size_t mib = 64, chunk = demo_chunk(), total, bufsz = 1 << 20;
	unsigned char *src, *dst;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--mib") == 0 && i + 1 < argc)
			mib = strtoul(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "benchtui-demo work: unknown argument '%s'\n",
			    argv[i]);
			return 2;
		}
	}
	if (chunk > bufsz)
		bufsz = chunk;
	src = malloc(bufsz);
	dst = malloc(bufsz);
	if (src == NULL || dst == NULL) {
		fprintf(stderr, "benchtui-demo work: out of memory\n");
		return 1;
	}
	demo_generate(src, bufsz, 42, 0);
	total = mib << 20;
	for (size_t done = 0, off = 0; done < total; ) {
		size_t n = chunk;

		if (n > total - done)
			n = total - done;
		if (off + n > bufsz)
			off = 0;
		memcpy(dst + off, src + off, n);
		h = demo_frame(h, off, n);
		h = demo_sum(h, dst + off, n);
		done += n;
		off += n;
	}
	demo_spin();
	printf("work: %zu MiB in chunks of %zu bytes, checksum %016llx\n",
	    mib, chunk, (unsigned long long)h);
	free(src);
	free(dst);
	return 0;
}

static int
demo_parse_port(const char *s)
{
	long v = strtol(s, NULL, 10);

	return v > 0 && v < 65536 ? (int)v : -1;
}

static int
demo_io(int fd, void *buf, size_t len, int writing)
{
	unsigned char *p = buf;

	while (len > 0) {
		ssize_t n = writing ? write(fd, p, len) : read(fd, p, len);

		if (n < 0 && errno == EINTR && !demo_stop)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void
demo_on_term(int sig)
{
	(void)sig;
	demo_stop = 1;
}

static int
demo_serve_conn(int fd, size_t chunk)
{
	unsigned char hdr[8], *buf = malloc(chunk);
	uint64_t h = 0;

	if (buf == NULL)
		return -1;
	while (!demo_stop) {
		uint32_t len, seed;

		if (demo_io(fd, hdr, sizeof hdr, 0) < 0)
			break;
		memcpy(&len, hdr, 4);
		memcpy(&seed, hdr + 4, 4);
		len = ntohl(len);
		seed = ntohl(seed);
		for (size_t off = 0; off < len; off += chunk) {
			size_t n = len - off < chunk ? len - off : chunk;

			demo_generate(buf, n, seed, off);
			h = demo_frame(h, off, n);
			if (demo_io(fd, buf, n, 1) < 0)
				goto out;
		}
	}
out:
	free(buf);
	return 0;
}

static int
demo_serve(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct sigaction act = { .sa_handler = demo_on_term };
	int port = -1, fd, one = 1;

	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--port") == 0 && i + 1 < argc)
			port = demo_parse_port(argv[++i]);
		else {
			fprintf(stderr, "benchtui-demo serve: unknown argument '%s'\n",
			    argv[i]);
			return 2;
		}
	}
	if (port < 0) {
		fprintf(stderr, "benchtui-demo serve: --port P (1-65535) is required\n");
		return 2;
	}
	/* No SA_RESTART: SIGTERM must break accept/read so we exit 0. */
	sigemptyset(&act.sa_mask);
	sigaction(SIGTERM, &act, NULL);
	sigaction(SIGINT, &act, NULL);
	signal(SIGPIPE, SIG_IGN);

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("benchtui-demo serve: socket");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
	    listen(fd, 16) < 0) {
		fprintf(stderr, "benchtui-demo serve: 127.0.0.1:%d: %s\n", port,
		    strerror(errno));
		return 1;
	}
	fprintf(stderr, "serve: listening on 127.0.0.1:%d, chunk %zu\n", port,
	    demo_chunk());
	while (!demo_stop) {
		int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

		if (c < 0) {
			if (errno == EINTR)
				continue;
			perror("benchtui-demo serve: accept");
			close(fd);
			return 1;
		}
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		demo_serve_conn(c, demo_chunk());
		close(c);
	}
	fprintf(stderr, "serve: stopped\n");
	close(fd);
	return 0;
}

static int
demo_client(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int port = -1, fd, one = 1, rc = 0;
	unsigned long requests = 200, bytes = 16384;
	size_t chunk = demo_chunk();
	unsigned char *got = NULL, *want = NULL;
	uint64_t h = 0;

	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--port") == 0 && i + 1 < argc)
			port = demo_parse_port(argv[++i]);
		else if (strcmp(argv[i], "--requests") == 0 && i + 1 < argc)
			requests = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--bytes") == 0 && i + 1 < argc)
			bytes = strtoul(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "benchtui-demo client: unknown argument '%s'\n",
			    argv[i]);
			return 2;
		}
	}
	if (port < 0 || bytes == 0 || bytes > (1UL << 30)) {
		fprintf(stderr, "benchtui-demo client: --port P is required and "
		    "--bytes must be 1..2^30\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		fprintf(stderr, "benchtui-demo client: connect 127.0.0.1:%d: %s\n",
		    port, strerror(errno));
		return 1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	got = malloc(bytes);
	want = malloc(chunk);
	if (got == NULL || want == NULL) {
		fprintf(stderr, "benchtui-demo client: out of memory\n");
		rc = 1;
		goto out;
	}
	for (unsigned long r = 0; r < requests; r++) {
		uint32_t hdr[2] = { htonl((uint32_t)bytes), htonl((uint32_t)r + 7) };

		if (demo_io(fd, hdr, sizeof hdr, 1) < 0 ||
		    demo_io(fd, got, bytes, 0) < 0) {
			fprintf(stderr, "benchtui-demo client: request %lu: "
			    "connection lost\n", r + 1);
			rc = 1;
			goto out;
		}
		for (size_t off = 0; off < bytes; off += chunk) {
			size_t n = bytes - off < chunk ? bytes - off : chunk;

			demo_generate(want, n, (uint32_t)r + 7, off);
			h = demo_frame(h, off, n);
			h = demo_sum(h, got + off, n);
			if (memcmp(want, got + off, n) != 0) {
				fprintf(stderr, "benchtui-demo client: request %lu: "
				    "response differs at byte %zu\n", r + 1, off);
				rc = 1;
				goto out;
			}
		}
	}
	demo_spin();
	printf("client: %lu requests of %lu bytes, chunk %zu, checksum %016llx\n",
	    requests, bytes, chunk, (unsigned long long)h);
out:
	free(got);
	free(want);
	close(fd);
	return rc;
}

int
main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "work") == 0)
		return demo_work(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "serve") == 0)
		return demo_serve(argc, argv);
	if (argc >= 2 && strcmp(argv[1], "client") == 0)
		return demo_client(argc, argv);
	fprintf(stderr, "usage: benchtui-demo work [--mib N]\n"
	    "       benchtui-demo serve --port P\n"
	    "       benchtui-demo client --port P [--requests N] [--bytes B]\n");
	return 2;
}
