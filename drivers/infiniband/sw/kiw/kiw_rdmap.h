/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RDMAP protocol logic (RFC 5040): the control octet check, the RDMA Read
 * Request header, the Terminate message, and what a Terminate error means
 * to the local consumer. Pure functions, like kiw_ddp.h: no sockets, no
 * verbs objects, no allocation, no locks.
 */
#ifndef KIW_RDMAP_H
#define KIW_RDMAP_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <kiw/rdmap.h>

#include "kiw_ddp.h"

/* ---- Control octet ---- */

kiw_term_t kiw_rdmap_rx_check(u8 ddp_ctrl, u8 rdmap_ctrl, u32 qn);

/* The four Send variants: untagged, QN 0, consume a receive WQE. */
static inline bool kiw_rdmap_is_send(u8 opcode)
{
	return opcode >= KIW_RDMAP_SEND && opcode <= KIW_RDMAP_SEND_SE_INV;
}

/* RsvdULP octets 1-4 carry an STag to invalidate (RFC 5040 4.1). */
static inline bool kiw_rdmap_has_inval_stag(u8 opcode)
{
	return opcode == KIW_RDMAP_SEND_INV || opcode == KIW_RDMAP_SEND_SE_INV;
}

/* The message asks for a Solicited Event at the receiver. */
static inline bool kiw_rdmap_is_solicited(u8 opcode)
{
	return opcode == KIW_RDMAP_SEND_SE || opcode == KIW_RDMAP_SEND_SE_INV;
}

/* ---- RDMA Read Request ---- */

/* An RDMA Read Request in host order (struct kiw_rdmap_read_req). */
struct kiw_rdmap_rreq {
	u32 sink_stag;	/* requester's buffer, written by the Read Response */
	u64 sink_to;
	u32 size;	/* octets; 0 is a valid, empty read */
	u32 src_stag;	/* responder's buffer, read from */
	u64 src_to;
};

void kiw_rdmap_read_req_build(struct kiw_rdmap_read_req *w,
			      const struct kiw_rdmap_rreq *rr);
kiw_term_t kiw_rdmap_read_req_parse(const void *buf, u32 len,
				    struct kiw_rdmap_rreq *rr);
kiw_term_t kiw_rdmap_check_read_resp(const struct kiw_rdmap_rreq *rr,
				     u32 done, const struct kiw_ddp_info *seg);

/*
 * Whether the responder must run the STag access check (remote read,
 * bounds, no 64-bit TO wrap; kiw_mem.c) on the source before queuing the
 * Read Response. An empty read names no memory: its STags are not checked
 * (RFC 5041 section 5.2 for the zero-length Read Response it yields).
 */
static inline bool kiw_rdmap_read_req_src_check(const struct kiw_rdmap_rreq *rr)
{
	return rr->size != 0;
}

/* ---- Terminate ---- */

u32 kiw_rdmap_term_hdrct(kiw_term_t err);
unsigned int kiw_rdmap_term_build(struct kiw_rdmap_term *term, kiw_term_t err,
				  const void *hdr, unsigned int hdr_len,
				  u16 seg_len);

/* A received Terminate, parsed. Every field came from the peer. */
struct kiw_rdmap_term_info {
	kiw_term_t err;		/* always an error (KIW_TERM_VALID set) */
	u32 hdrct;		/* KIW_TERM_CTRL_M/D/R of the parts parsed */
	u16 ddp_seg_len;	/* with M */
	struct kiw_ddp_info ddp;	/* with D: the terminated header */
	struct kiw_rdmap_rreq rreq;	/* with R: the terminated Read Req. */
};

int kiw_rdmap_term_parse(const void *buf, unsigned int len,
			 struct kiw_rdmap_term_info *ti);

/* ---- What the local consumer sees ---- */

struct kiw_term_report {
	enum ib_event_type event;	/* the QP's affiliated async event */
	enum ib_wc_status wc_status;	/* the affected work request's */
};

struct kiw_term_report kiw_term_report(kiw_term_t err, bool received);

#endif /* KIW_RDMAP_H */
