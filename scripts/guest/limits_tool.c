// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * limits_tool: a kiw device at and past its limits, for the VM test
 * scripts/tests/verbs_limits.sh. Every mode prints what it saw as
 * "KEY value" lines and ends with "DONE"; the test asserts on them.
 *
 *   count DEV KIND [N]   KIND qp|mr|pd|cq|srq: create objects of KIND
 *       until there are as many as query_device allows (or N, if given,
 *       for a quick run), then one more (its errno is EXTRA_ERRNO); then a
 *       second process (PROBE) opens the device and creates a PD and a CQ
 *       (and tries one more object of KIND: PROBE_EXTRA_ERRNO); one object
 *       is destroyed and another created in its place (REFILL), the next
 *       fails again (EXTRA2_ERRNO), and all are destroyed. QPs have the
 *       smallest queues and share one CQ and one PD; MRs all register the
 *       same page.
 *   probe DEV [KIND]     the PROBE above (run by count)
 *   memlock DEV          under RLIMIT_MEMLOCK L (not root, no
 *       CAP_IPC_LOCK): one registration of L + 1 page fails, one of L
 *       works, one more page on top fails; after deregistering, a page
 *       and L - 1 page work, a page more fails; after deregistering
 *       everything, L works again. Each step prints "STEP name ok|errno".
 *   server -b ADDR -p PORT [-o ORD] [-i IRD] [-n READS] [-s SIZE]
 *   client -a ADDR -p PORT [-o ORD] [-i IRD] [-n READS] [-s SIZE] [-P]
 *       one connection, the server's region (READS * SIZE octets, a
 *       pattern) readable; the client asks for ORD outbound and IRD
 *       inbound Reads (rdma_conn_param initiator_depth / responder_
 *       resources; the server accepts with its own), reports what the
 *       connection settled (the event's and query_qp's values), posts
 *       READS Reads of SIZE octets at once, each to its own slice, and
 *       checks that every one completes, successfully, in order, with its
 *       data. If rdma_connect fails: CONNECT_ERRNO (then it connects with
 *       RDMA_MAX_INIT_DEPTH / RDMA_MAX_RESP_RES). -P: port space RDMA_PS_IB,
 *       for which librdmacm does not check the values against the device
 *       (it does for RDMA_PS_TCP), so that they reach the kernel as given.
 *
 * kiw-ldlibs: -lrdmacm -libverbs
 */
#include "tool_lib.h"
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define PAGE 4096

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	if (!list)
		die("ibv_get_device_list");
	for (int i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx) {
		errno = ENODEV;
		die(name);
	}
	return ctx;
}

/* ---- count ---- */

struct pool {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	void *page;
	const char *kind;
};

/* One object of the pool's kind, or NULL with errno set. */
static void *obj_create(struct pool *p)
{
	const char *k = p->kind;

	if (!strcmp(k, "qp")) {
		struct ibv_qp_init_attr a = {
			.send_cq = p->cq, .recv_cq = p->cq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		return ibv_create_qp(p->pd, &a);
	}
	if (!strcmp(k, "mr"))
		return ibv_reg_mr(p->pd, p->page, PAGE, IBV_ACCESS_LOCAL_WRITE);
	if (!strcmp(k, "pd"))
		return ibv_alloc_pd(p->ctx);
	if (!strcmp(k, "cq"))
		return ibv_create_cq(p->ctx, 1, NULL, NULL, 0);
	if (!strcmp(k, "srq")) {
		struct ibv_srq_init_attr a = { .attr = { .max_wr = 1,
							 .max_sge = 1 } };

		return ibv_create_srq(p->pd, &a);
	}
	errno = EINVAL;
	return NULL;
}

static int obj_destroy(struct pool *p, void *o)
{
	const char *k = p->kind;

	if (!strcmp(k, "qp"))
		return ibv_destroy_qp(o);
	if (!strcmp(k, "mr"))
		return ibv_dereg_mr(o);
	if (!strcmp(k, "pd"))
		return ibv_dealloc_pd(o);
	if (!strcmp(k, "cq"))
		return ibv_destroy_cq(o);
	return ibv_destroy_srq(o);
}

static int kind_max(struct pool *p, const struct ibv_device_attr *a)
{
	const char *k = p->kind;

	if (!strcmp(k, "qp"))
		return a->max_qp;
	if (!strcmp(k, "mr"))
		return a->max_mr;
	if (!strcmp(k, "pd"))
		return a->max_pd;
	if (!strcmp(k, "cq"))
		return a->max_cq;
	return a->max_srq;
}

/* One more: it must fail; its errno, or 0 if it was created (and kept). */
static int one_more(struct pool *p, void **slot)
{
	void *o;

	errno = 0;
	o = obj_create(p);
	if (o) {
		*slot = o;
		return 0;
	}
	return errno ? errno : -1;
}

static void pool_open(struct pool *p, const char *dev, const char *kind)
{
	p->kind = kind;
	p->ctx = open_dev(dev);
	p->pd = ibv_alloc_pd(p->ctx);
	if (!p->pd)
		die("ibv_alloc_pd");
	p->cq = ibv_create_cq(p->ctx, 4, NULL, NULL, 0);
	if (!p->cq)
		die("ibv_create_cq");
	p->page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->page == MAP_FAILED)
		die("mmap");
}

