// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dp_verify: data integrity over one RDMA connection, for kiw's VM tests.
 *
 * The client drives; for every case it tells the server (over a plain TCP
 * control connection on PORT + 1) what comes, the server prepares its side
 * and says READY, the client runs the operation, and then both sides check
 * every octet of a window around each target buffer: the payload where it
 * belongs, and the guard octets before, between (SGE gaps) and after it
 * untouched.
 *
 *   write    client SGL (1..6 SGEs, odd offsets) -> RDMA Write -> server
 *            region at an odd TO; then a Send, whose arrival at the server
 *            guarantees the Write was placed before it (RFC 5040 5.5)
 *   read     server region at an odd TO -> RDMA Read -> client sink SGE
 *   send     client SGL -> Send -> server receive WR with its own SGL (SGE
 *            boundaries unlike the sender's); byte_len checked
 *   solicit  a Send, then a Send with Solicited Event: with the server's
 *            receive CQ armed for solicited completions only, the first
 *            raises no completion event, the second does
 *   zero     zero-length Write with an STag that names nothing (RFC 5041
 *            5.2: not checked), zero-length Send and Read (-Z)
 *   inval    last: a Send with Invalidate naming the server's user MR,
 *            which may not be invalidated by a peer: the receive WR
 *            completes in error and the MR still works locally (-I)
 *
 * Lengths: 0..3, around the MULPDU's payload for tagged and untagged
 * segments with and without markers (EMSS 1448: 1428/1424, 1416/1412) and
 * twice that, page sizes +-1, 64 KiB +-1 and 1 MiB; -L adds every SGE
 * count for every length.
 *
 * Output: one line per case, then the summary the tests assert on:
 *   CASE <n> <op> len=<L> sges=<n> off=<o> ok | FAIL <why>
 *   RESULT cases=<n> ok=<n> fail=<n>
 * and with -T, before RESULT, what the soak moved (octets of payload checked
 * by operation, the Writes' and Sends' at the server, the Reads' at the
 * client):
 *   SOAK seconds=<n> passes=<n> write=<octets> send=<octets> read=<octets>
 *
 * Usage:
 *   dp_verify server -b ADDR -p PORT [-t SECONDS]
 *   dp_verify client -a ADDR -p PORT [-L|-Q] [-Z] [-I] [-N] [-E]
 *                    [-t SECONDS] [-T SECONDS]
 *   -L all SGE counts; -Q a dozen lengths only (around the MULPDU, a
 *   page, 64 KiB, 1 MiB); -Z the zero-length cases; -I the Send with
 *   Invalidate (last: it ends the connection); -N none of the others;
 *   -E not the solicited case (siw 6.12 raises no event for a solicited
 *   receive on a CQ armed for solicited completions); -T a soak: the
 *   cases (but -Z and -I) over and over, on the one connection, until
 *   SECONDS have passed (at least one case), then a graceful close: the
 *   client disconnects, both see DISCONNECTED (the server learns of -T
 *   from the client's last message)
 */
#include "tool_lib.h"
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define PAGE		4096u
#define MAX_LEN		(1u << 20)
#define MAX_SGE		6
#define GUARD		PAGE		/* checked before and after a buffer */
#define GAP		(PAGE + 3)	/* between SGEs: odd, across a page */
#define AREA		(MAX_LEN + 2 * GUARD + MAX_SGE * GAP + 2 * PAGE)
#define CTRL_OFF	AREA		/* 64 octets for the Write's sync Send */
#define BUF_LEN		(AREA + PAGE)
#define BOGUS_STAG	0x5a5a5a00u
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum op { OP_WRITE, OP_READ, OP_SEND, OP_SOLICIT, OP_ZERO, OP_INVAL };
static const char *const op_name[] = {
	"write", "read", "send", "solicit", "zero", "inval"
};

/*
 * What the client tells the server about a case (network order); stop
 * ends the run: 1, or 2 for a graceful close (-T).
 */
struct case_msg {
	uint32_t op, len, nsge, off, seed, stop;
};

struct reply_msg {
	uint32_t ok;
	char why[124];
};

/* Region details each side gives the other in the private data. */
struct region_msg {
	uint64_t addr;
	uint32_t rkey, len;
};

/* One SGE of a layout: an offset in the buffer and a length. */
struct piece {
	uint32_t off, len;
};

struct layout {
	uint32_t n;
	struct piece p[MAX_SGE];
	uint32_t lo, hi;	/* the window checked: guards included */
};

static struct {
	bool server, lng, quick, zero, inval, none, no_se;
	const char *addr, *port;
	int timeout, soak;
} opt = { .timeout = 60 };

static struct rdma_cm_id *id;
static struct ibv_pd *pd;
static struct ibv_cq *scq, *rcq;
static struct ibv_comp_channel *chan;
static struct ibv_mr *mr;
static uint8_t *buf;
static struct region_msg peer;
static int ctl = -1;
static unsigned int ncase, nok, nfail;
static unsigned long long op_bytes[OP_INVAL + 1];	/* verified, per op */
static double soak_end;		/* -T: no case starts after it */

/* The verbs post calls return an errno instead of setting errno. */
static void check_post(int ret, const char *what)
{
	if (ret) {
		errno = ret;
		die(what);
	}
}

/* The payload octet at message offset @i: a hash, so shifts show. */
static uint8_t data_at(uint32_t seed, uint32_t i)
{
	uint32_t x = i * 0x9e3779b1u + seed * 0x85ebca77u;

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return x >> 3;
}

/*
 * The guard octet at buffer offset @p: the complement of what a payload
 * starting at @base would put there, so a stray or shifted octet differs.
 */
static uint8_t guard_at(uint32_t seed, uint32_t base, uint32_t p)
{
	return ~data_at(seed, p - base);
}

/*
 * Split @len octets into @n pieces of unequal sizes (weights vary with
 * @salt, so sender and receiver cut differently), @gap octets apart,
 * starting at @off. Pieces may be empty when @len < @n.
 */
static void layout_make(struct layout *l, uint32_t len, uint32_t n,
			uint32_t off, uint32_t gap, uint32_t salt)
{
	static const uint32_t w[] = { 1, 3, 2, 5, 4, 6, 7 };
	uint32_t sum = 0, left = len, pos = off, i;

	l->n = n;
	for (i = 0; i < n; i++)
		sum += w[(i + salt) % 7];
	for (i = 0; i < n; i++) {
		uint32_t part = i + 1 == n ? left :
				(uint32_t)((uint64_t)len * w[(i + salt) % 7] / sum);

		l->p[i].off = pos;
		l->p[i].len = part;
		left -= part;
		pos += part + gap;
	}
	l->lo = off >= GUARD ? off - GUARD : 0;
	l->hi = pos - gap + GUARD;
}

/* Fill the window: payload in the pieces (message order), guards around. */
static void layout_fill(const struct layout *l, uint32_t seed)
{
	uint32_t p, i, m = 0;

	for (p = l->lo; p < l->hi; p++)
		buf[p] = guard_at(seed, l->p[0].off, p);
	for (i = 0; i < l->n; i++)
		for (p = 0; p < l->p[i].len; p++)
			buf[l->p[i].off + p] = data_at(seed, m++);
}

/* Check the window; @why gets the first difference. */
static bool layout_check(const struct layout *l, uint32_t seed, char *why,
			 size_t whylen)
{
	uint32_t p, i, m = 0, bad = 0, first = 0;
	uint8_t want = 0, got = 0;

	for (p = l->lo; p < l->hi; p++) {
		uint8_t exp = guard_at(seed, l->p[0].off, p);

		for (i = 0, m = 0; i < l->n; i++) {
			if (p >= l->p[i].off && p < l->p[i].off + l->p[i].len) {
				exp = data_at(seed, m + p - l->p[i].off);
				break;
			}
			m += l->p[i].len;
		}
		if (buf[p] != exp && !bad++) {
			first = p;
			want = exp;
			got = buf[p];
		}
	}
	if (!bad)
		return true;
	snprintf(why, whylen,
		 "%u octets differ; first at buffer offset %u: 0x%02x, want 0x%02x",
		 bad, first, got, want);
	return false;
}

/* ---- Control connection ---- */

static void ctl_io(void *p, size_t len, bool out)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = out ? send(ctl, (char *)p + done, len - done, MSG_NOSIGNAL) :
				  recv(ctl, (char *)p + done, len - done, 0);

		if (n <= 0) {
			if (!n)
				errno = ECONNRESET;
			die("control connection");
		}
		done += n;
	}
}

