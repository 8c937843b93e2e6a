/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw receive engine: FPDUs from the socket, placement, completions.
 *
 * Context. The socket's sk_data_ready (softirq, or process context when
 * the socket lock's owner releases it; bottom halves off either way) runs
 * the engine through tcp_read_sock(), at most KIW_RX_BH_BUDGET octets per
 * call; the rest is left to the receive work item, which takes the
 * socket lock, runs in process context and queues itself again after
 * each KIW_RX_BUDGET octets. While that work is queued, sk_data_ready
 * takes nothing: the work takes what arrives meanwhile, in order. So the
 * work of one softirq is bounded however fast the peer sends and however
 * slow the CPU (placement and CRC of a whole socket buffer under an
 * emulated CPU take seconds). kiw_llp_attach() and kiw_llp_drain() run
 * the engine with the socket lock held too. So every run is serialized
 * by the socket lock, and the state below belongs to whichever run holds
 * it: it needs no lock of its own.
 *
 * With CRC, an FPDU is taken only once all of it is queued in the socket:
 * its CRC is checked over the skbs first (RFC 5044 section 6, MPA-RX-1;
 * kiw_fpdu.h, "Verify first"), and one that fails puts nothing in the
 * consumer's memory. What is not all there yet stays in the socket until
 * the next sk_data_ready.
 *
 * Per FPDU, the parser (kiw_fpdu.h) calls:
 *   hdr()  DDP and RDMAP checks (kiw_ddp.h order), the STag check, and the
 *          placement target: nothing is placed unless they all pass;
 *   data() placement straight from the skbs into the target pages (the
 *          CRC computed in the same pass when it was not checked ahead:
 *          without CRC, nothing; kiw_rx_place.c);
 *   end()  the FPDU is good (CRC verified): account for the segment, and
 *          complete the message on its last segment. Or it is not: stop
 *          receiving for good and terminate (RFC 5044 section 8, RFC 5041
 *          section 7.1): nothing more is placed or delivered.
 *
 * Regions are referenced only while a run places into them (the
 * reference is dropped when the run ends, even inside an FPDU, and taken
 * again, with the checks, when its next octets arrive): dereg_mr waits
 * for those references, and the peer decides when the next octets come.
 */
#ifndef KIW_RX_H
#define KIW_RX_H

#include <linux/net.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "kiw_ddp.h"
#include "kiw_fpdu.h"
#include "kiw_mem.h"
#include "kiw_mpa.h"

struct kiw_llp_params;
struct kiw_qp;
struct kiw_rqe;

/*
 * Octets one sk_data_ready call takes before it defers to the work: the
 * default of the module parameter rx_softirq_budget (kiw_rx.c).
 */
#define KIW_RX_BH_BUDGET	(64 * 1024)
/* Octets one run in process context takes before it yields the CPU. */
#define KIW_RX_BUDGET		(256 * 1024)

/* Where the payload of the current segment goes. */
enum kiw_place_kind {
	KIW_PLACE_NONE,		/* zero-length segment */
	KIW_PLACE_TAGGED,	/* a region by STag: Write, Read Response */
	KIW_PLACE_SGL,		/* a receive WR's SGEs: Send */
	KIW_PLACE_BUF,		/* kernel memory: Read Request, Terminate */
};

struct kiw_rx_place {
	enum kiw_place_kind kind;
	struct kiw_device *kdev;
	const struct ib_pd *pd;
	u32 left;		/* octets of the segment still to place */
	/* KIW_PLACE_TAGGED: the next octet's STag and TO */
	u32 stag;
	u64 to;
	enum kiw_stag_use use;
	/* KIW_PLACE_SGL: the receive WR, the next octet's SGE and offset */
	const struct kiw_rqe *rqe;
	u8 sge;
	u32 sge_off;
	/* KIW_PLACE_BUF */
	u8 *buf;
	/* The region being written, while referenced (@mr != NULL). */
	struct kiw_mr *mr;
	struct kiw_mr_map map;
	struct kiw_mem_iter it;
	/* A receive WR's SGE was refused: the status it completes with. */
	enum ib_wc_status status;
};

/* Per-QP receive state, embedded in struct kiw_qp. */
struct kiw_rx {
	struct kiw_fpdu_rx fpdu;	/* MPA: framing, markers, CRC */
	struct kiw_ddp_rx ddp;		/* DDP: per-queue reassembly */
	struct kiw_ddp_info seg;	/* the current segment */
	u8 hdr[KIW_DDP_HDR_MAX_LEN];	/* its header, as received */
	u16 seg_len;			/* its ULPDU_Length */
	bool have_seg;			/* hdr() parsed it */
	struct kiw_rx_place place;
	struct kiw_rqe *rqe;		/* receive WR of the Send in progress */
	bool rqe_valid;
	u32 orq_done;			/* octets placed of the Read Response */
	u8 term_buf[KIW_RDMAP_TERM_MAX_LEN];	/* a Terminate received */
	enum kiw_rtr await_rtr;		/* responder: the first FPDU is this */
	bool got_fpdu;			/* a good FPDU arrived */
	bool stopped;			/* an error: discard everything */

	/* Attachment (kiw_llp.c): set before the callbacks are switched. */
	struct socket *sock;
	struct work_struct work;	/* the rest beyond a budget */
};

/* As kiw_tx_qp_init() / kiw_tx_qp_release(), for the receive state. */
void kiw_rx_qp_init(struct kiw_qp *qp);
void kiw_rx_qp_release(struct kiw_qp *qp);

/* kiw_rx.c, for kiw_llp.c */
int kiw_rx_attach(struct kiw_qp *qp, const struct kiw_llp_params *p);
void kiw_rx_detach(struct kiw_qp *qp);
int kiw_rx_run(struct kiw_qp *qp, struct sock *sk, size_t budget);
void kiw_rx_data_ready(struct kiw_qp *qp, struct sock *sk);
void kiw_rx_run_done(struct kiw_qp *qp);

/* kiw_rx_place.c: placement, pure but for the STag table lookups. */
void kiw_place_init(struct kiw_rx_place *pl, struct kiw_device *kdev,
		    const struct ib_pd *pd);
kiw_term_t kiw_place_tagged(struct kiw_rx_place *pl, u32 stag, u64 to,
			    u32 len, enum kiw_stag_use use);
kiw_term_t kiw_place_sgl(struct kiw_rx_place *pl, const struct kiw_rqe *rqe,
			 u32 mo, u32 len);
void kiw_place_buf(struct kiw_rx_place *pl, u8 *buf, u32 len);
void kiw_place_none(struct kiw_rx_place *pl);
kiw_term_t kiw_place_data(struct kiw_rx_place *pl, struct kiw_fpdu_rx *rx,
			  const struct sk_buff *skb, unsigned int off,
			  unsigned int len);
void kiw_place_put(struct kiw_rx_place *pl);

#endif /* KIW_RX_H */
