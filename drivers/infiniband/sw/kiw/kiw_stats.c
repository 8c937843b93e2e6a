// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kiw per-device counters (kiw_stats.h): what moves each one, and how the
 * RDMA core reads them (alloc_hw_port_stats, get_hw_stats).
 */
#include <linux/tcp.h>
#include <net/sock.h>
#include <kunit/visibility.h>

#include "kiw_cep.h"
#include "kiw_stats.h"
#include "kiw_tx_batch.h"

/* The names "rdma statistic" and sysfs show, in enum kiw_stat order. */
static const struct rdma_stat_desc kiw_stat_descs[] = {
	[KIW_STAT_TX_FPDUS] = { .name = "tx_fpdus" },
	[KIW_STAT_TX_BYTES] = { .name = "tx_bytes" },
	[KIW_STAT_RX_FPDUS] = { .name = "rx_fpdus" },
	[KIW_STAT_RX_BYTES] = { .name = "rx_bytes" },
	[KIW_STAT_RX_CRC_ERRORS] = { .name = "rx_crc_errors" },
	[KIW_STAT_RX_MARKER_ERRORS] = { .name = "rx_marker_errors" },
	[KIW_STAT_TX_TERM_RDMAP] = { .name = "tx_terminate_rdmap" },
	[KIW_STAT_TX_TERM_DDP] = { .name = "tx_terminate_ddp" },
	[KIW_STAT_TX_TERM_MPA] = { .name = "tx_terminate_mpa" },
	[KIW_STAT_RX_TERM_RDMAP] = { .name = "rx_terminate_rdmap" },
	[KIW_STAT_RX_TERM_DDP] = { .name = "rx_terminate_ddp" },
	[KIW_STAT_RX_TERM_MPA] = { .name = "rx_terminate_mpa" },
	[KIW_STAT_CONN_ATTEMPTS] = { .name = "conn_attempts" },
	[KIW_STAT_CONN_REQUESTS] = { .name = "conn_requests" },
	[KIW_STAT_CONN_ESTABLISHED] = { .name = "conn_established" },
	[KIW_STAT_CONN_REJECTS_SENT] = { .name = "conn_rejects_sent" },
	[KIW_STAT_CONN_REJECTS_RECEIVED] = { .name = "conn_rejects_received" },
	[KIW_STAT_CONN_MPA_ERRORS] = { .name = "conn_mpa_errors" },
	[KIW_STAT_CONN_TIMEOUTS] = { .name = "conn_timeouts" },
	[KIW_STAT_CONN_RESETS] = { .name = "conn_resets" },
	[KIW_STAT_TCP_RETRANSMITS] = { .name = "tcp_retransmits" },
};

static_assert(ARRAY_SIZE(kiw_stat_descs) == KIW_STAT_COUNT);

const char *kiw_stat_name(enum kiw_stat s)
{
	return s < KIW_STAT_COUNT ? kiw_stat_descs[s].name : "invalid";
}
EXPORT_SYMBOL_IF_KUNIT(kiw_stat_name);

int kiw_stats_init(struct kiw_device *kdev)
{
	kdev->stats = alloc_percpu(struct kiw_stats);
	return kdev->stats ? 0 : -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_stats_init);

