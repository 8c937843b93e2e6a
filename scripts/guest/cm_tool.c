// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cm_tool: an rdma_cm consumer for kiw's VM tests. It connects, accepts or
 * rejects, with private data of a chosen length, many connections at once,
 * optionally moves messages each way, closes, and prints every rdma_cm
 * event and every asynchronous verbs event it sees as one line, then a
 * summary the tests assert on:
 *
 *   EVENT <conn> <ESTABLISHED|REJECTED|...> status=<n> pd=<len> pd_ok=<0|1>
 *         ird=<n> ord=<n>
 *   DATA <conn> ok|fail <what>
 *   ASYNC <conn> <event>        an asynchronous event (QP fatal...)
 *   DUP <conn> <event>          an event rdma_cm must give only once
 *   RESULT established=<n> rejected=<n> unreachable=<n> error=<n>
 *          disconnected=<n> requests=<n> pd_bad=<n> dup=<n> data_ok=<n>
 *          data_fail=<n> msgs=<n> async=<n>
 *   LISTENING                   (server, once it listens)
 *   CONN <conn> addr=<a> established=<n> rejected=<n> unreachable=<n>
 *        error=<n> disconnected=<n> pd_bad=<n> dup=<n> data_ok=<n>
 *        data_fail=<n> msgs=<n>
 *                               (-v: one per connection, at the end, or
 *                               for a server as soon as it ends; addr is
 *                               the client's peer, the server's local
 *                               address: it tells which device it used)
 *
 * Private data of n octets is octet i = (i * 7 + seed) & 0xff, seed 1 for
 * the Request, 2 for an accepting Reply, 3 for a reject: each side checks
 * what it receives against the pattern (pd_ok).
 *
 * Messages (-D): the client sends -m messages of -s octets as soon as the
 * connection is up; the server answers each one as it arrives, with a
 * message of the same size. Message k of the client's connection c is the
 * same pattern with seed 10 + c + k (client) or 20 + c + k (server); the
 * server learns c from the first octet of the first message (its own
 * connection numbers follow the order requests came in). With -e the
 * server does not wait: it sends its messages as soon as the connection
 * is up (with its own c), and only checks the client's. msgs counts the
 * messages received intact, data_ok the connections that received all of
 * theirs, data_fail those that saw a completion error or a bad message.
 *
 * Usage:
 *   cm_tool server -b ADDR -p PORT [-n CONNS] [-r] [-d PDLEN] [-B BACKLOG]
 *                  [-D [-m MSGS] [-s SIZE] [-e]] [-c client|server|destroy]
 *                  [-t SECONDS]
 *   cm_tool client -a ADDR[,ADDR...] | -R  -p PORT [-n CONNS] [-d PDLEN]
 *                  [-D [-m MSGS] [-s SIZE]] [-c client|server|destroy]
 *                  [-t SECONDS]
 *   (both take -v, -q and -N ROUNDS; the client -H)
 *   -r reject every request; -D move data (-m messages each way, default
 *   1, at most 64; -s octets each, default 64, at most 1 MiB); -c who
 *   closes: the client (rdma_disconnect, default), the server, or the
 *   client by destroying its id without a disconnect (abortive). The
 *   server handles -n connections (then exits), or runs until -t. A client
 *   given several addresses sends connection i to the (i mod count)th;
 *   -n defaults to the count. -v adds the CONN lines. SIGUSR1 ends the
 *   run as the deadline would (a server that may see fewer than -n). -R:
 *   the addresses come from stdin, a round per line (see rounds()); -t
 *   is then the limit of each round.
 *
 * Hold (-H, client): no connection is closed when its messages are done;
 * once every one has either ended or is established with its messages
 * done, the client prints "HOLDING established=<n> data_ok=<n>" and keeps
 * them all until SIGUSR2 (or the deadline), then closes them as usual. A
 * benchmark measures memory in between.
 *
 * Churn (-N ROUNDS): the client opens its -n connections ROUNDS times
 * over, a round once the last one has ended; the server handles -n *
 * ROUNDS in all. Each side then tears every connection down (QP, id, MR,
 * CQ, PD) as soon as it has ended, so that the objects in use stay at one
 * round's, and connection numbers keep counting across rounds; the client
 * says "ROUND <r> finished=<n> data_ok=<n>" as round r + 1 starts
 * (progress, for long runs). -q leaves out the EVENT and "DATA ok" lines
 * (thousands, in a churn); the RESULT line, failures, ASYNC and DUP lines
 * stay.
 *
 * scripts/vm.sh compiles it on the host, with these libraries:
 * kiw-ldlibs: -lrdmacm -libverbs
 */
