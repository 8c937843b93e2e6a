// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fault_tool: systematic fault injection into kiw's setup paths, for
 * scripts/tests/dp_faults.sh. For one operation at a time it writes N to
 * /proc/thread-self/fail-nth (Documentation/fault-injection: the N-th
 * fault-injection point the task reaches next fails: a slab or page
 * allocation, with failslab and fail_page_alloc set to include sleeping
 * allocations), runs the operation, and goes on with N + 1 until the
 * operation runs through without reaching an N-th point. Every injected
 * failure must come back as an error (or be absorbed: the operation
 * succeeds), never as a hang or a kernel report, and the operation must
 * work again afterwards. Each N prints
 *
 *   TRY op=OP n=N ret=0|ERRNO-NAME
 *
 * and each operation ends with
 *
 *   SWEEP op=OP points=N failed=F ok=S last=0|ERRNO-NAME
 *
 * (points: fault points the operation reached, to within STRIDE;
 * failed: how many of those tried made it fail; ok: how many were
 * absorbed; last: the result of the run without a fault, which must be
 * 0).
 *
 * Usage:
 *   fault_tool devadd NAME NETDEV   RDMA netlink NEWLINK (rdma link add
 *                                   NAME type kiw netdev NETDEV)
 *   fault_tool verbs DEVICE         open, alloc PD, create CQ, register a
 *                                   user MR, create a QP
 *   fault_tool connect ADDR PORT    rdma_connect() to an rdma_cm listener
 *   fault_tool accept ADDR PORT     listen; rdma_accept() each request
 *                                   (connect with -n to feed it)
 *   options: -m MAX (most points to try, default 400), -s STRIDE (try
 *   every STRIDE-th point only: 1, 1 + STRIDE, ...), -n CONNS (connect:
 *   that many connections without faults instead of a sweep)
 */
#include "tool_lib.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_netlink.h>

static int nth_fd = -1;
static int max_n = 400;
static int stride = 1;
static int nconns;

static void die_ev(const char *what, int ev)
{
	dief("%s: event %s", what,
	     ev < 0 ? "none (timeout)" : rdma_event_str(ev));
}

/* Arm: the n-th fault point this thread reaches fails (0: disarm). */
static void arm(int n)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%d", n);

	if (nth_fd < 0 && !n)
		return;

	if (pwrite(nth_fd, s, len, 0) != len)
		die("fail-nth");
}

/* Whether the armed fault was injected (fail-nth counted down to 0). */
static bool fired(void)
{
	char s[16] = "";

	if (pread(nth_fd, s, sizeof(s) - 1, 0) <= 0)
		die("fail-nth");
	arm(0);
	return atoi(s) == 0;
}

static const char *err_name(int e)
{
	switch (e) {
	case 0: return "0";
	case ENOMEM: return "ENOMEM";
	case EINVAL: return "EINVAL";
	case EFAULT: return "EFAULT";
	case ENOBUFS: return "ENOBUFS";
	case EAGAIN: return "EAGAIN";
	case EIO: return "EIO";
	case ENODEV: return "ENODEV";
	case ENOENT: return "ENOENT";
	case EEXIST: return "EEXIST";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ECONNRESET: return "ECONNRESET";
	case EPROTO: return "EPROTO";
	case ENETUNREACH: return "ENETUNREACH";
	case EHOSTUNREACH: return "EHOSTUNREACH";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	default: {
		static char buf[16];

		snprintf(buf, sizeof(buf), "E%d", e);
		return buf;
	}
	}
}

/* Whether the operation under test reached its armed point. */
static bool g_fired;

/* Around the one call under test: arm before, check right after. */
static void arm_op(int n)
{
	g_fired = false;
	if (n)
		arm(n);
}

static void op_done(int n)
{
	if (n)
		g_fired = fired();
}

/*
 * sweep: run op(arg, n) for n = 1, 2, ... (op arms the n-th point around
 * the call under test with arm_op()/op_done()), then once more with n 0.
 * op returns 0 or an errno, and undoes what worked.
 */
