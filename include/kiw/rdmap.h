/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RDMAP wire format (RFC 5040): the control octet carried in DDP's RsvdULP,
 * the RDMA Read Request header, and the Terminate message with its
 * layer/type/code error values (RFC 5040 section 7, RFC 6581 for the
 * enhanced-connection LLP codes).
 */
#ifndef KIW_WIRE_RDMAP_H
#define KIW_WIRE_RDMAP_H

#include <linux/build_bug.h>
#include <linux/types.h>

#include <kiw/ddp.h>

/* RDMAP control octet: RV (2 bits) | Rsvd (2 bits) | Opcode (4 bits). */
#define KIW_RDMAP_MASK_VERSION	0xc0
#define KIW_RDMAP_SHIFT_VERSION	6
#define KIW_RDMAP_MASK_RSVD	0x30
#define KIW_RDMAP_MASK_OPCODE	0x0f
#define KIW_RDMAP_VERSION	1

enum kiw_rdmap_opcode {
	KIW_RDMAP_WRITE = 0x0,
	KIW_RDMAP_READ_REQ = 0x1,
	KIW_RDMAP_READ_RESP = 0x2,
	KIW_RDMAP_SEND = 0x3,
	KIW_RDMAP_SEND_INV = 0x4,
	KIW_RDMAP_SEND_SE = 0x5,
	KIW_RDMAP_SEND_SE_INV = 0x6,
	KIW_RDMAP_TERMINATE = 0x7,
	KIW_RDMAP_OPCODE_COUNT
};

static inline u8 kiw_rdmap_ctrl(enum kiw_rdmap_opcode op)
{
	return (KIW_RDMAP_VERSION << KIW_RDMAP_SHIFT_VERSION) | op;
}

static inline u8 kiw_rdmap_version(u8 rdmap_ctrl)
{
	return (rdmap_ctrl & KIW_RDMAP_MASK_VERSION) >> KIW_RDMAP_SHIFT_VERSION;
}

static inline u8 kiw_rdmap_opcode(u8 rdmap_ctrl)
{
	return rdmap_ctrl & KIW_RDMAP_MASK_OPCODE;
}

/*
 * RDMA Read Request header (RFC 5040 section 4.4): the payload of an
 * untagged DDP segment on QN 1 (KIW_DDP_QN_READ_REQ), right after its
 * 18-octet DDP header. The Data Sink is the requester's buffer (the Read
 * Response is written there), the Data Source the responder's.
 */
struct kiw_rdmap_read_req {
	__be32 sink_stag;
	__be64 sink_to;
	__be32 size;		/* RDMA Read Message Size, octets */
	__be32 src_stag;
	__be64 src_to;
} __packed;
static_assert(sizeof(struct kiw_rdmap_read_req) == 28);

/* Terminate error layers (RFC 5040 section 7.3). */
enum kiw_term_layer {
	KIW_TERM_LAYER_RDMAP = 0x0,
	KIW_TERM_LAYER_DDP = 0x1,
	KIW_TERM_LAYER_LLP = 0x2,	/* MPA */
};

/* RDMAP error types and codes (Terminate layer 0). */
enum kiw_rdmap_etype {
	KIW_RDMAP_ETYPE_CATASTROPHIC = 0x0,
	KIW_RDMAP_ETYPE_REMOTE_PROT = 0x1,
	KIW_RDMAP_ETYPE_REMOTE_OP = 0x2,
};

enum kiw_rdmap_ecode {
	/* KIW_RDMAP_ETYPE_CATASTROPHIC */
	KIW_RDMAP_ECODE_CATASTROPHIC = 0x00,
	/* KIW_RDMAP_ETYPE_REMOTE_PROT */
	KIW_RDMAP_ECODE_INVALID_STAG = 0x00,
	KIW_RDMAP_ECODE_BASE_BOUNDS = 0x01,
	KIW_RDMAP_ECODE_ACCESS_RIGHTS = 0x02,
	KIW_RDMAP_ECODE_STAG_NOT_ASSOC = 0x03,
	KIW_RDMAP_ECODE_TO_WRAP = 0x04,
	KIW_RDMAP_ECODE_CANNOT_INVALIDATE = 0x09,
	KIW_RDMAP_ECODE_UNSPECIFIED = 0xff,
	/* KIW_RDMAP_ETYPE_REMOTE_OP */
	KIW_RDMAP_ECODE_INVALID_VERSION = 0x05,
	KIW_RDMAP_ECODE_UNEXPECTED_OPCODE = 0x06,
	KIW_RDMAP_ECODE_CATASTROPHIC_STREAM = 0x07,
	KIW_RDMAP_ECODE_CATASTROPHIC_GLOBAL = 0x08,
	/* 0x09 CANNOT_INVALIDATE and 0xff UNSPECIFIED as above */
};