#include "tool_lib.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#define MAX_CONNS 1024
#define MAX_MSGS 64
#define MAX_SIZE (1 << 20)
#define MAX_CTX 64
#define MAX_ADDRS 256

struct conn {
	int no;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	unsigned char *buf;		/* msgs receive, then msgs send buffers */
	int established, disconnected, rejected;
	int rx, tx;			/* messages received intact, sent */
	int peer_no;			/* the client's number for it */
	char addr[INET6_ADDRSTRLEN];	/* for -v: see the CONN line */
	/* This connection's share of the RESULT counters (-v). */
	int rejected_ev, unreachable, error, pd_bad, dup, data_ok, data_fail;
	bool data_done, closing, done, printed;
	bool destroy;			/* destroy the id once events are acked */
};

static struct {
	bool server, reject, data, eager, verbose, rounds, quiet, hold;
	const char *addr, *port;
	char *addrs[MAX_ADDRS];
	int naddrs;
	int conns, pd_len, backlog, timeout, msgs, size;
	int churn;			/* -N: 0 when not given */
	char closer;			/* 'c'lient, 's'erver, 'd'estroy */
} opt = { .conns = 1, .backlog = 128, .timeout = 30, .closer = 'c',
	  .msgs = 1, .size = 64 };

static struct {
	int established, rejected, unreachable, error, disconnected;
	int requests, pd_bad, dup, data_ok, data_fail, msgs, async;
} res;

/* Device contexts whose asynchronous events we read (non-blocking). */
static struct ibv_context *ctxs[MAX_CTX];
static int nctx;

/*
 * Slots of the connections in use; a churn frees a slot (NULL) when its
 * connection is torn down, and reuses it. nconns is the highest slot used
 * plus one, created the number of connections ever created (their "no").
 */
static struct conn *conns[MAX_CONNS];
static int nconns, finished, created;
static int churn_round;			/* -N: the client's current round */

/* Connections to handle in all: -n, times -N. */
static int total(void)
{
	return opt.conns * (opt.churn ? opt.churn : 1);
}

static unsigned char pd_octet(int i, int seed)
{
	return (i * 7 + seed) & 0xff;
}

static void pd_fill(unsigned char *p, int len, int seed)
{
	for (int i = 0; i < len; i++)
		p[i] = pd_octet(i, seed);
}

static bool pd_check(const void *pd, int len, int want_len, int seed)
{
	const unsigned char *p = pd;

	if (len != want_len)
		return false;
	for (int i = 0; i < len; i++)
		if (p[i] != pd_octet(i, seed))
			return false;
	return true;
}

static struct conn *conn_new(struct rdma_cm_id *id)
{
	struct conn *c = calloc(1, sizeof(*c));
	int slot = 0;

	while (slot < nconns && conns[slot])
		slot++;
	if (!c || slot == MAX_CONNS)
		die("too many connections");
	c->no = created++;
	c->peer_no = c->no;
	c->id = id;
	id->context = c;
	conns[slot] = c;
	if (slot == nconns)
		nconns++;
	return c;
}

/* The numeric address of @sa into @c->addr, for the CONN line. */
static void conn_addr(struct conn *c, const struct sockaddr *sa)
{
	socklen_t len = sa->sa_family == AF_INET6 ?
			sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);

	if (getnameinfo(sa, len, c->addr, sizeof(c->addr), NULL, 0,
			NI_NUMERICHOST))
		snprintf(c->addr, sizeof(c->addr), "?");
}

