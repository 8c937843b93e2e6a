// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * iw_target: the consumer behind kiw in the hostile-peer tests. It owns
 * memory a raw iWARP peer (scripts/guest/iwarp_peer.py) attacks, tells the
 * peer the STags in the MPA private data, and reports afterwards what the
 * consumer saw and whether any octet changed where the peer may not write.
 *
 * Each connection gets one buffer of TGT_PAGES pages, filled with a known
 * pattern (octet k of the buffer is tgt_pat(k)), holding:
 *
 *   r0  remote read/write region, unaligned at both ends, across a page
 *   r1  remote read-only region
 *   rf  remote read/write region in another protection domain
 *   rn  region with local write only (no remote access)
 *   rq  the receive buffers (each TGT_RLEN octets, TGT_RSTEP apart)
 *
 * and guard octets around all of them (no region covers them). The private
 * data (the Reply's as responder, the Request's as initiator) is text:
 *
 *   base=ADDR r0=STAG:ADDR:LEN r1=... rf=... rn=... rq=N:LEN ird=N
 *
 * As responder (server) it takes its orders for each connection from the
 * Request's private data: "case=NAME [recv=N] [ird=N] [echo]" (recv: the
 * receive WRs to post, default 4; echo: a well-behaved connection whose
 * Sends are echoed back). At the end of each connection it prints
 *
 *   DONE case=NAME established=0|1 disconnected=0|1 async=EV[,EV...]
 *        wc_ok=N wc_flush=N wc_err=STATUS[,...] qp=STATE
 *        r0=N r1=N rf=N rn=N rq=N guard=N [r0_lo=OFF r0_hi=OFF ...]
 *
 * where rX=N counts octets of that area that changed (their first and
 * last offset in rX_lo/rX_hi), guard the changed octets outside every
 * area, async the QP's affiliated events (IB names without IB_EVENT_QP_,
 * "none"), wc_* its completions by status.
 *
 * Usage:
 *   iw_target server -b ADDR -p PORT [-n CONNS] [-t SECONDS]
 *       until CONNS connections ended, SECONDS passed, or SIGTERM
 *   iw_target client -a ADDR -p PORT -c CASE [-r RECV] [-R LEN] [-t SEC]
 *       kiw as initiator: connect, and with -R post an RDMA Read of LEN
 *       octets into r0 from the peer's STag 0x1234, TO 0x1000
 *   iw_target ping -a ADDR -p PORT [-t SECONDS]
 *       a well-behaved connection: Send, wait for the echo, check it,
 *       until SIGTERM or the time is up; SIGUSR1 sends one more message
 *       at once (to have data in flight)
 */
#include "tool_lib.h"
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#define TGT_PAGES	8
#define TGT_BYTES	(TGT_PAGES * 4096)
#define TGT_RLEN	256
#define TGT_RSTEP	512
#define TGT_MAX_RECV	16
#define MAX_CONNS	512
#define PING_LEN	64

enum { A_R0, A_R1, A_RF, A_RN, A_RQ, A_NR };

/* Where each area lies in the buffer: unaligned, never page-sized. */
static const struct area {
	const char *name;
	size_t off, len;
	int access;
	bool foreign;
} areas[A_NR] = {
	[A_R0] = { "r0", 4096 + 100, 5000, IBV_ACCESS_LOCAL_WRITE |
		   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ, false },
	[A_R1] = { "r1", 12288 + 36, 1000, IBV_ACCESS_REMOTE_READ, false },
	[A_RF] = { "rf", 16384 + 8, 1000, IBV_ACCESS_LOCAL_WRITE |
		   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ, true },
	[A_RN] = { "rn", 20480 + 12, 600, IBV_ACCESS_LOCAL_WRITE, false },
	/* Receive WR i: rq + 16 + i * TGT_RSTEP, TGT_RLEN octets. */
	[A_RQ] = { "rq", 24576, TGT_MAX_RECV * TGT_RSTEP,
		   IBV_ACCESS_LOCAL_WRITE, false },
};

