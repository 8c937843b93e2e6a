#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=900
#
# dp_verify: data integrity kiw to kiw, byte for byte, as user space sees
# it through libsiw (scripts/guest/dp_verify.c): RDMA Write, RDMA Read and
# Send of 0 B to 1 MiB, around the MULPDU, across pages, from and into up
# to six SGEs at odd offsets, with the guard octets around every target
# checked; Solicited Events; zero-length messages whose STag must not be
# checked; and a Send with Invalidate that may not invalidate a user MR.
# Every case with CRC (the default); a dozen lengths (-Q) with markers
# both ways and with neither. KIW_LONG=1: every case, every SGE count for
# every length, in all three. The receive engine's runs are traced: in
# softirq none takes more than its budget (64 KiB; 4 KiB in the markers
# run, where the receive work in process context then takes most, and
# FPDUs and markers are cut between the two).
# Guest time: 134 s on the debug kernel (make vmtest, shared 2-core host).
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/dp_lib.sh"

LONG='' QUICK=-Q
[ "${KIW_LONG:-0}" = 1 ] && LONG=-L QUICK=''
# A hang guard for a whole run of many cases, not a time limit on one.
DP_TIMEOUT=900

# verify DESC CLIENT_ARGS...: one dp_verify run, server kiw_b, client kiw_a.
verify() {
	local desc=$1
	shift
	check "$desc: every case correct" dp_pair b a 7300 \
		"$DP_VERIFY" server -b $B4 -p 7300 -- \
		"$DP_VERIFY" client -a $B4 -p 7300 $LONG "$@"
	diag "$(grep '^RESULT' "$DP_CLI_OUT")"
}

check "two hosts: netns a and b joined by veth" kiw_hosts_up
check "modprobe kiw" kiw_load
check "kiw_a on veth-a, kiw_b on veth-b" kiw_devices_add
check "dp_verify builds" dp_verify_build
check "dynamic debug: each connection's negotiation" sh -c \
	"echo 'module kiw format \"full operation\" +p' > /proc/dynamic_debug/control"

check "trace kiw_rx_run" rx_trace_on
# Covers: DDP-TG-4, DDP-TG-7, DDP-SR-3, DDP-SR-5, DDP-DLV-3
# Each Write case posts the Write, then a Send; the server checks the
# Write's target only once the Send has arrived (sent, placed and
# delivered in order):
# Covers: DDP-ORD-1, DDP-CF-5, DDP-DLV-2, DDP-CF-2, DDP-LLP-4, DDP-SR-4
verify "CRC on" -Z
check "sk_data_ready took at most 64 KiB a call" rx_bounded
diag "receive engine: $(cat $DP_RX_OUT)"
check_output "the connection ran with CRC, without markers" \
	'full operation: initiator=0 rev=2 crc=1 tx_markers=0 rx_markers=0' dmesg -c

dp_mpa kiw_a markers 1
dp_mpa kiw_b markers 1
# sk_data_ready takes 4 KiB a call: most of the data goes through the
# receive work, and FPDUs (and markers) are cut between the two.
echo 4096 > /sys/module/kiw/parameters/rx_softirq_budget
check "trace kiw_rx_run, sk_data_ready's budget 4 KiB" rx_trace_on
# Covers: MPA-IF-9
verify "markers both ways, CRC on" $QUICK
check "sk_data_ready took at most 4 KiB a call, the rest in a task" \
	rx_bounded 4096 deferred
diag "receive engine: $(cat $DP_RX_OUT)"
echo 65536 > /sys/module/kiw/parameters/rx_softirq_budget
check_output "the connection ran with markers both ways" \
	'full operation: initiator=0 rev=2 crc=1 tx_markers=1 rx_markers=1' dmesg -c

dp_mpa kiw_a markers 0
dp_mpa kiw_b markers 0
dp_mpa kiw_a crc off
dp_mpa kiw_b crc off
# The same cases, byte for byte, with CRC off: CRC is invisible to the ULP.
# Covers: MPA-CRC-5
verify "CRC off" $QUICK
check_output "the connection ran without CRC" \
	'full operation: initiator=0 rev=2 crc=0 tx_markers=0 rx_markers=0' dmesg -c

dp_mpa kiw_a crc on
dp_mpa kiw_b crc on
check "Send with Invalidate of a user MR: the receive fails, the sender's QP ends" \
	dp_pair b a 7300 "$DP_VERIFY" server -b $B4 -p 7300 -- \
	"$DP_VERIFY" client -a $B4 -p 7300 -I -N
check_output "kiw_b terminated with RDMAP, remote protection, cannot invalidate" \
	'kiw_b: QP [0-9]+: terminating: layer 0 type 1 code 0x09' dmesg -c

check "rdma link delete kiw_a, kiw_b; rmmod kiw" sh -c \
	'rdma link delete kiw_a && rdma link delete kiw_b && rmmod kiw'
tap_done