static void watch_ctx(struct ibv_context *ctx)
{
	for (int i = 0; i < nctx; i++)
		if (ctxs[i] == ctx)
			return;
	if (nctx == MAX_CTX)
		return;
	fcntl(ctx->async_fd, F_SETFL,
	      fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	ctxs[nctx++] = ctx;
}

static int conn_qp(struct conn *c)
{
	size_t len = 2 * (size_t)opt.msgs * opt.size;
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = opt.msgs + 1,
			 .max_recv_wr = opt.msgs + 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	watch_ctx(c->id->verbs);
	c->buf = calloc(1, len);
	c->pd = c->buf ? ibv_alloc_pd(c->id->verbs) : NULL;
	c->cq = c->pd ? ibv_create_cq(c->id->verbs, 2 * opt.msgs + 4, NULL,
				      NULL, 0) : NULL;
	c->mr = c->cq ? ibv_reg_mr(c->pd, c->buf, len,
				   IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!c->mr)
		return -1;
	a.send_cq = c->cq;
	a.recv_cq = c->cq;
	return rdma_create_qp(c->id, c->pd, &a);
}

static unsigned char *rx_buf(struct conn *c, int k)
{
	return c->buf + (size_t)k * opt.size;
}

static unsigned char *tx_buf(struct conn *c, int k)
{
	return c->buf + (size_t)(opt.msgs + k) * opt.size;
}

/* A receive for each message, in order: message k lands in rx_buf(k). */
static int post_recvs(struct conn *c)
{
	for (int k = 0; k < opt.msgs; k++) {
		struct ibv_sge sge = { (uintptr_t)rx_buf(c, k), opt.size,
				       c->mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = k, .sg_list = &sge,
					  .num_sge = 1 };
		struct ibv_recv_wr *bad;

		if (ibv_post_recv(c->id->qp, &wr, &bad))
			return -1;
	}
	return 0;
}

static int msg_seed(struct conn *c, bool from_server, int k)
{
	return ((from_server ? 20 : 10) + c->peer_no + k) & 0xff;
}

static int post_send(struct conn *c)
{
	int k = c->tx++;
	struct ibv_sge sge = { (uintptr_t)tx_buf(c, k), opt.size,
			       c->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = MAX_MSGS + k, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;

	pd_fill(tx_buf(c, k), opt.size, msg_seed(c, opt.server, k));
	return ibv_post_send(c->id->qp, &wr, &bad);
}

static void conn_close(struct conn *c)
{
	if (c->closing)
		return;
	c->closing = true;
	if (opt.closer == 'd' && !opt.server) {
		/* Abortive: the id goes without a disconnect. */
		c->destroy = true;
		return;
	}
	if (rdma_disconnect(c->id))
		printf("# conn %d: rdma_disconnect: %s\n", c->no,
		       strerror(errno));
}

static void data_fail(struct conn *c, const char *why, int v1, int v2)
{
	printf("DATA %d fail %s %d %d (after %d messages)\n", c->no, why, v1,
	       v2, c->rx);
	res.data_fail++;
	c->data_fail++;
	c->data_done = true;
}

/*
 * The message exchange: the client sends its messages first, the server
 * checks each and answers it, the client checks the answers. The
 * responder holds its first FPDU until it received one (RFC 5044 7.1.2
 * (4)), which is why the client speaks first.
 */
static void poll_data(struct conn *c)
{
	struct ibv_wc wc;

	if (!opt.data || !c->established || c->data_done || !c->id)
		return;
	while (!c->data_done && ibv_poll_cq(c->cq, 1, &wc) > 0) {
		if (wc.status != IBV_WC_SUCCESS) {
			data_fail(c, "wc status/opcode", wc.status, wc.opcode);
			return;
		}
		if (wc.opcode != IBV_WC_RECV)
			continue;
		if (opt.server && !opt.eager && !c->rx && wc.byte_len)
			c->peer_no = (rx_buf(c, 0)[0] - 10) & 0xff;
		if ((int)wc.wr_id != c->rx ||
		    !pd_check(rx_buf(c, c->rx), wc.byte_len, opt.size,
			      msg_seed(c, !opt.server, c->rx))) {
			data_fail(c, "content of message/length", c->rx,
				  wc.byte_len);
			return;
		}
		c->rx++;
		res.msgs++;
		if (opt.server && !opt.eager && post_send(c))
			data_fail(c, "post_send", errno, c->tx);
		if (c->rx < opt.msgs)
			continue;
		if (!opt.quiet)
			printf("DATA %d ok\n", c->no);
		res.data_ok++;
		c->data_ok++;
		c->data_done = true;
		if ((opt.server && opt.closer == 's') ||
		    (!opt.server && opt.closer != 's' && !opt.hold))
			conn_close(c);
	}
}

static struct conn *conn_of_qp(struct ibv_qp *qp)
{
	for (int i = 0; i < nconns; i++)
		if (conns[i] && conns[i]->id && conns[i]->id->qp == qp)
			return conns[i];
	return NULL;
}

/* Asynchronous events: a QP the device took to the error state... */
static void poll_async(void)
{
	struct ibv_async_event ev;

	for (int i = 0; i < nctx; i++) {
		while (!ibv_get_async_event(ctxs[i], &ev)) {
			struct conn *c = NULL;

			switch (ev.event_type) {
			case IBV_EVENT_QP_FATAL:
			case IBV_EVENT_QP_REQ_ERR:
			case IBV_EVENT_QP_ACCESS_ERR:
			case IBV_EVENT_COMM_EST:
			case IBV_EVENT_SQ_DRAINED:
			case IBV_EVENT_PATH_MIG:
			case IBV_EVENT_PATH_MIG_ERR:
			case IBV_EVENT_QP_LAST_WQE_REACHED:
				c = conn_of_qp(ev.element.qp);
				break;
			default:
				break;
			}
			printf("ASYNC %d %s\n", c ? c->no : -1,
			       ibv_event_type_str(ev.event_type));
			res.async++;
			ibv_ack_async_event(&ev);
		}
	}
}

static void on_established(struct conn *c, struct rdma_cm_event *ev)
{
	if (c->established++) {
		printf("DUP %d ESTABLISHED\n", c->no);
		res.dup++;
		c->dup++;
		return;
	}
	res.established++;
	if (!opt.server && !pd_check(ev->param.conn.private_data,
				     ev->param.conn.private_data_len,
				     opt.pd_len, 2)) {
		res.pd_bad++;
		c->pd_bad++;
	}
	if (opt.data) {
		for (int k = 0; (!opt.server || opt.eager) && k < opt.msgs; k++)
			if (post_send(c))
				data_fail(c, "post_send", errno, k);
		return;
	}
	if ((opt.server && opt.closer == 's') ||
	    (!opt.server && opt.closer != 's' && !opt.hold))
		conn_close(c);
}

static void on_request(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	unsigned char pd[256];
	struct rdma_conn_param p = { .responder_resources = 1,
				     .initiator_depth = 1 };
	struct conn *c = conn_new(id);

	conn_addr(c, rdma_get_local_addr(id));
	res.requests++;
	if (!pd_check(ev->param.conn.private_data,
		      ev->param.conn.private_data_len, opt.pd_len, 1)) {
		res.pd_bad++;
		c->pd_bad++;
	}
	pd_fill(pd, opt.pd_len, opt.reject ? 3 : 2);
	if (opt.reject) {
		if (rdma_reject(id, pd, opt.pd_len))
			printf("# conn %d: rdma_reject: %s\n", c->no,
			       strerror(errno));
		c->destroy = true;
		return;
	}
	if (conn_qp(c) || (opt.data && post_recvs(c))) {
		printf("# conn %d: QP setup failed: %s\n", c->no,
		       strerror(errno));
		rdma_reject(id, NULL, 0);
		c->done = true;
		finished++;
		return;
	}
	p.private_data = pd;
	p.private_data_len = opt.pd_len;
	if (rdma_accept(id, &p)) {
		printf("# conn %d: rdma_accept: %s\n", c->no, strerror(errno));
		c->done = true;
		finished++;
	}
}

static void conn_print(struct conn *c)
{
	c->printed = true;
	printf("CONN %d addr=%s established=%d rejected=%d unreachable=%d error=%d disconnected=%d pd_bad=%d dup=%d data_ok=%d data_fail=%d msgs=%d\n",
	       c->no, c->addr, c->established, c->rejected_ev, c->unreachable,
	       c->error, c->disconnected, c->pd_bad, c->dup, c->data_ok,
	       c->data_fail, c->rx);
}

/*
 * A server prints a connection's CONN line (-v) as soon as it ends, so
 * that a test can use one server for many rounds of clients (ending it
 * with SIGUSR1); what happens to the connection after that counts in the
 * RESULT line only.
 */
static void conn_finish(struct conn *c)
{
	if (c->done)
		return;
	c->done = true;
	finished++;
	if (opt.verbose && opt.server)
		conn_print(c);
	/* A churn frees what it is done with (reap(), outside the event). */
	if (opt.churn)
		c->destroy = true;
}

static void on_event(struct rdma_cm_event *ev)
{
	struct conn *c = ev->id->context;
	const char *name = rdma_event_str(ev->event);

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		if (!opt.quiet)
			printf("EVENT %d CONNECT_REQUEST status=%d pd=%d pd_ok=%d ird=%d ord=%d\n",
			       created, ev->status,
			       ev->param.conn.private_data_len,
			       pd_check(ev->param.conn.private_data,
					ev->param.conn.private_data_len,
					opt.pd_len, 1),
			       ev->param.conn.initiator_depth,
			       ev->param.conn.responder_resources);
		on_request(ev->id, ev);
		return;
	}
	if (!opt.quiet)
		printf("EVENT %d %s status=%d pd=%d pd_ok=%d ird=%d ord=%d\n",
		       c ? c->no : -1, name, ev->status,
		       ev->param.conn.private_data_len,
		       pd_check(ev->param.conn.private_data,
				ev->param.conn.private_data_len, opt.pd_len,
				ev->event == RDMA_CM_EVENT_REJECTED ? 3 : 2),
		       ev->param.conn.initiator_depth,
		       ev->param.conn.responder_resources);
	if (!c)
		return;
	if (c->done && ev->event != RDMA_CM_EVENT_TIMEWAIT_EXIT) {
		printf("DUP %d %s (after the end)\n", c->no, name);
		res.dup++;
		c->dup++;
		return;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(ev->id, 10000))
			die("rdma_resolve_route");
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED: {
		unsigned char pd[256];
		struct rdma_conn_param p = { .responder_resources = 1,
					     .initiator_depth = 1,
					     .private_data = pd,
					     .private_data_len = opt.pd_len };

		pd_fill(pd, opt.pd_len, 1);
		if (conn_qp(c) || (opt.data && post_recvs(c)))
			die("QP setup");
		if (rdma_connect(ev->id, &p))
			die("rdma_connect");
		break;
	}
	case RDMA_CM_EVENT_ESTABLISHED:
		on_established(c, ev);
		break;
	case RDMA_CM_EVENT_REJECTED:
		res.rejected++;
		c->rejected_ev++;
		if (opt.pd_len && !pd_check(ev->param.conn.private_data,
					    ev->param.conn.private_data_len,
					    opt.pd_len, 3)) {
			res.pd_bad++;
			c->pd_bad++;
		}
		conn_finish(c);
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
		res.unreachable++;
		c->unreachable++;
		conn_finish(c);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		res.error++;
		c->error++;
		conn_finish(c);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (c->disconnected++) {
			printf("DUP %d DISCONNECTED\n", c->no);
			res.dup++;
			c->dup++;
			break;
		}
		res.disconnected++;
		if (!c->closing) {
			c->closing = true;
			rdma_disconnect(ev->id);
		}
		conn_finish(c);
		break;
	default:
		break;
	}
}