static void ctl_send_reply(bool ok, const char *why)
{
	struct reply_msg r = { .ok = htonl(ok) };

	snprintf(r.why, sizeof(r.why), "%s", why);
	ctl_io(&r, sizeof(r), true);
}

static bool ctl_get_reply(char *why, size_t len)
{
	struct reply_msg r;

	ctl_io(&r, sizeof(r), false);
	r.why[sizeof(r.why) - 1] = 0;
	snprintf(why, len, "%s", r.why);
	return ntohl(r.ok);
}

static int ctl_lfd = -1;

/*
 * The server listens before it takes the RDMA connection request and
 * accepts after; the client connects once its RDMA connection is up.
 */
static void ctl_open(void)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	char port[16];
	int one = 1, fd;

	if (ctl_lfd >= 0) {
		ctl = accept(ctl_lfd, NULL, NULL);
		if (ctl < 0)
			die("control accept");
		close(ctl_lfd);
		setsockopt(ctl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		return;
	}

	snprintf(port, sizeof(port), "%d", atoi(opt.port) + 1);
	if (opt.server)
		hints.ai_flags = AI_PASSIVE;
	if (getaddrinfo(opt.addr, port, &hints, &ai))
		die("getaddrinfo (control)");
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (opt.server) {
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1))
			die("control listen");
		printf("LISTENING\n");
		fflush(stdout);
		ctl_lfd = fd;
		freeaddrinfo(ai);
		return;
	} else {
		if (connect(fd, ai->ai_addr, ai->ai_addrlen))
			die("control connect");
		ctl = fd;
	}
	setsockopt(ctl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	freeaddrinfo(ai);
}