/*
 * The objects the pool itself holds (one PD, one CQ) count against the
 * device's limits too: fewer of those kinds may be created.
 */
static int pool_own(const char *kind)
{
	return !strcmp(kind, "pd") || !strcmp(kind, "cq");
}

static int run_probe(const char *dev, const char *kind)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		die("fork");
	if (!pid) {
		execl("/proc/self/exe", "limits_tool", "probe", dev, kind,
		      (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		die("waitpid");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int cmd_probe(const char *dev, const char *kind)
{
	struct pool p = {};
	void *extra = NULL;
	int e;

	fflush(stdout);
	/* pool_open dies (status 2) unless the PD and the CQ are created. */
	pool_open(&p, dev, kind);
	printf("PROBE_PD_CQ ok\n");
	if (!pool_own(kind)) {
		e = one_more(&p, &extra);
		printf("PROBE_EXTRA_ERRNO %d\n", e);
		if (extra)
			obj_destroy(&p, extra);
	}
	ibv_destroy_cq(p.cq);
	ibv_dealloc_pd(p.pd);
	ibv_close_device(p.ctx);
	fflush(stdout);
	return 0;
}

static int cmd_count(const char *dev, const char *kind, int limit)
{
	struct ibv_device_attr attr;
	struct pool p = {};
	void **objs, *extra = NULL;
	int max, want, n, e, fails = 0;
	double t0, t;

	pool_open(&p, dev, kind);
	if (ibv_query_device(p.ctx, &attr))
		die("ibv_query_device");
	max = kind_max(&p, &attr);
	want = max - (pool_own(kind) ? 1 : 0);
	if (limit > 0 && limit < want)
		want = limit;
	printf("MAX %d\nWANT %d\n", max, want);
	objs = calloc(want, sizeof(*objs));
	if (!objs)
		die("calloc");

	t0 = now();
	for (n = 0; n < want; n++) {
		objs[n] = obj_create(&p);
		if (!objs[n]) {
			printf("CREATE_FAILED at %d errno %d (%s)\n", n, errno,
			       strerror(errno));
			break;
		}
	}
	t = now() - t0;
	printf("CREATED %d\nCREATE_MS_EACH %.3f\n", n, n ? t * 1e3 / n : 0.0);
	fflush(stdout);
	if (n == want && want == max - pool_own(kind)) {
		e = one_more(&p, &extra);
		printf("EXTRA_ERRNO %d\n", e);
		fflush(stdout);
		/* A full device of PDs or CQs leaves none for a probe. */
		if (!pool_own(kind))
			printf("PROBE_STATUS %d\n", run_probe(dev, kind));
		if (extra) {
			obj_destroy(&p, extra);
			extra = NULL;
		}
		/* One freed, one created in its place, the next refused. */
		if (obj_destroy(&p, objs[n - 1]))
			fails++;
		objs[n - 1] = obj_create(&p);
		printf("REFILL %s\n", objs[n - 1] ? "ok" : strerror(errno));
		if (!objs[n - 1])
			n--;
		e = one_more(&p, &extra);
		printf("EXTRA2_ERRNO %d\n", e);
		if (extra)
			obj_destroy(&p, extra);
	}

	t0 = now();
	for (int i = 0; i < n; i++)
		if (obj_destroy(&p, objs[i]))
			fails++;
	t = now() - t0;
	printf("DESTROY_FAILS %d\nDESTROY_MS_EACH %.3f\n", fails,
	       n ? t * 1e3 / n : 0.0);
	if (ibv_destroy_cq(p.cq) || ibv_dealloc_pd(p.pd))
		die("destroying the pool");
	ibv_close_device(p.ctx);
	free(objs);
	printf("DONE\n");
	return 0;
}

/* ---- memlock ---- */

static struct ibv_mr *reg(struct ibv_pd *pd, char *buf, size_t len,
			  const char *step)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE);

	if (mr)
		printf("STEP %s ok\n", step);
	else
		printf("STEP %s errno %d\n", step, errno);
	return mr;
}

static void dereg(struct ibv_mr **mr)
{
	if (*mr && ibv_dereg_mr(*mr))
		die("ibv_dereg_mr");
	*mr = NULL;
}

static int cmd_memlock(const char *dev)
{
	struct ibv_mr *a, *b, *c;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct rlimit rl;
	size_t lim;
	char *buf;

	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		die("getrlimit");
	lim = rl.rlim_cur;
	printf("MEMLOCK %zu\nUID %u\n", lim, (unsigned int)geteuid());
	if (lim == RLIM_INFINITY || lim % PAGE || lim > (64u << 20)) {
		errno = EINVAL;
		die("RLIMIT_MEMLOCK must be a few pages");
	}
	ctx = open_dev(dev);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd");
	/* Page-aligned, so that a registration pins exactly len / PAGE. */
	buf = mmap(NULL, 2 * lim + PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		die("mmap");
	memset(buf, 1, 2 * lim + PAGE);

	a = reg(pd, buf, lim + PAGE, "over_limit_at_once");
	dereg(&a);
	a = reg(pd, buf, lim, "exactly_limit");
	b = reg(pd, buf + lim, PAGE, "one_page_past_limit");
	dereg(&b);
	dereg(&a);
	a = reg(pd, buf, PAGE, "after_dereg_one_page");
	b = reg(pd, buf + PAGE, lim - PAGE, "after_dereg_fill_to_limit");
	c = reg(pd, buf + lim, PAGE, "after_dereg_one_page_past_limit");
	dereg(&c);
	dereg(&b);
	dereg(&a);
	a = reg(pd, buf + PAGE, lim, "after_dereg_all_limit_again");
	dereg(&a);
	if (ibv_dealloc_pd(pd))
		die("ibv_dealloc_pd");
	ibv_close_device(ctx);
	printf("DONE\n");
	return 0;
}

/* ---- Reads ---- */

struct region {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
} __attribute__((packed));

static struct {
	const char *addr, *port;
	int ord, ird, reads, size;
	bool server;
	enum rdma_port_space ps;
} opt = { .ord = 2, .ird = 2, .reads = 64, .size = 1000, .ps = RDMA_PS_TCP };

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 13 + (i >> 10) + 5);
}

