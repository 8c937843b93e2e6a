/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * MPA wire format: RFC 5044 (Marker PDU Aligned Framing for TCP) and the
 * RFC 6581 enhanced connection setup (MPA revision 2).
 *
 * Startup: each side sends one Request or Reply frame, a 20-octet header
 * followed by PD_Length octets of private data, as plain TCP bytes (no CRC,
 * no markers, no padding). Full Operation then carries FPDUs:
 *
 *   ULPDU_Length (16) | ULPDU (one DDP segment) | PAD (0-3) | CRC32c (32)
 *
 * with a 4-octet marker wherever the TCP stream offset, counted from the
 * first octet of Full Operation on that half-connection (SeqStart), is a
 * multiple of 512, when the receiver of that direction asked for markers.
 *
 * Every multi-octet field is big-endian except the CRC, which goes on the
 * wire least significant octet first (RFC 5044 section 4.4, Figure 5).
 */
#ifndef KIW_WIRE_MPA_H
#define KIW_WIRE_MPA_H

#include <linux/build_bug.h>
#include <linux/types.h>

/*
 * Startup keys (RFC 5044 section 7.1.1): 16 ASCII octets, no terminator,
 * compared raw. They differ only in octet 9 ('q' 0x71 vs 'p' 0x70).
 */
#define KIW_MPA_KEY_LEN 16
#define KIW_MPA_KEY_REQ { 0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52, \
			  0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65 }
#define KIW_MPA_KEY_REP { 0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52, \
			  0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65 }

/* Request/Reply frame header; private data follows. */
struct kiw_mpa_hdr {
	u8 key[KIW_MPA_KEY_LEN];
	u8 flags;		/* M | C | R | S | Res (KIW_MPA_FLAG_*) */
	u8 rev;
	__be16 pd_len;		/* octets of private data that follow */
} __packed;
static_assert(sizeof(struct kiw_mpa_hdr) == 20);

/*
 * The flags octet (octet 16), most significant bit first:
 *   M  the sender of this frame wants markers in the FPDUs it receives
 *   C  the sender asks for CRC32c (either side asking turns it on)
 *   R  Reply only: 1 rejects the connection; sent 0 and ignored in a Request
 *   S  RFC 6581, revision 2 only: the private data starts with the
 *      enhanced connection data (struct kiw_mpa_v2); in a revision 1 frame
 *      it is one of the Res bits
 *   Res  sent 0, ignored on receive
 */
#define KIW_MPA_FLAG_MARKERS	0x80
#define KIW_MPA_FLAG_CRC	0x40
#define KIW_MPA_FLAG_REJECT	0x20
#define KIW_MPA_FLAG_ENHANCED	0x10
#define KIW_MPA_FLAG_RES_REV1	0x1f
#define KIW_MPA_FLAG_RES_REV2	0x0f

/* Rev: 0 is the RDMA Consortium's pre-IETF MPA (RFC 5044 Appendix C). */
#define KIW_MPA_REV_RDMAC	0
#define KIW_MPA_REV_1		1	/* RFC 5044 */
#define KIW_MPA_REV_2		2	/* RFC 6581 */

/* Private data: at most 512 octets, including the RFC 6581 word. */
#define KIW_MPA_PD_MAX		512

/*
 * RFC 6581 enhanced connection data: the first four octets of the private
 * data of a revision 2 frame with S set, counted in PD_Length.
 *
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+---------------------------+-+-+---------------------------+
 *  |A|B|           IRD             |C|D|           ORD             |
 *  +-+-+---------------------------+-+-+---------------------------+
 *
 *   A    peer-to-peer: the initiator sends a ready-to-receive (RTR) message
 *        as its first FPDU; a responder MUST echo A in its Reply
 *   B    RTR may be / is a zero-length Send
 *   C    RTR may be / is a zero-length RDMA Write
 *   D    RTR may be / is a zero-length RDMA Read
 *   IRD  inbound RDMA Read queue depth (14 bits)
 *   ORD  outbound RDMA Read queue depth (14 bits)
 *
 * In a Request, B/C/D are the RTR types the initiator can send; in the
 * Reply exactly one of them, the one the initiator must send. The masks
 * below apply to the word in host order (be16_to_cpu()); they are the same
 * as in Linux siw (iwarp.h) and cxgb4 (iw_cxgb4.h).
 */
struct kiw_mpa_v2 {
	__be16 ird;		/* A | B | IRD */
	__be16 ord;		/* C | D | ORD */
} __packed;
static_assert(sizeof(struct kiw_mpa_v2) == 4);

#define KIW_MPA_V2_P2P		0x8000	/* A, in the IRD word */
#define KIW_MPA_V2_RTR_SEND	0x4000	/* B, in the IRD word */
#define KIW_MPA_V2_RTR_WRITE	0x8000	/* C, in the ORD word */
#define KIW_MPA_V2_RTR_READ	0x4000	/* D, in the ORD word */
#define KIW_MPA_V2_IRD_ORD_MASK	0x3fff

/* FPDU framing (RFC 5044 section 4). */
#define KIW_MPA_ULPDU_LEN_SIZE	2	/* the ULPDU_Length field */
#define KIW_MPA_CRC_SIZE	4
#define KIW_MPA_MARKER_SIZE	4
#define KIW_MPA_MARKER_INTERVAL	512	/* octets of stream between markers */

/* Octets of framing around a ULPDU, markers not counted. */
#define KIW_MPA_FPDU_OVERHEAD	(KIW_MPA_ULPDU_LEN_SIZE + KIW_MPA_CRC_SIZE)

/* MULPDU bounds (RFC 5044 section 3); DDP never posts a larger ULPDU. */
#define KIW_MPA_MULPDU_MIN	128
#define KIW_MPA_MULPDU_MAX	64768
#define KIW_MPA_ULPDU_MAX	KIW_MPA_MULPDU_MAX

/* PAD: 0-3 zero octets making ULPDU_Length + ULPDU + PAD a multiple of 4. */
static inline unsigned int kiw_mpa_pad(unsigned int ulpdu_len)
{
	return -(KIW_MPA_ULPDU_LEN_SIZE + ulpdu_len) & 3;
}

/*
 * Marker (RFC 5044 section 4.2). FPDUPTR is the distance in octets from
 * the first octet of the ULPDU_Length of the FPDU the marker sits in back
 * to the marker; 0 for a marker just before an ULPDU_Length, which belongs
 * to that (following) FPDU. Its two low bits are sent 0 and ignored on
 * receive; RESERVED is sent 0 and ignored, but covered by the CRC.
 */
struct kiw_mpa_marker {
	__be16 rsvd;
	__be16 fpduptr;
} __packed;
static_assert(sizeof(struct kiw_mpa_marker) == KIW_MPA_MARKER_SIZE);

#define KIW_MPA_FPDUPTR_MASK	0xfffc

#endif /* KIW_WIRE_MPA_H */