/* ---- RDMA ---- */

static void rdma_setup(struct rdma_cm_id *cid)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = MAX_SGE, .max_recv_sge = MAX_SGE },
	};

	buf = mmap(NULL, BUF_LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		die("mmap");
	pd = ibv_alloc_pd(cid->verbs);
	if (!pd)
		die("ibv_alloc_pd");
	chan = ibv_create_comp_channel(cid->verbs);
	if (!chan)
		die("ibv_create_comp_channel");
	scq = ibv_create_cq(cid->verbs, 32, NULL, NULL, 0);
	rcq = ibv_create_cq(cid->verbs, 32, NULL, chan, 0);
	if (!scq || !rcq)
		die("ibv_create_cq");
	mr = ibv_reg_mr(pd, buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr)
		die("ibv_reg_mr");
	qa.send_cq = scq;
	qa.recv_cq = rcq;
	if (rdma_create_qp(cid, pd, &qa))
		die("rdma_create_qp");
}

static void region_pack(struct region_msg *m)
{
	m->addr = htobe64((uintptr_t)buf);
	m->rkey = htonl(mr->rkey);
	m->len = htonl(BUF_LEN);
}

static void region_unpack(const void *pdata, uint8_t len)
{
	struct region_msg m;

	if (!pdata || len < sizeof(m)) {
		errno = EPROTO;
		die("peer's private data");
	}
	memcpy(&m, pdata, sizeof(m));
	peer.addr = be64toh(m.addr);
	peer.rkey = ntohl(m.rkey);
	peer.len = ntohl(m.len);
}