static void rdma_setup(struct rdma_cm_id *id, struct ibv_pd **pd,
		       struct ibv_mr **mr, unsigned char **buf, size_t len)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC, .sq_sig_all = 1,
		.cap = { .max_send_wr = opt.reads, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_cq *cq;

	*pd = ibv_alloc_pd(id->verbs);
	cq = ibv_create_cq(id->verbs, opt.reads + 4, NULL, NULL, 0);
	if (!*pd || !cq)
		die("ibv_alloc_pd/ibv_create_cq");
	*buf = malloc(len);
	if (!*buf)
		die("malloc");
	/*
	 * The client's region is the sink of its Reads: iWARP names it in
	 * the Read Request (its STag), so it needs remote write access.
	 */
	*mr = ibv_reg_mr(*pd, *buf, len, opt.server ?
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ :
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!*mr)
		die("ibv_reg_mr");
	qa.send_cq = cq;
	qa.recv_cq = cq;
	if (rdma_create_qp(id, *pd, &qa))
		die("rdma_create_qp");
}

static void print_settled(struct rdma_cm_id *id, const char *who,
			  const struct rdma_conn_param *ev)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;

	printf("%s_EVENT initiator_depth=%u responder_resources=%u\n", who,
	       ev->initiator_depth, ev->responder_resources);
	if (ibv_query_qp(id->qp, &qa, IBV_QP_MAX_QP_RD_ATOMIC |
			 IBV_QP_MAX_DEST_RD_ATOMIC, &ia))
		die("ibv_query_qp");
	printf("%s_QP ord=%u ird=%u\n", who, qa.max_rd_atomic,
	       qa.max_dest_rd_atomic);
}