void kiw_stats_fini(struct kiw_device *kdev)
{
	free_percpu(kdev->stats);
	kdev->stats = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(kiw_stats_fini);

/* Every counter, summed over the CPUs, into @v[KIW_STAT_COUNT]. */
void kiw_stats_read(struct kiw_device *kdev, u64 *v)
{
	int cpu, i;

	memset(v, 0, KIW_STAT_COUNT * sizeof(*v));
	for_each_possible_cpu(cpu) {
		const struct kiw_stats *s = per_cpu_ptr(kdev->stats, cpu);

		for (i = 0; i < KIW_STAT_COUNT; i++)
			v[i] += READ_ONCE(s->v[i]);
	}
}
EXPORT_SYMBOL_IF_KUNIT(kiw_stats_read);

/* Octets of an FPDU without markers: ULPDU_Length, ULPDU, PAD, CRC. */
unsigned int kiw_stats_fpdu_octets(unsigned int ulpdu_len)
{
	return KIW_MPA_FPDU_OVERHEAD + ulpdu_len + kiw_mpa_pad(ulpdu_len);
}
EXPORT_SYMBOL_IF_KUNIT(kiw_stats_fpdu_octets);

/* The FPDU just added to @b (kiw_txb_add()) goes out. */
void kiw_stats_tx_fpdu(struct kiw_device *kdev, const struct kiw_txb *b)
{
	const struct kiw_fpdu_layout *lay = &kiw_txb_last(b)->ftx.lay;

	kiw_stats_inc(kdev, KIW_STAT_TX_FPDUS);
	kiw_stats_add(kdev, KIW_STAT_TX_BYTES,
		      kiw_stats_fpdu_octets(lay->ulpdu_len));
}

/* The receive counter of an FPDU's verdict: good, or which error. */
int kiw_stats_rx_counter(kiw_term_t verdict)
{
	switch (verdict) {
	case KIW_TERM_NONE:
		return KIW_STAT_RX_FPDUS;
	case KIW_FPDU_ERR_CRC:
		return KIW_STAT_RX_CRC_ERRORS;
	case KIW_FPDU_ERR_MARKER:
		return KIW_STAT_RX_MARKER_ERRORS;
	default:
		/* DDP and RDMAP errors: counted as the Terminate sent. */
		return -1;
	}
}
EXPORT_SYMBOL_IF_KUNIT(kiw_stats_rx_counter);

/* The parser reached the end of an FPDU (end()) with @verdict. */
void kiw_stats_rx_fpdu(struct kiw_device *kdev, const struct kiw_fpdu_rx *f,
		       kiw_term_t verdict)
{
	int s = kiw_stats_rx_counter(verdict);

	if (s < 0)
		return;
	kiw_stats_inc(kdev, s);
	if (s == KIW_STAT_RX_FPDUS)
		kiw_stats_add(kdev, KIW_STAT_RX_BYTES,
			      kiw_stats_fpdu_octets(f->ulpdu_len));
}

int kiw_stats_term_counter(kiw_term_t term, bool tx)
{
	static const u8 by_layer[2][3] = {
		{ KIW_STAT_RX_TERM_RDMAP, KIW_STAT_RX_TERM_DDP,
		  KIW_STAT_RX_TERM_MPA },
		{ KIW_STAT_TX_TERM_RDMAP, KIW_STAT_TX_TERM_DDP,
		  KIW_STAT_TX_TERM_MPA },
	};
	u8 layer = kiw_term_layer(term);

	/* A peer may name any layer: only the three RFC 5040 ones count. */
	if (!term || layer > KIW_TERM_LAYER_LLP)
		return -1;
	return by_layer[tx][layer];
}
EXPORT_SYMBOL_IF_KUNIT(kiw_stats_term_counter);

/* A Terminate for @term was sent (@tx) or received. */
void kiw_stats_term(struct kiw_device *kdev, kiw_term_t term, bool tx)
{
	int s = kiw_stats_term_counter(term, tx);

	if (s >= 0)
		kiw_stats_inc(kdev, s);
}

/* A new endpoint: iw_connect (@active), or a listener's accept. */
void kiw_stats_cep_new(struct kiw_device *kdev, bool active)
{
	kiw_stats_inc(kdev, active ? KIW_STAT_CONN_ATTEMPTS :
				     KIW_STAT_CONN_REQUESTS);
}

/*
 * The counter a step of the endpoint state machine moves (kiw_cep.h):
 * from @prev, on @ev, to @next.
 */
int kiw_stats_cep_counter(int prev, int ev, int next)
{
	if (next == KIW_CEP_CONNECTED && prev != KIW_CEP_CONNECTED)
		return KIW_STAT_CONN_ESTABLISHED;
	switch (ev) {
	case KIW_CEP_EV_REFUSE:
	case KIW_CEP_EV_REJECT:
		return KIW_STAT_CONN_REJECTS_SENT;
	case KIW_CEP_EV_REJECTED:
		return KIW_STAT_CONN_REJECTS_RECEIVED;
	case KIW_CEP_EV_BAD_FRAME:
		return KIW_STAT_CONN_MPA_ERRORS;
	case KIW_CEP_EV_TIMEOUT:
		return KIW_STAT_CONN_TIMEOUTS;
	case KIW_CEP_EV_RESET:
		return KIW_STAT_CONN_RESETS;
	default:
		return -1;
	}
}
EXPORT_SYMBOL_IF_KUNIT(kiw_stats_cep_counter);

/*
 * kiw_cep_step() took @ev: cep->state is the new state, @prev the one
 * before. Called under cep->lock, for every step the machine takes.
 */
void kiw_stats_cep_step(const struct kiw_cep *cep, int prev, int ev)
{
	int s = kiw_stats_cep_counter(prev, ev, cep->state);

	if (s >= 0)
		kiw_stats_inc(cep->kdev, s);
}

/*
 * An endpoint lets go of its socket: what TCP retransmitted on it. Live
 * connections are counted when they end: the socket belongs to the CM,
 * which alone may look at it.
 */
void kiw_stats_sock_release(struct kiw_device *kdev,
			    const struct socket *sock)
{
	if (sock && sock->sk && sk_is_tcp(sock->sk))
		kiw_stats_add(kdev, KIW_STAT_TCP_RETRANSMITS,
			      READ_ONCE(tcp_sk(sock->sk)->total_retrans));
}

/* The RDMA core's hardware statistics: one set, for port 1. */
static struct rdma_hw_stats *kiw_alloc_hw_port_stats(struct ib_device *ibdev,
						     u32 port)
{
	return rdma_alloc_hw_stats_struct(kiw_stat_descs, KIW_STAT_COUNT,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int kiw_get_hw_stats(struct ib_device *ibdev,
			    struct rdma_hw_stats *stats, u32 port, int index)
{
	if (stats->num_counters != KIW_STAT_COUNT)
		return -EINVAL;
	kiw_stats_read(to_kiw_dev(ibdev), stats->value);
	return stats->num_counters;
}

const struct ib_device_ops kiw_stats_ops = {
	.alloc_hw_port_stats = kiw_alloc_hw_port_stats,
	.get_hw_stats = kiw_get_hw_stats,
};