static void rdma_open(void)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res;
	struct rdma_conn_param cp = {
		.initiator_depth = 16, .responder_resources = 16,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct region_msg mine;
	struct rdma_cm_id *lid;

	if (opt.server)
		hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(opt.addr, opt.port, &hints, &res))
		die("rdma_getaddrinfo");
	if (opt.server) {
		if (rdma_create_ep(&lid, res, NULL, NULL) || rdma_listen(lid, 1))
			die("rdma listen");
		ctl_open();	/* prints LISTENING: both listen now */
		if (rdma_get_request(lid, &id))
			die("rdma_get_request");
		region_unpack(id->event->param.conn.private_data,
			      id->event->param.conn.private_data_len);
		rdma_setup(id);
		region_pack(&mine);
		cp.private_data = &mine;
		cp.private_data_len = sizeof(mine);
		if (rdma_accept(id, &cp))
			die("rdma_accept");
		ctl_open();
	} else {
		if (rdma_create_ep(&id, res, NULL, NULL))
			die("rdma_create_ep");
		rdma_setup(id);
		region_pack(&mine);
		cp.private_data = &mine;
		cp.private_data_len = sizeof(mine);
		if (rdma_connect(id, &cp))
			die("rdma_connect");
		region_unpack(id->event->param.conn.private_data,
			      id->event->param.conn.private_data_len);
		ctl_open();
	}
	rdma_freeaddrinfo(res);
}

/* Wait for one completion on @cq; false (with @why) on error or timeout. */
static bool wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, char *why,
		    size_t len)
{
	double end = now() + opt.timeout;
	int n;

	while (!(n = ibv_poll_cq(cq, 1, wc)) && now() < end)
		usleep(50);
	if (n <= 0) {
		snprintf(why, len, n ? "ibv_poll_cq failed" :
			 "no completion within %d s", opt.timeout);
		return false;
	}
	if (wc->status != IBV_WC_SUCCESS) {
		snprintf(why, len, "completion status %s (%d), opcode %d",
			 ibv_wc_status_str(wc->status), wc->status, wc->opcode);
		return false;
	}
	return true;
}

static void sge_list(const struct layout *l, struct ibv_sge *sge)
{
	for (uint32_t i = 0; i < l->n; i++) {
		sge[i].addr = (uintptr_t)buf + l->p[i].off;
		sge[i].length = l->p[i].len;
		sge[i].lkey = mr->lkey;
	}
}

static int post_recv_layout(const struct layout *l, uint64_t wr_id)
{
	struct ibv_sge sge[MAX_SGE];
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = sge,
				  .num_sge = l->n }, *bad;

	sge_list(l, sge);
	return ibv_post_recv(id->qp, &wr, &bad);
}

static int post_ctrl_recv(void)
{
	struct layout l = { .n = 1, .p = { { CTRL_OFF, 64 } } };

	return post_recv_layout(&l, 99);
}

/* Post a send-queue work request over @l (may be NULL: no SGE). */
static int post_wr(enum ibv_wr_opcode opc, const struct layout *l,
		   uint64_t raddr, uint32_t rkey, unsigned int flags,
		   uint32_t inv)
{
	struct ibv_sge sge[MAX_SGE];
	struct ibv_send_wr wr = {
		.wr_id = opc, .sg_list = sge, .num_sge = l ? l->n : 0,
		.opcode = opc, .send_flags = IBV_SEND_SIGNALED | flags,
	}, *bad;

	if (l)
		sge_list(l, sge);
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (opc == IBV_WR_SEND_WITH_INV) {
		/* libsiw sends wr.rdma.rkey, not invalidate_rkey: set both. */
		wr.invalidate_rkey = inv;
		wr.wr.rdma.rkey = inv;
	}
	return ibv_post_send(id->qp, &wr, &bad);
}

/* ---- The server's side of each case ---- */