static int sweep(const char *name, int (*op)(void *arg, int n), void *arg)
{
	int n, ret, failed = 0, ok = 0;

	for (n = 1; n <= max_n; n += stride) {
		ret = op(arg, n);
		if (!g_fired) {
			/* Fewer than n points: the sweep is complete. */
			break;
		}
		printf("TRY op=%s n=%d ret=%s\n", name, n, err_name(ret));
		if (ret)
			failed++;
		else
			ok++;
	}
	ret = op(arg, 0);
	printf("SWEEP op=%s points=%d failed=%d ok=%d last=%s\n", name,
	       n > max_n ? max_n : n - 1, failed, ok, err_name(ret));
	return ret;
}

/* ---- devadd: RDMA_NLDEV_CMD_NEWLINK over netlink ---- */

struct devadd {
	const char *name, *netdev;
	int sock;
};

static int nl_put(char *buf, int off, int type, const char *s)
{
	struct nlattr *a = (struct nlattr *)(buf + off);
	int len = strlen(s) + 1;

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy(buf + off + NLA_HDRLEN, s, len);
	return off + NLA_ALIGN(a->nla_len);
}

static int devadd_op(void *arg, int n)
{
	struct devadd *d = arg;
	char buf[512] = { 0 }, ack[512];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct nlmsgerr *e;
	int len = NLMSG_HDRLEN, ret, err;
	char cmd[128];

	len = nl_put(buf, len, RDMA_NLDEV_ATTR_DEV_NAME, d->name);
	len = nl_put(buf, len, RDMA_NLDEV_ATTR_LINK_TYPE, "kiw");
	len = nl_put(buf, len, RDMA_NLDEV_ATTR_NDEV_NAME, d->netdev);
	h->nlmsg_len = len;
	h->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
					 RDMA_NLDEV_CMD_NEWLINK);
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	h->nlmsg_seq = 1;
	arm_op(n);
	ret = send(d->sock, buf, len, 0);
	err = ret < 0 ? errno : 0;
	op_done(n);
	if (!err) {
		ret = recv(d->sock, ack, sizeof(ack), 0);
		h = (struct nlmsghdr *)ack;
		if (ret < 0)
			err = errno;
		else if (ret < (int)NLMSG_HDRLEN || h->nlmsg_type != NLMSG_ERROR)
			err = EIO;
		else {
			e = NLMSG_DATA(h);
			err = -e->error;
		}
	}
	if (!err) {
		snprintf(cmd, sizeof(cmd), "rdma link delete %s", d->name);
		if (system(cmd))
			warnf("%s failed", cmd);
	}
	return err;
}

static int do_devadd(const char *name, const char *netdev)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct devadd d = { .name = name, .netdev = netdev };

	d.sock = socket(AF_NETLINK, SOCK_RAW, NETLINK_RDMA);
	if (d.sock < 0 || bind(d.sock, (struct sockaddr *)&sa, sizeof(sa)))
		die("netlink");
	return sweep("devadd", devadd_op, &d);
}

/* ---- verbs: each object's creation, the others made without faults ---- */

struct verbs {
	struct ibv_device *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	void *buf;
};

static int v_open(void *arg, int n)
{
	struct verbs *v = arg;
	struct ibv_context *ctx;

	arm_op(n);
	ctx = ibv_open_device(v->dev);
	op_done(n);
	if (!ctx)
		return errno ?: EIO;
	ibv_close_device(ctx);
	return 0;
}

static int v_pd(void *arg, int n)
{
	struct verbs *v = arg;
	struct ibv_pd *pd;

	arm_op(n);
	pd = ibv_alloc_pd(v->ctx);
	op_done(n);
	if (!pd)
		return errno ?: EIO;
	ibv_dealloc_pd(pd);
	return 0;
}

static int v_cq(void *arg, int n)
{
	struct verbs *v = arg;
	struct ibv_cq *cq;

	arm_op(n);
	cq = ibv_create_cq(v->ctx, 64, NULL, NULL, 0);
	op_done(n);
	if (!cq)
		return errno ?: EIO;
	ibv_destroy_cq(cq);
	return 0;
}

