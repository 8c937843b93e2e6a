/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw per-device counters, read through the RDMA core's hardware
 * statistics ("rdma statistic show link <dev>/1", and
 * /sys/class/infiniband/<dev>/ports/1/hw_counters/).
 *
 * Each counter is a per-CPU u64, bumped with this_cpu_inc()/this_cpu_add()
 * where the event happens (any context: no lock, no shared cache line on
 * the data path) and summed over the CPUs when read. The sum is exact
 * once the events have stopped; while they go on it is a snapshot, as
 * counters are. (A 32-bit kernel could read a torn value while another
 * CPU carries into the upper half; kiw targets 64-bit machines.)
 *
 * Octets ("bytes") are whole FPDUs as MPA frames them: ULPDU_Length, the
 * ULPDU (DDP and RDMAP headers, payload), PAD and CRC; markers are not
 * counted. The MPA Request and Reply are not FPDUs.
 *
 * Documentation/admin-guide.rst lists every counter with its meaning;
 * keep the two in step.
 */
#ifndef KIW_STATS_H
#define KIW_STATS_H

#include <linux/percpu.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <kiw/rdmap.h>

#include "kiw.h"

struct kiw_cep;
struct kiw_txb;
struct kiw_fpdu_rx;
struct socket;

enum kiw_stat {
	/* Full Operation (FPDUs, kiw_tx_msg.c, kiw_tx.c, kiw_rx.c) */
	KIW_STAT_TX_FPDUS,
	KIW_STAT_TX_BYTES,
	KIW_STAT_RX_FPDUS,		/* good ones: CRC and framing checked */
	KIW_STAT_RX_BYTES,
	KIW_STAT_RX_CRC_ERRORS,		/* MPA CRC mismatch (LLP code 2) */
	KIW_STAT_RX_MARKER_ERRORS,	/* bad marker or framing (LLP code 3) */

	/* Terminate messages, by the layer of their error */
	KIW_STAT_TX_TERM_RDMAP,
	KIW_STAT_TX_TERM_DDP,
	KIW_STAT_TX_TERM_MPA,
	KIW_STAT_RX_TERM_RDMAP,
	KIW_STAT_RX_TERM_DDP,
	KIW_STAT_RX_TERM_MPA,

	/* Connections (kiw_cm.c) */
	KIW_STAT_CONN_ATTEMPTS,		/* iw_connect: we start TCP and MPA */
	KIW_STAT_CONN_REQUESTS,		/* a listener accepted a TCP connection */
	KIW_STAT_CONN_ESTABLISHED,	/* MPA done, Full Operation */
	KIW_STAT_CONN_REJECTS_SENT,	/* our Reply had R set */
	KIW_STAT_CONN_REJECTS_RECEIVED,	/* the peer's Reply had R set */
	KIW_STAT_CONN_MPA_ERRORS,	/* a malformed or unusable MPA frame */
	KIW_STAT_CONN_TIMEOUTS,		/* MPA startup or graceful close */
	KIW_STAT_CONN_RESETS,		/* RST or a TCP error */

	/* TCP, summed when a connection's socket is released */
	KIW_STAT_TCP_RETRANSMITS,

	KIW_STAT_COUNT
};

struct kiw_stats {
	u64 v[KIW_STAT_COUNT];
};

static inline void kiw_stats_inc(struct kiw_device *kdev, enum kiw_stat s)
{
	this_cpu_inc(kdev->stats->v[s]);
}

static inline void kiw_stats_add(struct kiw_device *kdev, enum kiw_stat s,
				 u64 n)
{
	this_cpu_add(kdev->stats->v[s], n);
}

/* Device lifetime (kiw_dev.c). */
int kiw_stats_init(struct kiw_device *kdev);
void kiw_stats_fini(struct kiw_device *kdev);
void kiw_stats_read(struct kiw_device *kdev, u64 *v);
const char *kiw_stat_name(enum kiw_stat s);
extern const struct ib_device_ops kiw_stats_ops;

/* Where the events happen: one call each. */
void kiw_stats_tx_fpdu(struct kiw_device *kdev, const struct kiw_txb *b);
void kiw_stats_rx_fpdu(struct kiw_device *kdev, const struct kiw_fpdu_rx *f,
		       kiw_term_t verdict);
void kiw_stats_term(struct kiw_device *kdev, kiw_term_t term, bool tx);
void kiw_stats_cep_new(struct kiw_device *kdev, bool active);
void kiw_stats_cep_step(const struct kiw_cep *cep, int prev, int ev);
void kiw_stats_sock_release(struct kiw_device *kdev,
			    const struct socket *sock);

/* Pure (KUnit): which counter an event moves, or -1 for none. */
int kiw_stats_term_counter(kiw_term_t term, bool tx);
int kiw_stats_rx_counter(kiw_term_t verdict);
int kiw_stats_cep_counter(int prev, int ev, int next);
unsigned int kiw_stats_fpdu_octets(unsigned int ulpdu_len);

#endif /* KIW_STATS_H */