struct conn {
	char name[64];
	struct rdma_cm_id *id;
	struct ibv_pd *pd, *pd2;
	struct ibv_cq *cq;
	struct ibv_mr *mr[A_NR];
	unsigned char *buf;
	int nrecv, ird, echo;
	char async[160];
	int wc_ok, wc_flush;
	char wc_err[160];
	bool established, disconnected, reported;
	double done_at;		/* report once this time has passed */
	unsigned char *sbuf;	/* echo / ping: the Send buffer */
	struct ibv_mr *smr;
	int echo_ok, ping_ok, ping_bad, ping_seq;
	bool ping_wait;
};

static struct {
	char mode;		/* s(erver), c(lient), p(ing) */
	const char *addr, *port, *name;
	int conns, timeout, recv, read_len;
} opt = { .conns = MAX_CONNS, .timeout = 60, .recv = 4 };

static struct conn *conns[MAX_CONNS];
static int nconns, ndone;
static volatile sig_atomic_t stop, kick;

/* The octet at offset k of a fresh buffer; iwarp_peer.py knows it too. */
static unsigned char tgt_pat(size_t k)
{
	return (k * 131 + (k >> 8) * 7 + 1) & 0xff;
}

static void add_word(char *list, size_t size, const char *w)
{
	if (strstr(list, w))
		return;
	if (*list)
		strncat(list, ",", size - strlen(list) - 1);
	strncat(list, w, size - strlen(list) - 1);
}

static struct conn *conn_new(struct rdma_cm_id *id)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (!c || nconns == MAX_CONNS)
		die("too many connections");
	c->id = id;
	c->nrecv = opt.recv;
	c->ird = 1;
	strcpy(c->name, opt.name ? opt.name : "-");
	id->context = c;
	conns[nconns++] = c;
	return c;
}