static int cmd_server(void)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE,
				       .ai_port_space = opt.ps,
				       .ai_qp_type = IBV_QPT_RC }, *res;
	struct rdma_conn_param cp = { .initiator_depth = opt.ord,
				      .responder_resources = opt.ird };
	size_t len = (size_t)opt.reads * opt.size;
	struct rdma_cm_id *lid, *id;
	struct rdma_cm_event *ev;
	unsigned char *buf;
	struct region r;
	struct ibv_pd *pd;
	struct ibv_mr *mr;

	if (rdma_getaddrinfo(opt.addr, opt.port, &hints, &res))
		die("rdma_getaddrinfo");
	if (rdma_create_ep(&lid, res, NULL, NULL) || rdma_listen(lid, 1))
		die("rdma listen");
	printf("LISTENING\n");
	fflush(stdout);
	if (rdma_get_request(lid, &id))
		die("rdma_get_request");
	printf("SERVER_REQUEST initiator_depth=%u responder_resources=%u\n",
	       id->event->param.conn.initiator_depth,
	       id->event->param.conn.responder_resources);
	rdma_setup(id, &pd, &mr, &buf, len);
	for (size_t i = 0; i < len; i++)
		buf[i] = pattern(i);
	r.addr = htobe64((uintptr_t)buf);
	r.rkey = htonl(mr->rkey);
	r.len = htonl(len);
	cp.private_data = &r;
	cp.private_data_len = sizeof(r);
	if (rdma_accept(id, &cp)) {
		printf("ACCEPT_ERRNO %d\n", errno);
		cp.initiator_depth = RDMA_MAX_INIT_DEPTH;
		cp.responder_resources = RDMA_MAX_RESP_RES;
		if (rdma_accept(id, &cp))
			die("rdma_accept");
	}
	print_settled(id, "SERVER", &cp);
	fflush(stdout);
	/* The client disconnects when it has read everything. */
	ev = cm_event_get(id->channel);
	printf("SERVER_END %s\n", rdma_event_str(ev->event));
	rdma_ack_cm_event(ev);
	/*
	 * No rdma_disconnect(): on a synchronous id it waits for another
	 * DISCONNECTED event, and the one there is was just taken.
	 */
	rdma_destroy_ep(id);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	rdma_destroy_ep(lid);
	rdma_freeaddrinfo(res);
	printf("DONE\n");
	return 0;
}

/* Post every Read at once; reap all; check order, status and data. */
static void reads_run(struct rdma_cm_id *id, struct ibv_mr *mr,
		      unsigned char *buf, const struct region *peer)
{
	int posted = 0, done = 0, bad_status = 0, bad_order = 0, bad_data = 0;
	struct ibv_cq *cq = id->qp->send_cq;
	double end = now() + 120;

	memset(buf, 0, (size_t)opt.reads * opt.size);
	for (int k = 0; k < opt.reads; k++) {
		struct ibv_sge sge = { .addr = (uintptr_t)buf +
				       (size_t)k * opt.size,
				       .length = opt.size, .lkey = mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = k, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_READ,
			.wr.rdma = { .remote_addr = peer->addr +
				     (uint64_t)k * opt.size,
				     .rkey = peer->rkey },
		}, *badwr;

		if (ibv_post_send(id->qp, &wr, &badwr)) {
			printf("POST_FAILED at %d errno %d\n", k, errno);
			break;
		}
		posted++;
	}
	while (done < posted && now() < end) {
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(cq, 16, wc);

		if (n < 0)
			die("ibv_poll_cq");
		if (!n) {
			usleep(100);
			continue;
		}
		for (int i = 0; i < n; i++, done++) {
			if (wc[i].status != IBV_WC_SUCCESS ||
			    wc[i].opcode != IBV_WC_RDMA_READ) {
				if (!bad_status++)
					printf("FIRST_BAD wr_id %llu status %s\n",
					       (unsigned long long)wc[i].wr_id,
					       ibv_wc_status_str(wc[i].status));
			}
			if (wc[i].wr_id != (uint64_t)done)
				bad_order++;
		}
	}
	for (size_t i = 0; i < (size_t)done * opt.size; i++)
		if (buf[i] != pattern(i))
			bad_data++;
	printf("READS posted=%d completed=%d bad_status=%d bad_order=%d bad_octets=%d\n",
	       posted, done, bad_status, bad_order, bad_data);
}