static void conn_teardown(struct conn *c)
{
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	free(c->buf);
	c->cq = NULL;
	c->pd = NULL;
	c->buf = NULL;
}

/* rdma_destroy_id() waits for the id's events to be acked: not in one. */
static void reap(void)
{
	for (int i = 0; i < nconns; i++) {
		struct conn *c = conns[i];

		if (!c || !c->destroy || !c->id)
			continue;
		if (c->id->qp)
			rdma_destroy_qp(c->id);
		rdma_destroy_id(c->id);
		c->id = NULL;
		if (c->mr)
			ibv_dereg_mr(c->mr);
		c->mr = NULL;
		conn_finish(c);
		if (!opt.churn)
			continue;
		conn_teardown(c);
		free(c);
		conns[i] = NULL;
	}
	while (nconns && !conns[nconns - 1])
		nconns--;
}

static void usage(void)
{
	fprintf(stderr, "Usage: cm_tool server|client -a/-b ADDR -p PORT [-n N] [-r] [-d PD] [-B BL] [-D [-m MSGS] [-s SIZE] [-e]] [-c c|s|d] [-t S] [-v] [-R] [-N ROUNDS] [-q] [-H]\n");
	exit(2);
}

/* A client's -a ADDR[,ADDR...]: -n defaults to the number of addresses. */
static void split_addrs(bool conns_given)
{
	char *list = strdup(opt.addr), *save = NULL, *a;

	for (a = strtok_r(list, ",", &save); a && opt.naddrs < MAX_ADDRS;
	     a = strtok_r(NULL, ",", &save))
		opt.addrs[opt.naddrs++] = a;
	if (!opt.naddrs || a)
		usage();
	if (!conns_given)
		opt.conns = opt.naddrs;
}