static int v_mr(void *arg, int n)
{
	struct verbs *v = arg;
	struct ibv_mr *mr;

	arm_op(n);
	mr = ibv_reg_mr(v->pd, (char *)v->buf + 100, 5 * 4096,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ);
	op_done(n);
	if (!mr)
		return errno ?: EIO;
	ibv_dereg_mr(mr);
	return 0;
}

static int v_qp(void *arg, int n)
{
	struct verbs *v = arg;
	struct ibv_qp_init_attr a = {
		.send_cq = v->cq, .recv_cq = v->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};
	struct ibv_qp *qp;

	arm_op(n);
	qp = ibv_create_qp(v->pd, &a);
	op_done(n);
	if (!qp)
		return errno ?: EIO;
	ibv_destroy_qp(qp);
	return 0;
}

static int do_verbs(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct verbs v = { 0 };
	int i, bad = 0;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			v.dev = list[i];
	if (!v.dev)
		die("no such device");
	bad |= sweep("open", v_open, &v);
	v.ctx = ibv_open_device(v.dev);
	if (!v.ctx)
		die("ibv_open_device");
	bad |= sweep("alloc_pd", v_pd, &v);
	bad |= sweep("create_cq", v_cq, &v);
	v.pd = ibv_alloc_pd(v.ctx);
	v.cq = ibv_create_cq(v.ctx, 64, NULL, NULL, 0);
	v.buf = aligned_alloc(4096, 8 * 4096);
	if (!v.pd || !v.cq || !v.buf)
		die("setup");
	bad |= sweep("reg_mr", v_mr, &v);
	bad |= sweep("create_qp", v_qp, &v);
	ibv_destroy_cq(v.cq);
	ibv_dealloc_pd(v.pd);
	ibv_close_device(v.ctx);
	ibv_free_device_list(list);
	return bad;
}

/* ---- connect / accept ---- */

struct cm {
	struct rdma_event_channel *ch;
	struct sockaddr_storage addr;
	int accept_n;		/* accept: the next request's fault point */
};

/* The next event for @id (others are acked and dropped), or -1. */
static int next_event(struct cm *c, struct rdma_cm_id *id, double wait,
		      struct rdma_cm_id **evid)
{
	double end = now() + wait;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *eid;
	int type;

	while (now() < end) {
		ev = cm_event_wait(c->ch, 50);
		if (!ev)
			continue;
		type = ev->event;
		eid = ev->id;
		rdma_ack_cm_event(ev);	/* frees ev */
		if (evid)
			*evid = eid;
		if (!id || eid == id || type == RDMA_CM_EVENT_CONNECT_REQUEST)
			return type;
	}
	return -1;
}

static int cm_qp(struct rdma_cm_id *id, struct ibv_pd **pd, struct ibv_cq **cq)
{
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	*pd = ibv_alloc_pd(id->verbs);
	*cq = *pd ? ibv_create_cq(id->verbs, 16, NULL, NULL, 0) : NULL;
	if (!*cq)
		return -1;
	a.send_cq = *cq;
	a.recv_cq = *cq;
	return rdma_create_qp(id, *pd, &a);
}

static void cm_free(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_cq *cq)
{
	if (id->qp)
		rdma_destroy_qp(id);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
}

/* One connection; the n-th fault point (if n) in rdma_connect(). */
static int connect_op(void *arg, int n)
{
	struct cm *c = arg;
	struct rdma_conn_param p = { .responder_resources = 1,
				     .initiator_depth = 1 };
	struct rdma_cm_id *id;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	int ret, ev;

	if (rdma_create_id(c->ch, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&c->addr, 2000))
		die("rdma_resolve_addr");
	ev = next_event(c, id, 10, NULL);
	if (ev != RDMA_CM_EVENT_ADDR_RESOLVED)
		die_ev("address resolution", ev);
	if (rdma_resolve_route(id, 2000))
		die("rdma_resolve_route");
	ev = next_event(c, id, 10, NULL);
	if (ev != RDMA_CM_EVENT_ROUTE_RESOLVED)
		die_ev("route resolution", ev);
	if (cm_qp(id, &pd, &cq))
		die("PD, CQ or QP");
	arm_op(n);
	ret = rdma_connect(id, &p) ? errno : 0;
	op_done(n);
	if (!ret) {
		ev = next_event(c, id, 20, NULL);
		if (ev == RDMA_CM_EVENT_ESTABLISHED) {
			rdma_disconnect(id);
			next_event(c, id, 10, NULL);
		} else {
			ret = ev < 0 ? ETIMEDOUT : ECONNREFUSED;
		}
	}
	cm_free(id, pd, cq);
	return ret;
}

