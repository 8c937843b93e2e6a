// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * perftest -R without its listen race, for the tests only.
 *
 * perftest's server (4.5, Debian 12) listens on its port for its control
 * connection, destroys that listener as soon as it has accepted, and only
 * after a handshake over the control connection listens on the same port
 * again, for the test's QPs. Its client connects them as soon as it has
 * the server's part of the handshake. A SYN that comes first gets a TCP
 * reset (no socket), whatever the RDMA device, and perftest's client
 * crashes in its retry (dp_lib.sh, pt_run). On a loaded host it happened
 * three times in a row to one CI run.
 *
 * This LD_PRELOAD library puts the two in order. Preloaded into both ends,
 * with PT_LISTEN_STATE naming a file both see:
 *  - the server writes "1" there when an rdma_listen() succeeds, and "0"
 *    before it destroys that listening ID (which perftest does before it
 *    sends anything over the control connection);
 *  - the client, in each rdma_resolve_addr(), first waits for the file to
 *    say "1": 30 s at most, then it goes on, to fail as it would have.
 * Without PT_LISTEN_STATE it changes nothing.
 *
 * For the test of this library: PT_LISTEN_DELAY_MS=N makes the server
 * sleep N ms before each listen after its first (the race, made certain),
 * and PT_LISTEN_VERBOSE=1 makes the client say how long it waited.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#define PT_WAIT_MS	30000
#define PT_POLL_MS	2

/* perftest's calls are made from one thread: no locking. */
static struct rdma_cm_id *pt_listener;	/* the ID listening now, if any */
static int pt_listens;			/* successful rdma_listen() calls */

static void *pt_real(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);

	if (!fn) {
		fprintf(stderr, "pt_listen_shim: no %s after this library\n",
			name);
		abort();
	}
	return fn;
}

static long pt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static void pt_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts))
		;
}

static void pt_state_write(char c)
{
	const char *path = getenv("PT_LISTEN_STATE");
	int fd;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, &c, 1) != 1)
		perror("pt_listen_shim: writing PT_LISTEN_STATE");
	if (fd >= 0)
		close(fd);
}

/* The file says "1"; a read between its truncation and its write: no. */
static int pt_state_listening(const char *path)
{
	char c = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '1';
}

static void pt_wait_listening(void)
{
	const char *path = getenv("PT_LISTEN_STATE");
	const char *verbose = getenv("PT_LISTEN_VERBOSE");
	long start = pt_now_ms(), waited;

	if (!path)
		return;
	while (!pt_state_listening(path)) {
		if (pt_now_ms() - start >= PT_WAIT_MS) {
			fprintf(stderr,
				"pt_listen_shim: the server did not listen in %d s: connecting all the same\n",
				PT_WAIT_MS / 1000);
			return;
		}
		pt_sleep_ms(PT_POLL_MS);
	}
	waited = pt_now_ms() - start;
	if (verbose && *verbose == '1')
		fprintf(stderr, "pt_listen_shim: waited %ld ms for the server's listen\n",
			waited);
}

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	static int (*real)(struct rdma_cm_id *, int);
	const char *delay = getenv("PT_LISTEN_DELAY_MS");
	int ret;

	if (!real)
		real = pt_real("rdma_listen");
	if (pt_listens && delay)
		pt_sleep_ms(atol(delay));
	ret = real(id, backlog);
	if (!ret) {
		pt_listener = id;
		pt_listens++;
		pt_state_write('1');
	}
	return ret;
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	static int (*real)(struct rdma_cm_id *);

	if (!real)
		real = pt_real("rdma_destroy_id");
	if (id && id == pt_listener) {
		pt_listener = NULL;
		pt_state_write('0');
	}
	return real(id);
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		      struct sockaddr *dst_addr, int timeout_ms)
{
	static int (*real)(struct rdma_cm_id *, struct sockaddr *,
			   struct sockaddr *, int);

	if (!real)
		real = pt_real("rdma_resolve_addr");
	if (!pt_listens)
		pt_wait_listening();
	return real(id, src_addr, dst_addr, timeout_ms);
}