/* "case=NAME recv=N ird=N echo" from the peer's private data. */
static void conn_orders(struct conn *c, const char *pd, int len)
{
	char s[256], *tok, *save;

	if (len > 255)
		len = 255;
	memcpy(s, pd, len);
	s[len] = 0;
	for (tok = strtok_r(s, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		if (!strncmp(tok, "case=", 5))
			snprintf(c->name, sizeof(c->name), "%s", tok + 5);
		else if (!strncmp(tok, "recv=", 5))
			c->nrecv = atoi(tok + 5);
		else if (!strncmp(tok, "ird=", 4))
			c->ird = atoi(tok + 4);
		else if (!strcmp(tok, "echo"))
			c->echo = 1;
	}
	if (c->nrecv < 0 || c->nrecv > TGT_MAX_RECV)
		c->nrecv = TGT_MAX_RECV;
}

static int post_recv(struct conn *c, int i)
{
	struct ibv_sge sge = {
		(uintptr_t)c->buf + areas[A_RQ].off + 16 + i * TGT_RSTEP,
		TGT_RLEN, c->mr[A_RQ]->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(c->id->qp, &wr, &bad);
}

static int post_send(struct conn *c, const void *data, int len)
{
	struct ibv_sge sge = { (uintptr_t)c->sbuf, len, c->smr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1000, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;

	memmove(c->sbuf, data, len);
	return ibv_post_send(c->id->qp, &wr, &bad);
}

/* With -R: an RDMA Read into r0 from the peer (kiw as initiator). */
static int post_read(struct conn *c, int len)
{
	struct ibv_sge sge = { (uintptr_t)c->buf + areas[A_R0].off, len,
			       c->mr[A_R0]->lkey };
	struct ibv_send_wr wr = { .wr_id = 2000, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
				  .send_flags = IBV_SEND_SIGNALED,
				  .wr.rdma = { 0x1000, 0x1234 } };
	struct ibv_send_wr *bad;

	return ibv_post_send(c->id->qp, &wr, &bad);
}

/* PDs, regions over the pattern-filled buffer, CQ, QP, receive WRs. */
static int conn_setup(struct conn *c)
{
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = TGT_MAX_RECV,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int i;

	c->buf = aligned_alloc(4096, TGT_BYTES);
	c->sbuf = malloc(PING_LEN);
	if (!c->buf || !c->sbuf)
		return -1;
	for (i = 0; i < TGT_BYTES; i++)
		c->buf[i] = tgt_pat(i);
	c->pd = ibv_alloc_pd(c->id->verbs);
	c->pd2 = ibv_alloc_pd(c->id->verbs);
	if (!c->pd || !c->pd2)
		return -1;
	for (i = 0; i < A_NR; i++) {
		c->mr[i] = ibv_reg_mr(areas[i].foreign ? c->pd2 : c->pd,
				      c->buf + areas[i].off, areas[i].len,
				      areas[i].access);
		if (!c->mr[i])
			return -1;
	}
	c->smr = ibv_reg_mr(c->pd, c->sbuf, PING_LEN, IBV_ACCESS_LOCAL_WRITE);
	c->cq = ibv_create_cq(c->id->verbs, 64, NULL, NULL, 0);
	if (!c->smr || !c->cq)
		return -1;
	a.send_cq = c->cq;
	a.recv_cq = c->cq;
	if (rdma_create_qp(c->id, c->pd, &a))
		return -1;
	for (i = 0; i < c->nrecv; i++)
		if (post_recv(c, i))
			return -1;
	return 0;
}

/* The private data that tells the peer where everything is. */
static int conn_describe(struct conn *c, char *pd, size_t size)
{
	int n = 0, i;

	/* As initiator, the orders a server of ours takes (see above). */
	if (opt.mode != 's')
		n = snprintf(pd, size, "case=%s%s ", c->name,
			     opt.mode == 'p' ? " echo" : "");
	n += snprintf(pd + n, size - n, "base=0x%lx",
		      (unsigned long)(uintptr_t)c->buf);
	for (i = 0; i < A_RQ; i++)
		n += snprintf(pd + n, size - n, " %s=0x%x:0x%lx:%zu",
			      areas[i].name, c->mr[i]->rkey,
			      (unsigned long)(uintptr_t)c->buf + areas[i].off,
			      areas[i].len);
	n += snprintf(pd + n, size - n, " rq=%d:%d ird=%d", c->nrecv,
		      TGT_RLEN, c->ird);
	return n;
}

static const char *async_name(enum ibv_event_type t)
{
	switch (t) {
	case IBV_EVENT_QP_FATAL: return "FATAL";
	case IBV_EVENT_QP_REQ_ERR: return "REQ_ERR";
	case IBV_EVENT_QP_ACCESS_ERR: return "ACCESS_ERR";
	case IBV_EVENT_COMM_EST: return "COMM_EST";
	case IBV_EVENT_SQ_DRAINED: return "SQ_DRAINED";
	case IBV_EVENT_QP_LAST_WQE_REACHED: return "LAST_WQE";
	default: return "OTHER";
	}
}

static const char *wc_name(enum ibv_wc_status s)
{
	switch (s) {
	case IBV_WC_LOC_LEN_ERR: return "LOC_LEN";
	case IBV_WC_LOC_QP_OP_ERR: return "LOC_QP_OP";
	case IBV_WC_LOC_PROT_ERR: return "LOC_PROT";
	case IBV_WC_REM_INV_REQ_ERR: return "REM_INV_REQ";
	case IBV_WC_REM_ACCESS_ERR: return "REM_ACCESS";
	case IBV_WC_REM_OP_ERR: return "REM_OP";
	case IBV_WC_FATAL_ERR: return "FATAL";
	case IBV_WC_GENERAL_ERR: return "GENERAL";
	default: return ibv_wc_status_str(s);
	}
}

/* Echo connections answer each Send; ping connections check the echo. */
static void on_recv(struct conn *c, struct ibv_wc *wc)
{
	unsigned char *got = c->buf + areas[A_RQ].off + 16 +
			     wc->wr_id * TGT_RSTEP;
	unsigned char want[PING_LEN];
	int i;

	if (opt.mode == 'p') {
		for (i = 0; i < PING_LEN; i++)
			want[i] = (i * 7 + c->ping_seq) & 0xff;
		if (wc->byte_len == PING_LEN && !memcmp(got, want, PING_LEN))
			c->ping_ok++;
		else
			c->ping_bad++;
		c->ping_wait = false;
		post_recv(c, wc->wr_id);
		return;
	}
	if (c->echo) {
		post_send(c, got, wc->byte_len > PING_LEN ? PING_LEN :
			  wc->byte_len);
		c->echo_ok++;
		post_recv(c, wc->wr_id);
	}
}

static void poll_cq(struct conn *c)
{
	struct ibv_wc wc;

	if (!c->cq)
		return;
	while (ibv_poll_cq(c->cq, 1, &wc) > 0) {
		if (wc.status == IBV_WC_SUCCESS) {
			c->wc_ok++;
			if (wc.opcode == IBV_WC_RECV)
				on_recv(c, &wc);
		} else if (wc.status == IBV_WC_WR_FLUSH_ERR) {
			c->wc_flush++;
		} else {
			add_word(c->wc_err, sizeof(c->wc_err),
				 wc_name(wc.status));
		}
	}
}

static void ping_next(struct conn *c)
{
	unsigned char m[PING_LEN];
	int i;

	if (opt.mode != 'p' || !c->established || c->disconnected || stop)
		return;
	/* SIGUSR1: one more Send now, echo or not (data in flight). */
	if (c->ping_wait && !kick)
		return;
	kick = 0;
	c->ping_seq++;
	for (i = 0; i < PING_LEN; i++)
		m[i] = (i * 7 + c->ping_seq) & 0xff;
	if (post_send(c, m, PING_LEN)) {
		c->ping_bad++;
		return;
	}
	c->ping_wait = true;
}

static const char *qp_state(struct conn *c)
{
	static const char *const names[] = { "RESET", "INIT", "RTR", "RTS",
					     "SQD", "SQE", "ERR" };
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;

	if (!c->id || !c->id->qp ||
	    ibv_query_qp(c->id->qp, &qa, IBV_QP_STATE, &ia))
		return "NONE";
	return qa.qp_state <= IBV_QPS_ERR ? names[qa.qp_state] : "OTHER";
}

/* Which octets changed, by area; the peer wrote them or nobody did. */
static void report_mem(struct conn *c)
{
	size_t k, lo[A_NR], hi[A_NR], n[A_NR] = { 0 }, guard = 0;
	int i;

	for (k = 0; k < TGT_BYTES; k++) {
		if (c->buf[k] == tgt_pat(k))
			continue;
		for (i = 0; i < A_NR; i++)
			if (k >= areas[i].off &&
			    k < areas[i].off + areas[i].len)
				break;
		if (i == A_NR) {
			guard++;
			continue;
		}
		if (!n[i]++)
			lo[i] = k - areas[i].off;
		hi[i] = k - areas[i].off;
	}
	for (i = 0; i < A_NR; i++)
		printf(" %s=%zu", areas[i].name, n[i]);
	printf(" guard=%zu", guard);
	for (i = 0; i < A_NR; i++)
		if (n[i])
			printf(" %s_lo=%zu %s_hi=%zu", areas[i].name, lo[i],
			       areas[i].name, hi[i]);
}

static void conn_report(struct conn *c)
{
	poll_cq(c);
	printf("DONE case=%s established=%d disconnected=%d async=%s wc_ok=%d wc_flush=%d wc_err=%s qp=%s",
	       c->name, c->established, c->disconnected,
	       *c->async ? c->async : "none", c->wc_ok, c->wc_flush,
	       *c->wc_err ? c->wc_err : "none", qp_state(c));
	if (c->buf)
		report_mem(c);
	if (c->echo)
		printf(" echoed=%d", c->echo_ok);
	if (opt.mode == 'p')
		printf(" ping_ok=%d ping_bad=%d", c->ping_ok, c->ping_bad);
	printf("\n");
	c->reported = true;
	ndone++;
}

static void conn_free(struct conn *c)
{
	int i;

	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	for (i = 0; i < A_NR; i++)
		if (c->mr[i])
			ibv_dereg_mr(c->mr[i]);
	if (c->smr)
		ibv_dereg_mr(c->smr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->pd2)
		ibv_dealloc_pd(c->pd2);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	memset(c->mr, 0, sizeof(c->mr));
	c->smr = NULL;
	c->cq = NULL;
	c->pd = c->pd2 = NULL;
	if (c->id)
		rdma_destroy_id(c->id);
	c->id = NULL;
	free(c->buf);
	free(c->sbuf);
	c->buf = NULL;
	c->sbuf = NULL;
}

static void on_request(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct conn *c = conn_new(id);
	struct rdma_conn_param p = { .initiator_depth = 1 };
	char pd[256];

	conn_orders(c, ev->param.conn.private_data,
		    ev->param.conn.private_data_len);
	if (conn_setup(c)) {
		printf("# %s: setup failed: %s\n", c->name, strerror(errno));
		rdma_reject(id, NULL, 0);
		c->done_at = now();
		return;
	}
	p.responder_resources = c->ird;
	p.private_data = pd;
	p.private_data_len = conn_describe(c, pd, sizeof(pd)) + 1;
	if (rdma_accept(id, &p)) {
		printf("# %s: rdma_accept: %s\n", c->name, strerror(errno));
		c->done_at = now();
	}
}

static void on_event(struct rdma_cm_event *ev)
{
	struct conn *c = ev->id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		on_request(ev->id, ev);
		return;
	}
	if (!c)
		return;
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(ev->id, 2000))
			die("rdma_resolve_route");
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED: {
		struct rdma_conn_param p = { .responder_resources = 1,
					     .initiator_depth = 1 };
		char pd[256];

		if (conn_setup(c))
			die("setup");
		p.private_data = pd;
		p.private_data_len = conn_describe(c, pd, sizeof(pd)) + 1;
		if (rdma_connect(ev->id, &p))
			die("rdma_connect");
		break;
	}
	case RDMA_CM_EVENT_ESTABLISHED:
		c->established = true;
		if (opt.mode != 's')
			printf("ESTABLISHED %s\n", c->name);
		if (opt.read_len && post_read(c, opt.read_len))
			printf("# %s: post_read: %s\n", c->name,
			       strerror(errno));
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		c->disconnected = true;
		rdma_disconnect(ev->id);
		/* Let the async events and flushes come in first. */
		if (!c->done_at)
			c->done_at = now() + 0.3;
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/* The device goes: let go of it now (the report follows). */
		printf("# %s: device removal\n", c->name);
		c->disconnected = true;
		c->done_at = now();
		break;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		printf("# %s: %s status %d\n", c->name,
		       rdma_event_str(ev->event), ev->status);
		if (!c->done_at)
			c->done_at = now();
		break;
	default:
		break;
	}
}