static int do_connect(struct cm *c)
{
	int i, bad = 0;

	if (!nconns)
		return sweep("connect", connect_op, c);
	for (i = 0; i < nconns; i++) {
		int ret = connect_op(c, 0);

		printf("CONN n=%d ret=%s\n", i, err_name(ret));
		bad += ret != 0;
	}
	printf("CONNS total=%d failed=%d\n", nconns, bad);
	return 0;
}

/* Accept requests; request k gets its k-th fault point armed. */
static int do_accept(struct cm *c)
{
	struct rdma_conn_param p = { .responder_resources = 1,
				     .initiator_depth = 1 };
	struct rdma_cm_id *lid, *id;
	int n = 1, failed = 0, ok = 0, ev, ret;
	struct ibv_pd *pd;
	struct ibv_cq *cq;

	if (rdma_create_id(c->ch, &lid, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(lid, (struct sockaddr *)&c->addr) ||
	    rdma_listen(lid, 16))
		die("listen");
	printf("LISTENING\n");
	for (;;) {
		ev = next_event(c, NULL, 60, &id);
		if (ev < 0)
			break;
		if (ev != RDMA_CM_EVENT_CONNECT_REQUEST)
			continue;
		if (cm_qp(id, &pd, &cq))
			die("QP");
		arm_op(n);
		ret = rdma_accept(id, &p) ? errno : 0;
		op_done(n);
		if (!g_fired) {
			printf("SWEEP op=accept points=%d failed=%d ok=%d last=%s\n",
			       n - 1, failed, ok, err_name(ret));
			n = 0;
		} else {
			printf("TRY op=accept n=%d ret=%s\n", n, err_name(ret));
			ret ? failed++ : ok++;
			n += stride;
		}
		if (!ret) {
			ev = next_event(c, id, 20, NULL);
			if (ev == RDMA_CM_EVENT_ESTABLISHED)
				next_event(c, id, 20, NULL);
		}
		cm_free(id, pd, cq);
		if (!n)
			break;
	}
	rdma_destroy_id(lid);
	return 0;
}

int main(int argc, char **argv)
{
	struct cm c = { 0 };
	int ch;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((ch = getopt(argc, argv, "m:n:s:")) != -1) {
		if (ch == 'm')
			max_n = atoi(optarg);
		else if (ch == 's')
			stride = atoi(optarg) > 0 ? atoi(optarg) : 1;
		else if (ch == 'n')
			nconns = atoi(optarg);
		else
			return 2;
	}
	argc -= optind;
	argv += optind;
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (nth_fd < 0 && !nconns)	/* -n needs no fault injection */
		die("/proc/thread-self/fail-nth");
	if (argc == 3 && !strcmp(argv[0], "devadd"))
		return !!do_devadd(argv[1], argv[2]);
	if (argc == 2 && !strcmp(argv[0], "verbs"))
		return !!do_verbs(argv[1]);
	if (argc != 3 || (strcmp(argv[0], "connect") &&
			  strcmp(argv[0], "accept"))) {
		fprintf(stderr, "usage: fault_tool [-m MAX] [-n CONNS] devadd NAME NETDEV | verbs DEV | connect|accept ADDR PORT\n");
		return 2;
	}
	c.ch = rdma_create_event_channel();
	if (!c.ch)
		die("rdma_create_event_channel");
	parse_addr(argv[1], argv[2], &c.addr);
	return argv[0][0] == 'c' ? !!do_connect(&c) : !!do_accept(&c);
}
