// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cm_tool: an rdma_cm consumer for kiw's VM tests. It connects, accepts or
 * rejects, with private data of a chosen length, many connections at once,
 * optionally moves one message each way, closes, and prints every rdma_cm
 * event it sees as one line, then a summary the tests assert on:
 *
 *   EVENT <conn> <ESTABLISHED|REJECTED|...> status=<n> pd=<len> pd_ok=<0|1>
 *         ird=<n> ord=<n>
 *   DATA <conn> ok|fail <what>
 *   DUP <conn> <event>          an event rdma_cm must give only once
 *   RESULT established=<n> rejected=<n> unreachable=<n> error=<n>
 *          disconnected=<n> requests=<n> pd_bad=<n> dup=<n> data_ok=<n>
 *          data_fail=<n>
 *   LISTENING                   (server, once it listens)
 *
 * Private data of n octets is octet i = (i * 7 + seed) & 0xff, seed 1 for
 * the Request, 2 for an accepting Reply, 3 for a reject: each side checks
 * what it receives against the pattern (pd_ok).
 *
 * Usage:
 *   cm_tool server -b ADDR -p PORT [-n CONNS] [-r] [-d PDLEN] [-B BACKLOG]
 *                  [-D] [-c client|server|destroy] [-t SECONDS]
 *   cm_tool client -a ADDR -p PORT [-n CONNS] [-d PDLEN] [-D]
 *                  [-c client|server|destroy] [-t SECONDS]
 *   -r reject every request; -D move data; -c who closes: the client
 *   (rdma_disconnect, default), the server, or the client by destroying
 *   its id without a disconnect (abortive). The server handles -n
 *   connections (then exits), or runs until -t.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#define MSG_LEN 64
#define MAX_CONNS 1024

struct conn {
	int no;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char buf[2 * MSG_LEN];		/* [0] receive, [MSG_LEN] send */
	int established, disconnected, rejected;
	bool data_done, closing, done;
	bool destroy;			/* destroy the id once events are acked */
};

static struct {
	bool server, reject, data;
	const char *addr, *port;
	int conns, pd_len, backlog, timeout;
	char closer;			/* 'c'lient, 's'erver, 'd'estroy */
} opt = { .conns = 1, .backlog = 128, .timeout = 30, .closer = 'c' };

static struct {
	int established, rejected, unreachable, error, disconnected;
	int requests, pd_bad, dup, data_ok, data_fail;
} res;

static struct conn *conns[MAX_CONNS];
static int nconns, finished;

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

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "cm_tool: %s: %s\n", what, strerror(errno));
	exit(2);
}

static struct conn *conn_new(struct rdma_cm_id *id)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (!c || nconns == MAX_CONNS)
		die("too many connections");
	c->no = nconns;
	c->id = id;
	id->context = c;
	conns[nconns++] = c;
	return c;
}

static int conn_qp(struct conn *c)
{
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cq = c->pd ? ibv_create_cq(c->id->verbs, 16, NULL, NULL, 0) : NULL;
	c->mr = c->cq ? ibv_reg_mr(c->pd, c->buf, sizeof(c->buf),
				   IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!c->mr)
		return -1;
	a.send_cq = c->cq;
	a.recv_cq = c->cq;
	return rdma_create_qp(c->id, c->pd, &a);
}

