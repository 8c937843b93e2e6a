/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw tracepoints: /sys/kernel/tracing/events/kiw/. Like every
 * tracepoint they are off until enabled, and cost a static branch then.
 *
 *   kiw_cep_state    a connection endpoint's state machine takes a step
 *                    (TCP up, MPA Request/Reply, accept, reject, close)
 *   kiw_mpa_result   what MPA negotiated, as Full Operation begins
 *   kiw_qp_state     a QP changes state (IDLE, RTS, CLOSING, TERMINATE,
 *                    ERROR)
 *   kiw_term_tx      a Terminate goes out, with its layer, type and code
 *   kiw_term_rx      a Terminate arrived from the peer
 *   kiw_fpdu_tx      an FPDU is framed for sending (data path)
 *   kiw_fpdu_rx      an FPDU was received, with the parser's verdict
 *   kiw_rx_run       one run of the receive engine: the octets it took
 *                    of its budget, and whether it ran in softirq
 *
 * The structures are only dereferenced in kiw_trace.c, which defines the
 * events (CREATE_TRACE_POINTS); callers see the prototypes.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kiw

#if !defined(KIW_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define KIW_TRACE_H

#include <linux/in6.h>
#include <linux/tracepoint.h>
#include <kiw/rdmap.h>

struct kiw_cep;
struct kiw_fpdu_rx;
struct kiw_llp_params;
struct kiw_qp;
struct kiw_txb;

/*
 * Names are copied into fixed arrays, not __string(): the way a dynamic
 * string is assigned changed in 6.10, and an array reads the same on every
 * kernel. A device name is at most IB_DEVICE_NAME_MAX (64) octets; the
 * state machine's names are short.
 */
#define KIW_TRACE_DEV_LEN	64
#define KIW_TRACE_NAME_LEN	24

/* Addresses: an IPv6 socket address holds either family. */
#define KIW_TRACE_ADDR_LEN sizeof(struct sockaddr_in6)

#define kiw_show_opcode(op)						\
	__print_symbolic(op, { 0, "write" }, { 1, "read_req" },		\
			 { 2, "read_resp" }, { 3, "send" },		\
			 { 4, "send_inv" }, { 5, "send_se" },		\
			 { 6, "send_se_inv" }, { 7, "terminate" })

#define kiw_show_layer(l)						\
	__print_symbolic(l, { 0, "rdmap" }, { 1, "ddp" }, { 2, "mpa" })

#define kiw_show_qp_state(s)						\
	__print_symbolic(s, { 0, "idle" }, { 1, "rts" }, { 2, "closing" }, \
			 { 3, "terminate" }, { 4, "error" })

#define kiw_show_rtr(r)							\
	__print_symbolic(r, { 0, "none" }, { 1, "send" }, { 2, "write" }, \
			 { 3, "read" })