static void on_async(struct ibv_context *ctx)
{
	struct ibv_async_event ae;
	int i;

	if (ibv_get_async_event(ctx, &ae))
		return;
	for (i = 0; i < nconns; i++) {
		struct conn *c = conns[i];

		if (c->id && c->id->qp && c->id->qp == ae.element.qp)
			add_word(c->async, sizeof(c->async),
				 async_name(ae.event_type));
	}
	ibv_ack_async_event(&ae);
}

static void usage(void)
{
	fprintf(stderr, "usage: iw_target server|client|ping -a/-b ADDR -p PORT [-n N] [-c CASE] [-r RECV] [-R LEN] [-t S]\n");
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	int ch;

	if (argc < 2)
		usage();
	opt.mode = !strcmp(argv[1], "server") ? 's' :
		   !strcmp(argv[1], "client") ? 'c' :
		   !strcmp(argv[1], "ping") ? 'p' : 0;
	if (!opt.mode)
		usage();
	optind = 2;
	while ((ch = getopt(argc, argv, "a:b:p:n:c:r:R:t:")) != -1) {
		switch (ch) {
		case 'a': case 'b': opt.addr = optarg; break;
		case 'p': opt.port = optarg; break;
		case 'n': opt.conns = atoi(optarg); break;
		case 'c': opt.name = optarg; break;
		case 'r': opt.recv = atoi(optarg); break;
		case 'R': opt.read_len = atoi(optarg); break;
		case 't': opt.timeout = atoi(optarg); break;
		default: usage();
		}
	}
	if (!opt.addr || !opt.port || opt.conns < 1 ||
	    opt.conns > MAX_CONNS || opt.recv < 0 || opt.recv > TGT_MAX_RECV ||
	    opt.read_len < 0 || opt.read_len > (int)areas[A_R0].len)
		usage();
	if (opt.mode != 's')
		opt.conns = 1;
	if (opt.mode == 'p' && !opt.name)
		opt.name = "ping";
}

