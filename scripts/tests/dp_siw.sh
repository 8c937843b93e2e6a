#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=600 siw=yes
#
# dp_siw: kiw and Linux siw move data both ways, each as server and as
# client: rping with validation and the data-integrity program (scripts/
# guest/dp_verify.c, a dozen lengths: RDMA Write, RDMA Read and Send up
# to 1 MiB, checked byte for byte with the guard octets around them);
# ucmatose (8 connections, siw serving). The receive engine's runs are
# traced: with kiw serving, rx_softirq_budget is 0, so that everything
# siw sends is received in process context (the receive work, kiw_rx.h);
# with siw serving, no run in softirq may take more than the default
# 64 KiB. kiw asks for CRC
# (its default), which siw honours; siw refuses markers, so there are none
# here. KIW_LONG=1 adds perftest (-R, siw serving: kiw Writes into siw,
# Reads from it on four QPs, Write latency) and rstream.
#
# What is not run here:
#  - perftest with kiw serving, and the tools whose server speaks first
#    (ucmatose, ib_write_lat) with kiw serving siw: dp_tools_siw.sh runs
#    them (on the stock kernel, with kiw's default settings).
#  - peer-to-peer mode (kiw's default) with siw as responder: siw 6.12
#    takes the socket's sk_callback_lock for writing in its RTR data_ready
#    (softirq), which lockdep reports as inconsistent lock state under
#    load (seen here): on a lockdep kernel dp_siw_up turns kiw's p2p off.
#  - the Send with Invalidate and zero-length cases towards siw: what siw
#    does is siw's business; towards kiw they run (-Z).
#  - the Solicited Event case towards siw: siw 6.12 never raises a
#    completion event for a receive on a CQ armed for solicited
#    completions only (siw_rqe_complete() passes SIGNALLED, not the
#    Send's SE bit, to siw_cq_notify_now()). Towards kiw it runs.
# Guest time: 101 s on the debug kernel (make vmtest, shared 2-core host).
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/dp_lib.sh"

long() { [ "${KIW_LONG:-0}" = 1 ]; }

verify() {
	dp_pair "$PT_SNS" "$PT_CNS" 7300 \
		"$DP_VERIFY" server -b "$PT_SADDR" -p 7300 -- \
		"$DP_VERIFY" client -a "$PT_SADDR" -p 7300 "$@"
}

dp_siw_up
check "dp_verify builds" dp_verify_build
# perftest registers its buffers between the request and the accept.
dp_mpa kiw_a timeout_ms 60000

echo 0 > /sys/module/kiw/parameters/rx_softirq_budget
check "trace kiw_rx_run, sk_data_ready's budget 0" rx_trace_on
dp_kiw_serves
check "rping -S 65000 -C 5 -V, kiw serves" dp_rping 65000 5
# Writes and Sends from siw into kiw, Reads of kiw's memory by siw.
check "dp_verify -Q -Z, kiw serves: every case correct" verify -Q -Z
diag "$(grep '^RESULT' "$DP_CLI_OUT")"
check "sk_data_ready took nothing, the receive work all" rx_bounded 0 deferred
diag "receive engine: $(cat $DP_RX_OUT)"
echo 65536 > /sys/module/kiw/parameters/rx_softirq_budget

check "trace kiw_rx_run" rx_trace_on
dp_siw_serves
check "rping -S 65000 -C 5 -V, siw serves" dp_rping 65000 5
# Read Responses from siw into kiw, Writes and Sends from kiw into siw.
check "dp_verify -Q -E, siw serves: every case correct" verify -Q -E
diag "$(grep '^RESULT' "$DP_CLI_OUT")"
check "sk_data_ready took at most 64 KiB a call" rx_bounded
diag "receive engine: $(cat $DP_RX_OUT)"

check "ucmatose: 8 connections, siw serves" \
	dp_pair b a 7471 ucmatose -b $B4 -c 8 -C 4 -- ucmatose -s $B4 -c 8 -C 4
if long; then
	check "ib_write_bw -R -s 65536, siw serves" pt_bw ib_write_bw 20 \
		-s 65536
	check "ib_read_bw -R -q 4 -s 4096, siw serves" pt_bw ib_read_bw \
		20 -q 4 -s 4096
	check "ib_write_lat -R -s 8, siw serves" pt_lat ib_write_lat 20 -s 8
	check "rstream, data verified, siw serves" \
		dp_pair b a 7471 rstream -b $B4 -T v -S 4096 -C 20 -- \
		rstream -s $B4 -T v -S 4096 -C 20
fi

pt_repeated_diag
check "rdma link delete, rmmod kiw" sh -c 'rdma link delete kiw_a &&
	rdma link delete siw_b && rmmod kiw'
tap_done