static int cmd_client(void)
{
	struct rdma_addrinfo hints = { .ai_port_space = opt.ps,
				       .ai_qp_type = IBV_QPT_RC }, *res;
	struct rdma_conn_param cp = { .initiator_depth = opt.ord,
				      .responder_resources = opt.ird };
	size_t len = (size_t)opt.reads * opt.size;
	struct rdma_cm_id *id;
	struct region peer;
	unsigned char *buf;
	struct ibv_pd *pd;
	struct ibv_mr *mr;

	if (rdma_getaddrinfo(opt.addr, opt.port, &hints, &res))
		die("rdma_getaddrinfo");
	if (rdma_create_ep(&id, res, NULL, NULL))
		die("rdma_create_ep");
	rdma_setup(id, &pd, &mr, &buf, len);
	if (rdma_connect(id, &cp)) {
		printf("CONNECT_ERRNO %d\n", errno);
		/* Connect with what the device allows, for the server. */
		cp.initiator_depth = RDMA_MAX_INIT_DEPTH;
		cp.responder_resources = RDMA_MAX_RESP_RES;
		if (rdma_connect(id, &cp))
			die("rdma_connect");
	}
	if (!id->event || id->event->param.conn.private_data_len < sizeof(peer)) {
		errno = EPROTO;
		die("the server's private data");
	}
	memcpy(&peer, id->event->param.conn.private_data, sizeof(peer));
	peer.addr = be64toh(peer.addr);
	peer.rkey = ntohl(peer.rkey);
	peer.len = ntohl(peer.len);
	if (peer.len < len) {
		errno = EMSGSIZE;
		die("the server's region is smaller than READS * SIZE");
	}
	print_settled(id, "CLIENT", &id->event->param.conn);
	fflush(stdout);
	reads_run(id, mr, buf, &peer);
	rdma_disconnect(id);
	rdma_destroy_qp(id);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	rdma_destroy_ep(id);
	rdma_freeaddrinfo(res);
	free(buf);
	printf("DONE\n");
	return 0;
}

static int cmd_conn(int argc, char **argv)
{
	int c;

	opt.server = !strcmp(argv[1], "server");
	while ((c = getopt(argc - 1, argv + 1, "a:b:p:o:i:n:s:P")) != -1) {
		switch (c) {
		case 'a':
		case 'b':
			opt.addr = optarg;
			break;
		case 'p':
			opt.port = optarg;
			break;
		case 'o':
			opt.ord = atoi(optarg);
			break;
		case 'i':
			opt.ird = atoi(optarg);
			break;
		case 'n':
			opt.reads = atoi(optarg);
			break;
		case 's':
			opt.size = atoi(optarg);
			break;
		case 'P':
			opt.ps = RDMA_PS_IB;
			break;
		default:
			return 1;
		}
	}
	if (!opt.addr || !opt.port || opt.reads < 1 || opt.reads > 4096 ||
	    opt.size < 1 || opt.size > (1 << 20))
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	return opt.server ? cmd_server() : cmd_client();
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "count"))
		return cmd_count(argv[2], argv[3],
				 argc > 4 ? atoi(argv[4]) : 0);
	if (argc >= 3 && !strcmp(argv[1], "probe"))
		return cmd_probe(argv[2], argc > 3 ? argv[3] : "pd");
	if (argc >= 3 && !strcmp(argv[1], "memlock"))
		return cmd_memlock(argv[2]);
	if (argc >= 2 && (!strcmp(argv[1], "server") ||
			  !strcmp(argv[1], "client")))
		return cmd_conn(argc, argv);
	fprintf(stderr,
		"usage: limits_tool count DEV qp|mr|pd|cq|srq [N] | probe DEV [KIND] |\n"
		"       memlock DEV | server -b ADDR -p PORT [-o ORD] [-i IRD] [-n READS] [-s SIZE] |\n"
		"       client -a ADDR -p PORT [-o ORD] [-i IRD] [-n READS] [-s SIZE]\n");
	return 1;
}