static void parse_args(int argc, char **argv)
{
	bool conns_given = false;
	int ch;

	if (argc < 2)
		usage();
	opt.server = !strcmp(argv[1], "server");
	if (!opt.server && strcmp(argv[1], "client"))
		usage();
	optind = 2;
	while ((ch = getopt(argc, argv, "a:b:p:n:rd:B:Dm:s:ec:t:vRN:qH")) != -1) {
		switch (ch) {
		case 'a':
		case 'b':
			opt.addr = optarg;
			break;
		case 'p':
			opt.port = optarg;
			break;
		case 'n':
			opt.conns = atoi(optarg);
			conns_given = true;
			break;
		case 'r':
			opt.reject = true;
			break;
		case 'd':
			opt.pd_len = atoi(optarg);
			break;
		case 'B':
			opt.backlog = atoi(optarg);
			break;
		case 'D':
			opt.data = true;
			break;
		case 'e':
			opt.eager = true;
			break;
		case 'm':
			opt.msgs = atoi(optarg);
			break;
		case 's':
			opt.size = atoi(optarg);
			break;
		case 'c':
			opt.closer = optarg[0];
			break;
		case 't':
			opt.timeout = atoi(optarg);
			break;
		case 'v':
			opt.verbose = true;
			break;
		case 'R':
			opt.rounds = !opt.server;
			break;
		case 'N':
			opt.churn = atoi(optarg);
			break;
		case 'q':
			opt.quiet = true;
			break;
		case 'H':
			opt.hold = true;
			break;
		default:
			usage();
		}
	}
	if (opt.addr && !opt.server)
		split_addrs(conns_given);
	if (opt.rounds && !opt.addr)
		opt.addr = "-";
	if (!opt.addr || !opt.port || opt.conns < 1 || opt.conns > MAX_CONNS ||
	    opt.pd_len < 0 || opt.pd_len > 255 || opt.msgs < 1 ||
	    opt.msgs > MAX_MSGS || opt.size < 1 || opt.size > MAX_SIZE ||
	    opt.churn < 0 || opt.churn > 1000000 ||
	    (opt.churn && (opt.closer == 'd' || opt.rounds)) ||
	    (opt.hold && (opt.server || opt.churn || opt.rounds)))
		usage();
}