/* The line of an FPDU event; @fmt and its arguments follow. */
#define KIW_TRACE_FPDU_PRINTK(fmt, ...)					\
	TP_printk("%s qp=%u off=%u ulpdu=%u %s%s %s=0x%x %s=0x%llx msn=%u" fmt, \
		  __entry->dev, __entry->qpn, __entry->off,		\
		  __entry->ulpdu, kiw_show_opcode(__entry->rdmap_ctrl & 0xf), \
		  __entry->ddp_ctrl & 0x40 ? " last" : "",		\
		  __entry->ddp_ctrl & 0x80 ? "stag" : "qn",		\
		  __entry->stag_qn,					\
		  __entry->ddp_ctrl & 0x80 ? "to" : "mo",		\
		  __entry->to_mo, __entry->msn, ##__VA_ARGS__)

TRACE_EVENT(kiw_cep_state,
	    TP_PROTO(const struct kiw_cep *cep, int prev, int ev),
	    TP_ARGS(cep, prev, ev),
	    TP_STRUCT__entry(__array(char, dev, KIW_TRACE_DEV_LEN)
			     __field(const void *, cep)
			     __field(bool, active)
			     __array(char, ev, KIW_TRACE_NAME_LEN)
			     __array(char, prev, KIW_TRACE_NAME_LEN)
			     __array(char, next, KIW_TRACE_NAME_LEN)
			     __array(u8, local, KIW_TRACE_ADDR_LEN)
			     __array(u8, remote, KIW_TRACE_ADDR_LEN)),
	    TP_fast_assign(strscpy(__entry->dev, kiw_trace_cep_dev(cep),
				   KIW_TRACE_DEV_LEN);
			   __entry->cep = cep;
			   __entry->active = kiw_trace_cep_active(cep);
			   strscpy(__entry->ev, kiw_trace_cep_event(ev),
				   KIW_TRACE_NAME_LEN);
			   strscpy(__entry->prev, kiw_trace_cep_state(prev),
				   KIW_TRACE_NAME_LEN);
			   strscpy(__entry->next,
				   kiw_trace_cep_state(kiw_trace_cep_now(cep)),
				   KIW_TRACE_NAME_LEN);
			   kiw_trace_cep_addrs(cep, __entry->local,
					       __entry->remote)),
	    TP_printk("%s cep=%p %s %pISpc -> %pISpc: %s: %s -> %s",
		      __entry->dev, __entry->cep,
		      __entry->active ? "initiator" : "responder",
		      __entry->local, __entry->remote, __entry->ev,
		      __entry->prev, __entry->next)
);

TRACE_EVENT(kiw_mpa_result,
	    TP_PROTO(const struct kiw_cep *cep,
		     const struct kiw_llp_params *p),
	    TP_ARGS(cep, p),
	    TP_STRUCT__entry(__array(char, dev, KIW_TRACE_DEV_LEN)
			     __field(u32, qpn)
			     __field(bool, initiator)
			     __field(u8, rev)
			     __field(bool, crc)
			     __field(bool, tx_markers)
			     __field(bool, rx_markers)
			     __field(u32, ird)
			     __field(u32, ord)
			     __field(u8, rtr)
			     __field(bool, hold_tx)
			     __array(u8, remote, KIW_TRACE_ADDR_LEN)),
	    TP_fast_assign(strscpy(__entry->dev, kiw_trace_cep_dev(cep),
				   KIW_TRACE_DEV_LEN);
			   kiw_trace_mpa_assign(cep, p, &__entry->qpn,
						&__entry->initiator,
						&__entry->rev, &__entry->crc,
						&__entry->tx_markers,
						&__entry->rx_markers,
						&__entry->ird, &__entry->ord,
						&__entry->rtr,
						&__entry->hold_tx,
						__entry->remote)),
	    TP_printk("%s qp=%u %pISpc %s rev=%u crc=%d markers tx=%d rx=%d ird=%u ord=%u rtr=%s hold_tx=%d",
		      __entry->dev, __entry->qpn, __entry->remote,
		      __entry->initiator ? "initiator" : "responder",
		      __entry->rev, __entry->crc, __entry->tx_markers,
		      __entry->rx_markers, __entry->ird, __entry->ord,
		      kiw_show_rtr(__entry->rtr), __entry->hold_tx)
);

TRACE_EVENT(kiw_qp_state,
	    TP_PROTO(const struct kiw_qp *qp, int prev, int next),
	    TP_ARGS(qp, prev, next),
	    TP_STRUCT__entry(__array(char, dev, KIW_TRACE_DEV_LEN)
			     __field(u32, qpn)
			     __field(u8, prev)
			     __field(u8, next)),
	    TP_fast_assign(strscpy(__entry->dev, kiw_trace_qp_dev(qp),
				   KIW_TRACE_DEV_LEN);
			   __entry->qpn = kiw_trace_qpn(qp);
			   __entry->prev = prev;
			   __entry->next = next),
	    TP_printk("%s qp=%u %s -> %s", __entry->dev, __entry->qpn,
		      kiw_show_qp_state(__entry->prev),
		      kiw_show_qp_state(__entry->next))
);

DECLARE_EVENT_CLASS(kiw_term_class,
		    TP_PROTO(const struct kiw_qp *qp, kiw_term_t term),
		    TP_ARGS(qp, term),
		    TP_STRUCT__entry(__array(char, dev, KIW_TRACE_DEV_LEN)
				     __field(u32, qpn)
				     __field(u8, layer)
				     __field(u8, etype)
				     __field(u8, ecode)),
		    TP_fast_assign(strscpy(__entry->dev, kiw_trace_qp_dev(qp),
					   KIW_TRACE_DEV_LEN);
				   __entry->qpn = kiw_trace_qpn(qp);
				   __entry->layer = kiw_term_layer(term);
				   __entry->etype = kiw_term_etype(term);
				   __entry->ecode = kiw_term_ecode(term)),
		    TP_printk("%s qp=%u layer=%s type=0x%x code=0x%02x",
			      __entry->dev, __entry->qpn,
			      kiw_show_layer(__entry->layer), __entry->etype,
			      __entry->ecode)
);

DEFINE_EVENT(kiw_term_class, kiw_term_tx,
	     TP_PROTO(const struct kiw_qp *qp, kiw_term_t term),
	     TP_ARGS(qp, term));

DEFINE_EVENT(kiw_term_class, kiw_term_rx,
	     TP_PROTO(const struct kiw_qp *qp, kiw_term_t term),
	     TP_ARGS(qp, term));

/*
 * An FPDU: its stream offset from SeqStart, ULPDU_Length, and its DDP
 * header decoded, tagged (STag, TO) or untagged (QN, MO, MSN). Sent, it is
 * the one kiw_txb_add() just added to @b (@f NULL); received, it is @f as
 * the parser ends it, with the parser's @verdict (@b NULL). One class, so
 * one record: a sent FPDU's verdict is 0 and not printed.
 */
DECLARE_EVENT_CLASS(kiw_fpdu_class,
		    TP_PROTO(const struct kiw_qp *qp, const struct kiw_txb *b,
			     const struct kiw_fpdu_rx *f, kiw_term_t verdict),
		    TP_ARGS(qp, b, f, verdict),
		    TP_STRUCT__entry(__array(char, dev, KIW_TRACE_DEV_LEN)
				     __field(u32, qpn)
				     __field(u32, off)
				     __field(u16, ulpdu)
				     __field(u8, ddp_ctrl)
				     __field(u8, rdmap_ctrl)
				     __field(u32, stag_qn)
				     __field(u32, msn)
				     __field(u64, to_mo)
				     __field(u32, verdict)),
		    TP_fast_assign(strscpy(__entry->dev, kiw_trace_qp_dev(qp),
					   KIW_TRACE_DEV_LEN);
				   __entry->qpn = kiw_trace_qpn(qp);
				   kiw_trace_fpdu(b, f, &__entry->off,
						  &__entry->ulpdu,
						  &__entry->ddp_ctrl,
						  &__entry->rdmap_ctrl,
						  &__entry->stag_qn,
						  &__entry->msn,
						  &__entry->to_mo);
				   __entry->verdict = verdict),
		    KIW_TRACE_FPDU_PRINTK("%s", "")
);

DEFINE_EVENT(kiw_fpdu_class, kiw_fpdu_tx,
	     TP_PROTO(const struct kiw_qp *qp, const struct kiw_txb *b,
		      const struct kiw_fpdu_rx *f, kiw_term_t verdict),
	     TP_ARGS(qp, b, f, verdict));

DEFINE_EVENT_PRINT(kiw_fpdu_class, kiw_fpdu_rx,
		   TP_PROTO(const struct kiw_qp *qp, const struct kiw_txb *b,
			    const struct kiw_fpdu_rx *f, kiw_term_t verdict),
		   TP_ARGS(qp, b, f, verdict),
		   KIW_TRACE_FPDU_PRINTK(" verdict=%s/0x%x/0x%02x",
					 __entry->verdict ?
					 kiw_show_layer((__entry->verdict >> 12) &
							0xf) : "ok",
					 (__entry->verdict >> 8) & 0xf,
					 __entry->verdict & 0xff));

TRACE_EVENT(kiw_rx_run,
	    TP_PROTO(const struct kiw_qp *qp, u32 budget, u32 taken,
		     bool softirq),
	    TP_ARGS(qp, budget, taken, softirq),
	    TP_STRUCT__entry(__array(char, dev, KIW_TRACE_DEV_LEN)
			     __field(u32, qpn)
			     __field(u32, budget)
			     __field(u32, taken)
			     __field(bool, softirq)),
	    TP_fast_assign(strscpy(__entry->dev, kiw_trace_qp_dev(qp),
				   KIW_TRACE_DEV_LEN);
			   __entry->qpn = kiw_trace_qpn(qp);
			   __entry->budget = budget;
			   __entry->taken = taken;
			   __entry->softirq = softirq),
	    TP_printk("%s qp=%u taken=%u budget=%u %s", __entry->dev,
		      __entry->qpn, __entry->taken, __entry->budget,
		      __entry->softirq ? "softirq" : "task")
);

#endif /* KIW_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE kiw_trace
#include <trace/define_trace.h>
