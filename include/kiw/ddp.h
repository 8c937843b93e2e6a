/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * DDP wire format (RFC 5041 section 4) and error numbers (section 7.2).
 *
 * Each DDP segment is one MPA ULPDU. Its first octet is the DDP control
 * field; the second (RsvdULP) belongs to the ULP, which for iWARP is the
 * RDMAP control octet (include/kiw/rdmap.h).
 */
#ifndef KIW_WIRE_DDP_H
#define KIW_WIRE_DDP_H

#include <linux/build_bug.h>
#include <linux/types.h>

/* DDP control octet: T | L | Rsvd (4 bits) | DV (2 bits). */
#define KIW_DDP_FLAG_TAGGED	0x80
#define KIW_DDP_FLAG_LAST	0x40
#define KIW_DDP_MASK_RSVD	0x3c
#define KIW_DDP_MASK_VERSION	0x03
#define KIW_DDP_VERSION		1

/* Tagged buffer model header: 14 octets. */
struct kiw_ddp_tagged_hdr {
	u8 ddp_ctrl;
	u8 rdmap_ctrl;		/* RsvdULP */
	__be32 stag;
	__be64 to;
} __packed;
static_assert(sizeof(struct kiw_ddp_tagged_hdr) == 14);

/* Untagged buffer model header: 18 octets. */
struct kiw_ddp_untagged_hdr {
	u8 ddp_ctrl;
	u8 rdmap_ctrl;		/* RsvdULP octet 0 */
	__be32 ulp_word;	/* RsvdULP octets 1-4: RDMAP Invalidate STag */
	__be32 qn;
	__be32 msn;
	__be32 mo;
} __packed;
static_assert(sizeof(struct kiw_ddp_untagged_hdr) == 18);

/* Untagged queue numbers used by RDMAP (RFC 5040 section 5.1). */
enum kiw_ddp_qn {
	KIW_DDP_QN_SEND = 0,		/* Send variants; consume receive WQEs */
	KIW_DDP_QN_READ_REQ = 1,	/* RDMA Read Requests; bounded by IRD */
	KIW_DDP_QN_TERMINATE = 2,
	KIW_DDP_QN_COUNT = 3
};

/* The first MSN of every queue; it wraps from 0xffffffff to 0. */
#define KIW_DDP_MSN_FIRST 1

/* The longest DDP header (untagged). */
#define KIW_DDP_HDR_MAX_LEN	sizeof(struct kiw_ddp_untagged_hdr)

/*
 * The control octet of a segment we send: DV 1, Rsvd 0 (RFC 5041 section
 * 4.1): 0x01/0x41 untagged, 0x81/0xc1 tagged, without/with L.
 */
static inline u8 kiw_ddp_ctrl(bool tagged, bool last)
{
	return (tagged ? KIW_DDP_FLAG_TAGGED : 0) |
	       (last ? KIW_DDP_FLAG_LAST : 0) | KIW_DDP_VERSION;
}

static inline bool kiw_ddp_is_tagged(u8 ddp_ctrl)
{
	return ddp_ctrl & KIW_DDP_FLAG_TAGGED;
}

static inline bool kiw_ddp_is_last(u8 ddp_ctrl)
{
	return ddp_ctrl & KIW_DDP_FLAG_LAST;
}

static inline u8 kiw_ddp_version(u8 ddp_ctrl)
{
	return ddp_ctrl & KIW_DDP_MASK_VERSION;
}

static inline unsigned int kiw_ddp_hdr_len(u8 ddp_ctrl)
{
	return kiw_ddp_is_tagged(ddp_ctrl) ?
	       sizeof(struct kiw_ddp_tagged_hdr) :
	       sizeof(struct kiw_ddp_untagged_hdr);
}

/* DDP error types and codes (RFC 5041 section 7.2). */
enum kiw_ddp_etype {
	KIW_DDP_ETYPE_CATASTROPHIC = 0x0,
	KIW_DDP_ETYPE_TAGGED = 0x1,
	KIW_DDP_ETYPE_UNTAGGED = 0x2,
	KIW_DDP_ETYPE_RSVD_LLP = 0x3,
};

enum kiw_ddp_ecode {
	/* KIW_DDP_ETYPE_CATASTROPHIC */
	KIW_DDP_ECODE_CATASTROPHIC = 0x00,
	/* KIW_DDP_ETYPE_TAGGED */
	KIW_DDP_ECODE_T_INVALID_STAG = 0x00,
	KIW_DDP_ECODE_T_BASE_BOUNDS = 0x01,
	KIW_DDP_ECODE_T_STAG_NOT_ASSOC = 0x02,
	KIW_DDP_ECODE_T_TO_WRAP = 0x03,
	KIW_DDP_ECODE_T_VERSION = 0x04,
	/* KIW_DDP_ETYPE_UNTAGGED */
	KIW_DDP_ECODE_UT_INVALID_QN = 0x01,
	KIW_DDP_ECODE_UT_INVALID_MSN_NOBUF = 0x02,
	KIW_DDP_ECODE_UT_INVALID_MSN_RANGE = 0x03,
	KIW_DDP_ECODE_UT_INVALID_MO = 0x04,
	KIW_DDP_ECODE_UT_MSG_TOOLONG = 0x05,
	KIW_DDP_ECODE_UT_VERSION = 0x06,
};

#endif /* KIW_WIRE_DDP_H */