/*
 * SIGUSR1 ends a run as its deadline would. It stays blocked (main()), so
 * it is seen here, between events, and stays pending: later rounds end too.
 */
static bool usr1_pending(void)
{
	sigset_t set;

	return !sigpending(&set) && sigismember(&set, SIGUSR1) == 1;
}

/*
 * -H: once every connection has ended or is up with its messages done,
 * say so, and on SIGUSR2 (blocked, taken here) close those still up.
 */
static void hold(void)
{
	static const struct timespec zero;
	static bool said, released;
	sigset_t usr2;

	if (!opt.hold || released || nconns < opt.conns)
		return;
	for (int i = 0; i < nconns; i++) {
		struct conn *c = conns[i];

		if (c && !c->done && (!c->established ||
				      (opt.data && !c->data_done)))
			return;
	}
	if (!said) {
		said = true;
		printf("HOLDING established=%d data_ok=%d\n", res.established,
		       res.data_ok);
	}
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	if (sigtimedwait(&usr2, NULL, &zero) != SIGUSR2)
		return;
	released = true;
	for (int i = 0; i < nconns; i++)
		if (conns[i] && conns[i]->id && !conns[i]->done)
			conn_close(conns[i]);
}

/* A client's connections: opt.conns of them, over opt.addrs. */
static void start_conns(struct rdma_event_channel *ch)
{
	struct sockaddr_storage addr;
	struct rdma_cm_id *id;

	for (int i = 0; i < opt.conns; i++) {
		struct conn *c;

		parse_addr(opt.addrs[i % opt.naddrs], opt.port, &addr);
		if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
			die("rdma_create_id");
		c = conn_new(id);
		conn_addr(c, (struct sockaddr *)&addr);
		if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&addr, 10000))
			die("rdma_resolve_addr");
	}
}