static int post_recv(struct conn *c)
{
	struct ibv_sge sge = { (uintptr_t)c->buf, MSG_LEN, c->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(c->id->qp, &wr, &bad);
}

static int post_send(struct conn *c, int seed)
{
	struct ibv_sge sge = { (uintptr_t)c->buf + MSG_LEN, MSG_LEN,
			       c->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;

	pd_fill((unsigned char *)c->buf + MSG_LEN, MSG_LEN, seed + c->no);
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

/*
 * The message exchange: the client sends first (seed 10 + conn), the
 * server checks it and answers (seed 20 + conn), the client checks that.
 * The responder holds its first FPDU until it received one (RFC 5044
 * 7.1.2 (4)), which is why the client speaks first.
 */
static void poll_data(struct conn *c)
{
	struct ibv_wc wc;

	if (!opt.data || !c->established || c->data_done || !c->id)
		return;
	while (ibv_poll_cq(c->cq, 1, &wc) > 0) {
		if (wc.status != IBV_WC_SUCCESS) {
			printf("DATA %d fail wc status %d opcode %d\n", c->no,
			       wc.status, wc.opcode);
			res.data_fail++;
			c->data_done = true;
			return;
		}
		if (wc.opcode != IBV_WC_RECV)
			continue;
		if (!pd_check(c->buf, wc.byte_len, MSG_LEN,
			      (opt.server ? 10 : 20) + c->no)) {
			printf("DATA %d fail content\n", c->no);
			res.data_fail++;
			c->data_done = true;
			return;
		}
		if (opt.server && post_send(c, 20))
			printf("DATA %d fail post_send\n", c->no);
		printf("DATA %d ok\n", c->no);
		res.data_ok++;
		c->data_done = true;
		if ((opt.server && opt.closer == 's') ||
		    (!opt.server && opt.closer != 's'))
			conn_close(c);
	}
}

static void on_established(struct conn *c, struct rdma_cm_event *ev)
{
	if (c->established++) {
		printf("DUP %d ESTABLISHED\n", c->no);
		res.dup++;
		return;
	}
	res.established++;
	if (!opt.server && !pd_check(ev->param.conn.private_data,
				     ev->param.conn.private_data_len,
				     opt.pd_len, 2))
		res.pd_bad++;
	if (opt.data) {
		if (!opt.server && post_send(c, 10))
			printf("DATA %d fail post_send\n", c->no);
		return;
	}
	if ((opt.server && opt.closer == 's') ||
	    (!opt.server && opt.closer != 's'))
		conn_close(c);
}

static void on_request(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	unsigned char pd[256];
	struct rdma_conn_param p = { .responder_resources = 1,
				     .initiator_depth = 1 };
	struct conn *c = conn_new(id);

	res.requests++;
	if (!pd_check(ev->param.conn.private_data,
		      ev->param.conn.private_data_len, opt.pd_len, 1))
		res.pd_bad++;
	pd_fill(pd, opt.pd_len, opt.reject ? 3 : 2);
	if (opt.reject) {
		if (rdma_reject(id, pd, opt.pd_len))
			printf("# conn %d: rdma_reject: %s\n", c->no,
			       strerror(errno));
		c->destroy = true;
		return;
	}
	if (conn_qp(c) || (opt.data && post_recv(c))) {
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

static void conn_finish(struct conn *c)
{
	if (c->done)
		return;
	c->done = true;
	finished++;
}

static void on_event(struct rdma_cm_event *ev)
{
	struct conn *c = ev->id->context;
	const char *name = rdma_event_str(ev->event);

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		printf("EVENT %d CONNECT_REQUEST status=%d pd=%d pd_ok=%d ird=%d ord=%d\n",
		       nconns, ev->status, ev->param.conn.private_data_len,
		       pd_check(ev->param.conn.private_data,
				ev->param.conn.private_data_len, opt.pd_len, 1),
		       ev->param.conn.initiator_depth,
		       ev->param.conn.responder_resources);
		on_request(ev->id, ev);
		return;
	}
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
		return;
	}
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(ev->id, 2000))
			die("rdma_resolve_route");
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED: {
		unsigned char pd[256];
		struct rdma_conn_param p = { .responder_resources = 1,
					     .initiator_depth = 1,
					     .private_data = pd,
					     .private_data_len = opt.pd_len };

		pd_fill(pd, opt.pd_len, 1);
		if (conn_qp(c) || (opt.data && post_recv(c)))
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
		if (opt.pd_len && !pd_check(ev->param.conn.private_data,
					    ev->param.conn.private_data_len,
					    opt.pd_len, 3))
			res.pd_bad++;
		conn_finish(c);
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
		res.unreachable++;
		conn_finish(c);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		res.error++;
		conn_finish(c);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (c->disconnected++) {
			printf("DUP %d DISCONNECTED\n", c->no);
			res.dup++;
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

/* rdma_destroy_id() waits for the id's events to be acked: not in one. */
static void reap(void)
{
	for (int i = 0; i < nconns; i++) {
		struct conn *c = conns[i];

		if (!c->destroy || !c->id)
			continue;
		if (c->id->qp)
			rdma_destroy_qp(c->id);
		rdma_destroy_id(c->id);
		c->id = NULL;
		conn_finish(c);
	}
}

static void parse_addr(const char *host, const char *port,
		       struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_PASSIVE },
			*ai;

	if (getaddrinfo(host, port, &hints, &ai))
		die("address");
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
}

static void usage(void)
{
	fprintf(stderr, "usage: cm_tool server|client -a/-b ADDR -p PORT [-n N] [-r] [-d PD] [-B BL] [-D] [-c c|s|d] [-t S]\n");
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	int ch;

	if (argc < 2)
		usage();
	opt.server = !strcmp(argv[1], "server");
	if (!opt.server && strcmp(argv[1], "client"))
		usage();
	optind = 2;
	while ((ch = getopt(argc, argv, "a:b:p:n:rd:B:Dc:t:")) != -1) {
		switch (ch) {
		case 'a': case 'b': opt.addr = optarg; break;
		case 'p': opt.port = optarg; break;
		case 'n': opt.conns = atoi(optarg); break;
		case 'r': opt.reject = true; break;
		case 'd': opt.pd_len = atoi(optarg); break;
		case 'B': opt.backlog = atoi(optarg); break;
		case 'D': opt.data = true; break;
		case 'c': opt.closer = optarg[0]; break;
		case 't': opt.timeout = atoi(optarg); break;
		default: usage();
		}
	}
	if (!opt.addr || !opt.port || opt.conns < 1 || opt.conns > MAX_CONNS ||
	    opt.pd_len < 0 || opt.pd_len > 255)
		usage();
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *ch;
	struct sockaddr_storage addr;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	double end, linger = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_args(argc, argv);
	parse_addr(opt.addr, opt.port, &addr);
	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel");
	if (opt.server) {
		if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
			die("rdma_create_id");
		if (rdma_bind_addr(id, (struct sockaddr *)&addr))
			die("rdma_bind_addr");
		if (rdma_listen(id, opt.backlog))
			die("rdma_listen");
		printf("LISTENING\n");
	} else {
		for (int i = 0; i < opt.conns; i++) {
			if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
				die("rdma_create_id");
			conn_new(id);
			if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&addr,
					      2000))
				die("rdma_resolve_addr");
		}
	}
	end = now() + opt.timeout;
	while (now() < end) {
		struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };

		for (int i = 0; i < nconns; i++)
			poll_data(conns[i]);
		reap();
		/* Once all are done, stay a moment to catch duplicates. */
		if (finished >= opt.conns && !linger)
			linger = now() + 0.5;
		if (linger && now() > linger)
			break;
		if (poll(&pfd, 1, 10) <= 0)
			continue;
		if (rdma_get_cm_event(ch, &ev))
			die("rdma_get_cm_event");
		on_event(ev);
		rdma_ack_cm_event(ev);
		reap();
	}
	printf("RESULT established=%d rejected=%d unreachable=%d error=%d disconnected=%d requests=%d pd_bad=%d dup=%d data_ok=%d data_fail=%d\n",
	       res.established, res.rejected, res.unreachable, res.error,
	       res.disconnected, res.requests, res.pd_bad, res.dup,
	       res.data_ok, res.data_fail);
	return finished >= opt.conns ? 0 : 1;
}
