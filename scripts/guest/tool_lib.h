/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the tests' C tools (scripts/guest/<tool>.c) share: dying and
 * warning with the tool's name, a monotonic clock, the command line's
 * role and numeric address, and waiting for rdma_cm events.
 *
 * Header-only (static inline), so that every way a tool is built (by
 * scripts/vm.sh on the host, or a test's fallback "cc tool.c" in the
 * guest) stays one command: the tool's #include finds this file next to
 * its source. Include it before any system header: it needs
 * _GNU_SOURCE for the tool's name (program_invocation_short_name).
 *
 * die() and dief() exit with status 2, as each tool's own die() did.
 */
#ifndef KIW_TOOL_LIB_H
#define KIW_TOOL_LIB_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

/* The kernel's names for the attributes, as in the Linux tree's tools/. */
#ifndef __noreturn
#define __noreturn	__attribute__((noreturn))
#endif
#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif

/* "<tool>: <message>\n" on stderr, after what stdout holds so far. */
static inline void __printf(1, 0)
tool_vmsg(const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", program_invocation_short_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* A message, and the tool goes on. */
static inline void __printf(1, 2) warnf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tool_vmsg(fmt, ap);
	va_end(ap);
}

/* @what failed: "<tool>: <what>: <errno's text>", and the tool goes on. */
static inline void warn_errno(const char *what)
{
	warnf("%s: %s", what, strerror(errno));
}

/* A message, and exit status 2. */
static inline void __noreturn __printf(1, 2) dief(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tool_vmsg(fmt, ap);
	va_end(ap);
	exit(2);
}

/* @what failed: "<tool>: <what>: <errno's text>", and exit status 2. */
static inline void __noreturn die(const char *what)
{
	dief("%s: %s", what, strerror(errno));
}

/* Seconds on CLOCK_MONOTONIC. */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A numeric address (IPv4 or IPv6, no name lookups) and port into @ss;
 * one that does not parse ends the tool.
 */
static inline void parse_addr(const char *host, const char *port,
			      struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_PASSIVE },
			*ai;
	int ret = getaddrinfo(host, port, &hints, &ai);

	if (ret)
		dief("address %s port %s: %s", host ? host : "(none)",
		     port ? port : "(none)", gai_strerror(ret));
	if (ai->ai_addrlen > sizeof(*ss))
		dief("address %s: %u octets", host,
		     (unsigned int)ai->ai_addrlen);
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
}

/*
 * "<tool> server|client [options]": true for a server; no role, or
 * another word, is @usage's (which exits). getopt() goes on from argv[2].
 */
static inline bool parse_role(int argc, char **argv, void (*usage)(void))
{
	if (argc < 2)
		usage();
	optind = 2;
	if (!strcmp(argv[1], "server"))
		return true;
	if (strcmp(argv[1], "client"))
		usage();
	return false;
}

/*
 * The next rdma_cm event on @ch, which must have one (its fd polled
 * readable, or a synchronous channel, which blocks); the caller acks it
 * with rdma_ack_cm_event(). A channel that cannot be read ends the tool.
 */
static inline struct rdma_cm_event *cm_event_get(struct rdma_event_channel *ch)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev))
		die("rdma_get_cm_event");
	return ev;
}

/*
 * The next rdma_cm event on @ch within @ms milliseconds (the caller acks
 * it), or NULL: none came, or a signal cut the wait short.
 */
static inline struct rdma_cm_event *cm_event_wait(struct rdma_event_channel *ch,
						  int ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) <= 0)
		return NULL;
	return cm_event_get(ch);
}

#endif /* KIW_TOOL_LIB_H */