/*
 * Events, messages and closes until @target connections have ended (then
 * a moment more, to catch duplicates), the deadline, or SIGUSR1.
 */
static void run(struct rdma_event_channel *ch, int target)
{
	double end = now() + opt.timeout, linger = 0;
	struct rdma_cm_event *ev;

	while (now() < end && !usr1_pending()) {
		for (int i = 0; i < nconns; i++)
			if (conns[i])
				poll_data(conns[i]);
		poll_async();
		reap();
		hold();
		/* A churn's next round (-N), once the last is gone. */
		if (!opt.server && churn_round && churn_round < opt.churn &&
		    !nconns && finished == churn_round * opt.conns) {
			printf("ROUND %d finished=%d data_ok=%d\n", churn_round,
			       finished, res.data_ok);
			start_conns(ch);
			churn_round++;
		}
		/*
		 * Once all are done, stay a moment to catch duplicates; in
		 * rounds (-R), later rounds and the RESULT line catch them.
		 */
		if (finished >= target && !linger)
			linger = now() + (opt.rounds ? 0.1 : 0.5);
		if (linger && now() > linger)
			break;
		ev = cm_event_wait(ch, 10);
		if (!ev)
			continue;
		on_event(ev);
		rdma_ack_cm_event(ev);
		reap();
	}
	poll_async();
}

/*
 * -R: rounds of connections, one per line of stdin ("ADDR[,ADDR...]",
 * one connection to each): when all of a round's have ended, their CONN
 * lines (-v) and "ROUND <k> ended=<0|1>"; an empty line or EOF ends the
 * rounds. One process for many rounds: under TCG every process started,
 * and librdmacm's start in it, costs.
 */
static void rounds(struct rdma_event_channel *ch)
{
	static char line[MAX_ADDRS * INET6_ADDRSTRLEN];
	int first;

	for (int k = 0; fgets(line, sizeof(line), stdin); k++) {
		line[strcspn(line, "\n")] = 0;
		if (!*line)
			break;
		opt.addr = line;
		opt.naddrs = 0;
		split_addrs(false);
		if (nconns + opt.conns > MAX_CONNS)
			die("too many connections");
		first = nconns;
		start_conns(ch);
		run(ch, first + opt.conns);
		for (int i = first; opt.verbose && i < nconns; i++)
			conn_print(conns[i]);
		printf("ROUND %d ended=%d\n", k, finished == nconns);
	}
	opt.conns = nconns;
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *ch;
	struct sockaddr_storage addr;
	struct rdma_cm_id *id;
	sigset_t usr1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigaddset(&usr1, SIGUSR2);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	parse_args(argc, argv);
	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel");
	if (opt.server) {
		parse_addr(opt.addr, opt.port, &addr);
		if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
			die("rdma_create_id");
		if (rdma_bind_addr(id, (struct sockaddr *)&addr))
			die("rdma_bind_addr");
		if (rdma_listen(id, opt.backlog))
			die("rdma_listen");
		printf("LISTENING\n");
		run(ch, total());
	} else if (opt.rounds) {
		rounds(ch);
	} else {
		start_conns(ch);
		churn_round = 1;
		run(ch, total());
	}
	for (int i = 0; opt.verbose && i < nconns; i++)
		if (conns[i] && !conns[i]->printed)
			conn_print(conns[i]);
	printf("RESULT established=%d rejected=%d unreachable=%d error=%d disconnected=%d requests=%d pd_bad=%d dup=%d data_ok=%d data_fail=%d msgs=%d async=%d\n",
	       res.established, res.rejected, res.unreachable, res.error,
	       res.disconnected, res.requests, res.pd_bad, res.dup,
	       res.data_ok, res.data_fail, res.msgs, res.async);
	return finished >= total() ? 0 : 1;
}
