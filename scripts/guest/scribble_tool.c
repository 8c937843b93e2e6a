// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * scribble_tool: a consumer that keeps writing its buffers while the RDMA
 * device sends from them and places into them, for kiw's VM test
 * dp_scribble.sh. Verbs forbid touching a buffer a work request owns, so
 * what it reads there is garbage; but the connection must survive it: a
 * NIC reads memory once and sends what it read with a CRC that matches.
 * A software stack that computes the CRC over memory in one pass and lets
 * TCP copy it in another (or checks a received CRC over the destination
 * after placing) fails the connection with MPA CRC errors instead.
 *
 * The client sends SIZE-octet messages from one buffer, at most WINDOW
 * without an acknowledgement; a thread overwrites that buffer all the
 * while, and the acknowledgements are received into it too. The server
 * receives every message into the same region (its receive WRs overlap),
 * which a thread of its own overwrites all the while, and acknowledges
 * each with a 4096-octet Send from that region. After -T seconds the
 * client sends a 1-octet message; the server acknowledges it and both
 * disconnect. Each side then prints
 *
 *   RESULT role=<client|server> msgs=<n> acks=<n> errors=<n>
 *
 * msgs: messages sent (client) or received (server); acks: acknowledgements
 * received (client) or sent (server); errors: completions with an error,
 * or of an unexpected length (the first is described on stderr).
 *
 * Usage:
 *   scribble_tool server -b ADDR -p PORT [-s SIZE] [-t SECONDS]
 *   scribble_tool client -a ADDR -p PORT [-s SIZE] [-T SECONDS] [-t SECONDS]
 *   -t: the whole run's limit (default 120); -T: how long the client
 *   sends (default 10); -s: message size, 2..1048576 (default 65536), the
 *   same on both sides
 *
 * scripts/vm.sh compiles it on the host, with these libraries:
 * kiw-ldlibs: -lrdmacm -libverbs -lpthread
 */
#include "tool_lib.h"
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define WINDOW		16
#define NR_RECV		64
#define ACK_LEN		4096
#define MAX_SIZE	(1u << 20)

static struct {
	bool server;
	const char *addr, *port;
	unsigned int limit, secs, size;
} opt = { .limit = 120, .secs = 10, .size = 65536 };

static struct {
	unsigned long msgs, acks, errors;
} res;

/* The scribbler: the buffer changes under every operation on it. */
struct scribble {
	uint8_t *buf;		/* written with __atomic: every write happens */
	size_t len;
	bool stop;		/* __atomic */
	pthread_t thread;
};

static void *scribble_run(void *arg)
{
	struct scribble *s = arg;
	uint8_t v = 0;
	size_t i;

	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED))
		for (i = 0, v++; i < s->len; i += 64)
			__atomic_store_n(&s->buf[i], v + (uint8_t)i,
					 __ATOMIC_RELAXED);
	return NULL;
}

static void error_once(const char *what, const struct ibv_wc *wc)
{
	if (!res.errors++)
		warnf("%s: status %s, length %u", what,
		      ibv_wc_status_str(wc->status), wc->byte_len);
}

static void report(void)
{
	printf("RESULT role=%s msgs=%lu acks=%lu errors=%lu\n",
	       opt.server ? "server" : "client", res.msgs, res.acks,
	       res.errors);
	fflush(stdout);
}

/* Reap send completions; with @block, wait for at least one. */
static int reap_sends(struct rdma_cm_id *id, bool block)
{
	struct ibv_wc wc;
	int n;

	if (block) {
		n = rdma_get_send_comp(id, &wc);
	} else {
		n = ibv_poll_cq(id->send_cq, 1, &wc);
		if (n == 0)
			return 0;
	}
	if (n < 0)
		return -1;
	if (wc.status != IBV_WC_SUCCESS) {
		error_once("send", &wc);
		return -1;
	}
	return 1;
}

static int post_recvs(struct rdma_cm_id *id, struct ibv_mr *mr, void *buf,
		      size_t len, int nr)
{
	while (nr--)
		if (rdma_post_recv(id, NULL, buf, len, mr))
			return -1;
	return 0;
}

static int serve(struct rdma_cm_id *id, uint8_t *buf, struct ibv_mr *mr)
{
	struct ibv_wc wc;

	for (;;) {
		if (rdma_get_recv_comp(id, &wc) <= 0)
			return -1;
		if (wc.status != IBV_WC_SUCCESS ||
		    (wc.byte_len != opt.size && wc.byte_len != 1)) {
			error_once("receive", &wc);
			return -1;
		}
		res.msgs++;
		if (post_recvs(id, mr, buf, opt.size, 1) ||
		    rdma_post_send(id, NULL, buf + opt.size, ACK_LEN, mr, 0) ||
		    reap_sends(id, true) < 0)
			return -1;
		res.acks++;
		if (wc.byte_len == 1)
			return 0;
	}
}