/* LLP (MPA) error codes (RFC 5044 section 8; 0x05-0x07 from RFC 6581). */
enum kiw_llp_ecode {
	KIW_LLP_ECODE_CONN_LOST = 0x01,
	KIW_LLP_ECODE_CRC = 0x02,
	KIW_LLP_ECODE_MARKER = 0x03,
	KIW_LLP_ECODE_BAD_FRAME = 0x04,
	KIW_LLP_ECODE_LOCAL_CATASTROPHIC = 0x05,
	KIW_LLP_ECODE_INSUFFICIENT_IRD = 0x06,
	KIW_LLP_ECODE_NO_MATCHING_RTR = 0x07,
};

#define KIW_LLP_ETYPE_MPA 0x0

/*
 * A Terminate error as one value: the top 16 bits of the Terminate control
 * word (layer (4 bits) | etype (4 bits) | ecode (8 bits)) plus a bit that
 * marks it as an error, so that every error, including RDMAP local
 * catastrophic (all zero on the wire), differs from KIW_TERM_NONE.
 */
typedef u32 kiw_term_t;

#define KIW_TERM_VALID 0x10000u
#define KIW_TERM(layer, etype, ecode) \
	((kiw_term_t)(KIW_TERM_VALID | (((layer) & 0xf) << 12) | \
		      (((etype) & 0xf) << 8) | ((ecode) & 0xff)))
#define KIW_TERM_NONE ((kiw_term_t)0)

/* The 16 bits that go on the wire. */
static inline u16 kiw_term_wire(kiw_term_t t)
{
	return t & 0xffff;
}

static inline u8 kiw_term_layer(kiw_term_t t)
{
	return (t >> 12) & 0xf;
}

static inline u8 kiw_term_etype(kiw_term_t t)
{
	return (t >> 8) & 0xf;
}

static inline u8 kiw_term_ecode(kiw_term_t t)
{
	return t & 0xff;
}

/*
 * Terminate header (RFC 5040 section 4.8): the payload of the untagged DDP
 * segment on QN 2 (KIW_DDP_QN_TERMINATE) that carries the Terminate
 * message. Its first 32 bits are the Terminate control word:
 *
 *   Layer (4) | EType (4) | Error Code (8) | M | D | R | Reserved (13)
 *
 * M: the DDP Segment Length field is valid; D: the Terminated DDP Header is
 * included; R: the Terminated RDMA Header is included. The optional fields
 * follow in this order, each present only as announced:
 *
 *   DDP Segment Length (16 bits): the length of the offending DDP segment
 *     (DDP header and payload: the MPA ULPDU_Length that carried it);
 *   Terminated DDP Header: the offending segment's DDP header as received,
 *     14 octets if tagged, 18 if untagged (its own T bit tells which);
 *   Terminated RDMA Header: when the offending message is an RDMA Read
 *     Request, its 28-octet Read Request header.
 *
 * struct kiw_rdmap_term is the longest form; a Terminate is 4 octets (the
 * control word alone) up to sizeof(struct kiw_rdmap_term).
 */
#define KIW_TERM_CTRL_LAYER	0xf0000000u
#define KIW_TERM_CTRL_ETYPE	0x0f000000u
#define KIW_TERM_CTRL_ECODE	0x00ff0000u
#define KIW_TERM_CTRL_M		0x00008000u
#define KIW_TERM_CTRL_D		0x00004000u
#define KIW_TERM_CTRL_R		0x00002000u
#define KIW_TERM_CTRL_HDRCT	(KIW_TERM_CTRL_M | KIW_TERM_CTRL_D | \
				 KIW_TERM_CTRL_R)
#define KIW_TERM_CTRL_RSVD	0x00001fffu

struct kiw_rdmap_term {
	__be32 ctrl;
	__be16 ddp_seg_len;
	u8 hdrs[KIW_DDP_HDR_MAX_LEN + sizeof(struct kiw_rdmap_read_req)];
} __packed;
static_assert(sizeof(struct kiw_rdmap_term) == 52);

#define KIW_RDMAP_TERM_MIN_LEN	sizeof(__be32)
#define KIW_RDMAP_TERM_MAX_LEN	sizeof(struct kiw_rdmap_term)

/* The Terminate control word for an error, without M/D/R. */
static inline u32 kiw_term_ctrl(kiw_term_t t)
{
	return (u32)kiw_term_wire(t) << 16;
}

/* The error a received Terminate control word reports. */
static inline kiw_term_t kiw_term_from_ctrl(u32 ctrl)
{
	return KIW_TERM(ctrl >> 28, ctrl >> 24, ctrl >> 16);
}

#endif /* KIW_WIRE_RDMAP_H */