static void on_term(int sig)
{
	if (sig == SIGUSR1)
		kick = 1;
	else
		stop = 1;
}

static struct ibv_context *async_ctx(void)
{
	for (int i = 0; i < nconns; i++)
		if (conns[i]->id && conns[i]->id->verbs)
			return conns[i]->id->verbs;
	return NULL;
}

/* Report connections whose end has come; free them. */
static void reap(void)
{
	for (int i = 0; i < nconns; i++) {
		struct conn *c = conns[i];

		if (c->reported)
			continue;
		poll_cq(c);
		ping_next(c);
		if (!c->done_at || now() < c->done_at)
			continue;
		conn_report(c);
		conn_free(c);
	}
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *ch;
	struct sockaddr_storage addr;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	double end;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_args(argc, argv);
	parse_addr(opt.addr, opt.port, &addr);
	signal(SIGTERM, on_term);
	signal(SIGUSR1, on_term);
	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel");
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (opt.mode == 's') {
		if (rdma_bind_addr(id, (struct sockaddr *)&addr))
			die("rdma_bind_addr");
		if (rdma_listen(id, 64))
			die("rdma_listen");
		printf("LISTENING\n");
	} else {
		conn_new(id);
		if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&addr, 2000))
			die("rdma_resolve_addr");
	}
	end = now() + opt.timeout;
	while (now() < end && ndone < opt.conns) {
		struct ibv_context *ctx = async_ctx();
		struct pollfd pfd[2] = {
			{ .fd = ch->fd, .events = POLLIN },
			{ .fd = ctx ? ctx->async_fd : -1, .events = POLLIN },
		};

		if (stop && opt.mode == 's')
			break;
		if (stop && opt.mode == 'p' && !conns[0]->done_at) {
			rdma_disconnect(conns[0]->id);
			conns[0]->done_at = now() + 0.3;
		}
		reap();
		if (poll(pfd, 2, 10) <= 0)
			continue;
		if (pfd[1].revents & POLLIN)
			on_async(ctx);
		if (!(pfd[0].revents & POLLIN))
			continue;
		ev = cm_event_get(ch);
		on_event(ev);
		rdma_ack_cm_event(ev);
	}
	for (int i = 0; i < nconns; i++)
		if (!conns[i]->reported)
			conn_report(conns[i]);
	printf("RESULT conns=%d\n", nconns);
	return 0;
}