static int drive(struct rdma_cm_id *id, uint8_t *buf, struct ibv_mr *mr)
{
	time_t end = time(NULL) + opt.secs;
	unsigned int out = 0, len = opt.size;
	struct ibv_wc wc;

	for (;;) {
		bool done = time(NULL) >= end;

		while (!done && out < WINDOW) {
			if (rdma_post_send(id, NULL, buf, len, mr, 0))
				return -1;
			res.msgs++;
			out++;
		}
		while (reap_sends(id, false) > 0)
			;
		if (res.errors)
			return -1;
		if (!out) {
			if (len == 1)
				return 0;
			len = 1;	/* the last message, alone */
			end = 0;
			if (rdma_post_send(id, NULL, buf, len, mr, 0))
				return -1;
			res.msgs++;
			out++;
		}
		if (rdma_get_recv_comp(id, &wc) <= 0)
			return -1;
		if (wc.status != IBV_WC_SUCCESS || wc.byte_len != ACK_LEN) {
			error_once("acknowledgement", &wc);
			return -1;
		}
		res.acks++;
		out--;
		if (post_recvs(id, mr, buf, ACK_LEN, 1))
			return -1;
	}
}

static int run(void)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *ai;
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = WINDOW * 2, .max_recv_wr = NR_RECV,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};
	struct rdma_cm_id *listen_id = NULL, *id;
	struct scribble s = { .len = MAX_SIZE + ACK_LEN };
	struct ibv_mr *mr;
	uint8_t *buf;
	int ret;

	if (opt.server)
		hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(opt.addr, opt.port, &hints, &ai)) {
		warn_errno("rdma_getaddrinfo");
		return -1;
	}
	if (opt.server) {
		if (rdma_create_ep(&listen_id, ai, NULL, &attr) ||
		    rdma_listen(listen_id, 1)) {
			warn_errno("listen");
			return -1;
		}
		printf("LISTENING\n");
		fflush(stdout);
		if (rdma_get_request(listen_id, &id)) {
			warn_errno("rdma_get_request");
			return -1;
		}
	} else if (rdma_create_ep(&id, ai, NULL, &attr)) {
		warn_errno("rdma_create_ep");
		return -1;
	}
	rdma_freeaddrinfo(ai);
	buf = calloc(1, s.len);
	if (!buf)
		return -1;
	mr = rdma_reg_msgs(id, buf, s.len);
	if (!mr) {
		warn_errno("rdma_reg_msgs");
		return -1;
	}
	/*
	 * Every receive into the same octets: the server's messages and the
	 * client's acknowledgements, over what the client sends from.
	 */
	ret = post_recvs(id, mr, buf, opt.server ? opt.size : ACK_LEN, NR_RECV);
	if (!ret)
		ret = opt.server ? rdma_accept(id, NULL) : rdma_connect(id, NULL);
	if (ret) {
		warn_errno(opt.server ? "rdma_post_recv/rdma_accept" :
					"rdma_post_recv/rdma_connect");
		return -1;
	}
	printf("ESTABLISHED\n");
	fflush(stdout);
	s.buf = buf;
	if (pthread_create(&s.thread, NULL, scribble_run, &s))
		return -1;
	ret = opt.server ? serve(id, buf, mr) : drive(id, buf, mr);
	__atomic_store_n(&s.stop, true, __ATOMIC_RELAXED);
	pthread_join(s.thread, NULL);
	report();
	rdma_disconnect(id);
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
	if (listen_id)
		rdma_destroy_ep(listen_id);
	free(buf);
	return ret;
}

static void usage(void)
{
	fprintf(stderr,
		"Usage: scribble_tool server -b ADDR -p PORT [-s SIZE] [-t SECONDS]\n"
		"       scribble_tool client -a ADDR -p PORT [-s SIZE] [-T SECONDS] [-t SECONDS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int c;

	opt.server = parse_role(argc, argv, usage);
	while ((c = getopt(argc, argv, "a:b:p:t:T:s:")) != -1) {
		switch (c) {
		case 'a':
		case 'b':
			opt.addr = optarg;
			break;
		case 'p':
			opt.port = optarg;
			break;
		case 't':
			opt.limit = strtoul(optarg, NULL, 0);
			break;
		case 'T':
			opt.secs = strtoul(optarg, NULL, 0);
			break;
		case 's':
			opt.size = strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (!opt.addr || !opt.port || opt.size < 2 || opt.size > MAX_SIZE)
		usage();
	alarm(opt.limit);	/* a hang ends the run, without a RESULT */
	return run() ? 1 : 0;
}