/* Wait for the receive CQ's completion event (armed by the caller). */
static bool wait_event(char *why, size_t len)
{
	struct pollfd pfd = { .fd = chan->fd, .events = POLLIN };
	struct ibv_cq *ev_cq;
	void *ctx;

	if (poll(&pfd, 1, opt.timeout * 1000) != 1) {
		snprintf(why, len, "no completion event within %d s",
			 opt.timeout);
		return false;
	}
	if (ibv_get_cq_event(chan, &ev_cq, &ctx))
		die("ibv_get_cq_event");
	ibv_ack_cq_events(ev_cq, 1);
	return true;
}

static bool event_pending(void)
{
	struct pollfd pfd = { .fd = chan->fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

static bool srv_solicit(const struct case_msg *c, struct layout *l, char *why,
			size_t len)
{
	struct ibv_wc wc;
	struct layout l2;
	double end;
	int n;

	layout_make(&l2, c->len, 1, l->hi + GAP, 0, 0);
	layout_fill(&l2, c->seed + 1);
	check_post(post_recv_layout(l, 1), "ibv_post_recv");
	check_post(post_recv_layout(&l2, 2), "ibv_post_recv");
	check_post(ibv_req_notify_cq(rcq, 1), "ibv_req_notify_cq");
	ctl_send_reply(true, "");
	/* The plain Send: it completes, but raises no event. */
	end = now() + opt.timeout;
	while (!(n = ibv_poll_cq(rcq, 1, &wc)) && now() < end)
		usleep(50);
	if (n != 1 || wc.status || wc.wr_id != 1) {
		snprintf(why, len, "the plain Send did not complete (%d, %d)",
			 n, n == 1 ? (int)wc.status : -1);
		return false;
	}
	if (event_pending()) {
		snprintf(why, len, "a Send without SE raised an event on a CQ armed for solicited ones");
		return false;
	}
	ctl_send_reply(true, "");	/* now the solicited one */
	if (!wait_event(why, len) || !wait_wc(rcq, &wc, why, len))
		return false;
	if (wc.wr_id != 2 || wc.byte_len != c->len) {
		snprintf(why, len, "solicited Send: wr_id %llu byte_len %u",
			 (unsigned long long)wc.wr_id, wc.byte_len);
		return false;
	}
	return layout_check(l, c->seed, why, len) &&
	       layout_check(&l2, c->seed + 1, why, len);
}

static bool srv_inval(struct layout *l, char *why, size_t len)
{
	struct ibv_wc wc = { .status = IBV_WC_SUCCESS };

	check_post(post_recv_layout(l, 1), "ibv_post_recv");
	ctl_send_reply(true, "");
	if (wait_wc(rcq, &wc, why, len)) {
		snprintf(why, len, "the Send with Invalidate of a user MR succeeded");
		return false;
	}
	if (wc.status == IBV_WC_SUCCESS)
		return false;	/* no completion at all: @why says so */
	printf("# inval: the receive completed with %s (%d)\n",
	       ibv_wc_status_str(wc.status), wc.status);
	return true;
}

static bool srv_case(const struct case_msg *c, char *why, size_t len)
{
	struct layout l;
	struct ibv_wc wc;
	uint32_t off = c->off + GUARD;

	switch (c->op) {
	case OP_WRITE:
	case OP_ZERO:
		layout_make(&l, c->len, 1, off, 0, 0);
		layout_fill(&l, c->seed);
		/* The target gets the payload: expect it there. */
		check_post(post_ctrl_recv(), "ibv_post_recv");
		ctl_send_reply(true, "");
		if (!wait_wc(rcq, &wc, why, len))
			return false;
		break;
	case OP_READ:
		/* The source: payload in place, guards around. */
		layout_make(&l, c->len, 1, off, 0, 0);
		layout_fill(&l, c->seed);
		ctl_send_reply(true, "");
		break;
	case OP_SEND:
		layout_make(&l, c->len, c->nsge, off, GAP, 3);
		for (uint32_t p = l.lo; p < l.hi; p++)
			buf[p] = guard_at(c->seed, l.p[0].off, p);
		check_post(post_recv_layout(&l, 1), "ibv_post_recv");
		ctl_send_reply(true, "");
		if (!wait_wc(rcq, &wc, why, len))
			return false;
		if (wc.byte_len != c->len || wc.opcode != IBV_WC_RECV) {
			snprintf(why, len, "receive: byte_len %u opcode %d",
				 wc.byte_len, wc.opcode);
			return false;
		}
		break;
	case OP_SOLICIT:
		layout_make(&l, c->len, c->nsge, off, GAP, 3);
		for (uint32_t p = l.lo; p < l.hi; p++)
			buf[p] = guard_at(c->seed, l.p[0].off, p);
		return srv_solicit(c, &l, why, len);
	case OP_INVAL:
		layout_make(&l, c->len, 1, off, 0, 0);
		return srv_inval(&l, why, len);
	default:
		snprintf(why, len, "unknown op %u", c->op);
		return false;
	}
	/* A Read leaves the source as it was; the others placed the payload. */
	return layout_check(&l, c->seed, why, len);
}

/*
 * A graceful close: the client disconnects, and its rdma_disconnect()
 * (a synchronous id: rdma_create_ep's) returns with the DISCONNECTED
 * event, when the close is complete. The server waits for that event on
 * its id's own channel; a disconnect of its own would wait for an event
 * that never comes (the connection is closed already).
 */
static void rdma_close(void)
{
	struct rdma_cm_event *ev;

	if (!opt.server) {
		if (rdma_disconnect(id))
			die("rdma_disconnect");
		printf("DISCONNECTED\n");
		return;
	}
	ev = cm_event_wait(id->channel, opt.timeout * 1000);
	if (!ev)
		dief("no DISCONNECTED within %d s", opt.timeout);
	if (ev->event != RDMA_CM_EVENT_DISCONNECTED || ev->status)
		dief("%s (status %d), not DISCONNECTED",
		     rdma_event_str(ev->event), ev->status);
	rdma_ack_cm_event(ev);
	printf("DISCONNECTED\n");
}

static void server(void)
{
	struct case_msg c;
	char why[128];
	bool ok;

	rdma_open();
	for (;;) {
		ctl_io(&c, sizeof(c), false);
		c.op = ntohl(c.op);
		c.len = ntohl(c.len);
		c.nsge = ntohl(c.nsge);
		c.off = ntohl(c.off);
		c.seed = ntohl(c.seed);
		if (ntohl(c.stop) == 2)
			rdma_close();
		if (ntohl(c.stop))
			break;
		why[0] = 0;
		ok = srv_case(&c, why, sizeof(why));
		ctl_send_reply(ok, why);
	}
	printf("SERVER done\n");
}

/* ---- The client's side ---- */

static bool cli_run(const struct case_msg *c, char *why, size_t len)
{
	struct layout l, r;
	struct ibv_wc wc;
	uint32_t roff = c->off + GUARD;
	uint32_t loff = (c->off * 3 + 1) % PAGE + GUARD;
	bool ok = true;

	switch (c->op) {
	case OP_WRITE:
		layout_make(&l, c->len, c->nsge, loff, GAP, 0);
		layout_fill(&l, c->seed);
		check_post(post_wr(IBV_WR_RDMA_WRITE, &l, peer.addr + roff,
				   peer.rkey, 0, 0), "ibv_post_send");
		check_post(post_wr(IBV_WR_SEND, NULL, 0, 0, 0, 0),
			   "ibv_post_send");
		return wait_wc(scq, &wc, why, len) && wait_wc(scq, &wc, why, len);
	case OP_ZERO:
		/* Zero-length Write: the STag must not be checked. */
		check_post(post_wr(IBV_WR_RDMA_WRITE, NULL,
				   0x123456789abcdef1ull, BOGUS_STAG, 0, 0),
			   "ibv_post_send");
		check_post(post_wr(IBV_WR_SEND, NULL, 0, 0, 0, 0),
			   "ibv_post_send");
		return wait_wc(scq, &wc, why, len) && wait_wc(scq, &wc, why, len);
	case OP_READ:
		layout_make(&l, c->len, 1, loff, 0, 0);
		for (uint32_t p = l.lo; p < l.hi; p++)
			buf[p] = guard_at(c->seed, l.p[0].off, p);
		check_post(post_wr(IBV_WR_RDMA_READ, &l, peer.addr + roff, peer.rkey,
			    0, 0), "ibv_post_send");
		return wait_wc(scq, &wc, why, len) &&
		       layout_check(&l, c->seed, why, len);
	case OP_SEND:
		layout_make(&l, c->len, c->nsge, loff, GAP, 0);
		layout_fill(&l, c->seed);
		check_post(post_wr(IBV_WR_SEND, &l, 0, 0, 0, 0), "ibv_post_send");
		return wait_wc(scq, &wc, why, len);
	case OP_SOLICIT:
		layout_make(&l, c->len, c->nsge, loff, GAP, 0);
		layout_fill(&l, c->seed);
		check_post(post_wr(IBV_WR_SEND, &l, 0, 0, 0, 0), "ibv_post_send");
		ok = wait_wc(scq, &wc, why, len);
		if (!ctl_get_reply(why, len))
			return false;
		layout_make(&r, c->len, c->nsge, l.hi + GAP, GAP, 0);
		layout_fill(&r, c->seed + 1);
		check_post(post_wr(IBV_WR_SEND, &r, 0, 0, IBV_SEND_SOLICITED, 0), "ibv_post_send");
		return wait_wc(scq, &wc, why, len) && ok;
	case OP_INVAL:
		layout_make(&l, c->len, 1, loff, 0, 0);
		layout_fill(&l, c->seed);
		check_post(post_wr(IBV_WR_SEND_WITH_INV, &l, 0, 0, 0, peer.rkey), "ibv_post_send");
		/* Ours may complete or flush: the peer terminates. */
		return true;
	}
	return false;
}

static void cli_case(enum op op, uint32_t len, uint32_t nsge, uint32_t off)
{
	struct case_msg c = {
		.op = htonl(op), .len = htonl(len), .nsge = htonl(nsge),
		.off = htonl(off), .seed = htonl(ncase * 2654435761u + len),
	};
	struct case_msg h = {
		.op = op, .len = len, .nsge = nsge, .off = off,
		.seed = ntohl(c.seed),
	};
	char why[160] = "", swhy[128] = "";
	bool ok;

	ncase++;
	ctl_io(&c, sizeof(c), true);
	if (!ctl_get_reply(why, sizeof(why))) {
		ok = false;
	} else {
		ok = cli_run(&h, why, sizeof(why));
		if (!ctl_get_reply(swhy, sizeof(swhy))) {
			if (ok)
				snprintf(why, sizeof(why), "server: %s", swhy);
			ok = false;
		}
	}
	printf("CASE %u %s len=%u sges=%u off=%u %s%s\n", ncase, op_name[op],
	       len, nsge, off, ok ? "ok" : "FAIL ", ok ? "" : why);
	fflush(stdout);
	ok ? nok++ : nfail++;
	if (ok)
		op_bytes[op] += len;
}

/* The cases of one pass: every length, and the special cases. */
static void client_cases(void)
{
	static const uint32_t all[] = {
		1, 2, 3, 7, 64, 1023,
		1411, 1412, 1413, 1415, 1416, 1417,	/* markers */
		1423, 1424, 1425, 1427, 1428, 1429,	/* no markers */
		2823, 2824, 2825, 2847, 2848, 2849, 2855, 2856, 2857,
		4095, 4096, 4097, 8193, 65535, 65536, 65537, 262147,
		MAX_LEN - 1, MAX_LEN,
	};
	/* -Q: the lengths most likely to find a segmentation error. */
	static const uint32_t quick[] = {
		1, 1412, 1413, 1416, 1417, 1424, 1425, 1428, 1429, 4097,
		65537, MAX_LEN,
	};
	static const uint32_t offs[] = { 0, 1, PAGE - 3, 2 * PAGE - 1 };
	const uint32_t *lens = opt.quick ? quick : all;
	const unsigned int nlens = opt.quick ? ARRAY_SIZE(quick) :
					       ARRAY_SIZE(all);
	unsigned int i, s;

	for (i = 0; i < nlens && !opt.none; i++) {
		uint32_t len = lens[i], off = offs[i % 4];

		if (soak_end && ncase && now() >= soak_end)
			return;
		uint32_t sg = len < MAX_SGE * GAP ? 1 + i % MAX_SGE : 1 + i % 3;

		if (len == MAX_LEN)
			sg = 1;		/* the largest fits the area only so */
		if (opt.lng && len < MAX_LEN) {
			for (s = 1; s <= MAX_SGE; s++) {
				cli_case(OP_WRITE, len, s, offs[s % 4]);
				cli_case(OP_SEND, len, s, offs[(s + 1) % 4]);
			}
		} else {
			cli_case(OP_WRITE, len, sg, off);
			cli_case(OP_SEND, len, sg, offs[(i + 1) % 4]);
		}
		cli_case(OP_READ, len, 1, offs[(i + 2) % 4]);
	}
	if (soak_end && now() >= soak_end)
		return;
	if (!opt.none) {
		/* The same range written twice (RFC 5041 5.1.1). */
		cli_case(OP_WRITE, 4097, 2, 1);
		cli_case(OP_WRITE, 4097, 3, 1);
		cli_case(OP_SEND, 0, 1, 1);
		if (!opt.no_se)
			cli_case(OP_SOLICIT, 100, 2, 1);
	}
}

static void client(void)
{
	struct case_msg stop = { .stop = htonl(opt.soak ? 2 : 1) };
	unsigned int passes = 0;
	double start;

	rdma_open();
	start = now();
	if (opt.soak)
		soak_end = start + opt.soak;
	do {
		client_cases();
		passes++;
	} while (now() < soak_end);
	if (opt.soak)
		printf("SOAK seconds=%.0f passes=%u write=%llu send=%llu read=%llu\n",
		       now() - start, passes, op_bytes[OP_WRITE],
		       op_bytes[OP_SEND], op_bytes[OP_READ]);
	if (opt.zero) {
		cli_case(OP_ZERO, 0, 0, 0);
		cli_case(OP_READ, 0, 1, 0);
	}
	if (opt.inval)
		cli_case(OP_INVAL, 64, 1, 1);
	ctl_io(&stop, sizeof(stop), true);
	if (opt.soak)
		rdma_close();
	printf("RESULT cases=%u ok=%u fail=%u\n", ncase, nok, nfail);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: dp_verify server -b ADDR -p PORT [-t SECONDS]\n"
		"       dp_verify client -a ADDR -p PORT [-L|-Q] [-Z] [-I] [-N] [-E] [-t SECONDS]\n"
		"                        [-T SECONDS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int c;

	opt.server = parse_role(argc, argv, usage);
	while ((c = getopt(argc, argv, "a:b:p:t:T:LQZINE")) != -1) {
		switch (c) {
		case 'a':
		case 'b':
			opt.addr = optarg;
			break;
		case 'p':
			opt.port = optarg;
			break;
		case 't':
			opt.timeout = atoi(optarg);
			break;
		case 'T':
			opt.soak = atoi(optarg);
			break;
		case 'L':
			opt.lng = true;
			break;
		case 'Q':
			opt.quick = true;
			break;
		case 'Z':
			opt.zero = true;
			break;
		case 'I':
			opt.inval = true;
			break;
		case 'N':
			opt.none = true;
			break;
		case 'E':
			opt.no_se = true;
			break;
		default:
			usage();
		}
	}
	if (!opt.addr || !opt.port)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (opt.server)
		server();
	else
		client();
	return nfail ? 1 : 0;
}
