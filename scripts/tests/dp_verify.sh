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
# every length, in all three.
# Guest time: ~? s on the debug kernel.
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/dp_lib.sh"

LONG='' QUICK=-Q
[ "${KIW_LONG:-0}" = 1 ] && LONG=-L QUICK=''

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

# Covers: DDP-TG-4, DDP-TG-7, DDP-SR-3, DDP-SR-5, DDP-DLV-3
verify "CRC on" -Z
check_output "the connection ran with CRC, without markers" \
	'full operation: initiator=0 rev=2 crc=1 tx_markers=0 rx_markers=0' dmesg -c

dp_mpa kiw_a markers 1
dp_mpa kiw_b markers 1
# Covers: MPA-IF-9
verify "markers both ways, CRC on" $QUICK
check_output "the connection ran with markers both ways" \
	'full operation: initiator=0 rev=2 crc=1 tx_markers=1 rx_markers=1' dmesg -c

dp_mpa kiw_a markers 0
dp_mpa kiw_b markers 0
dp_mpa kiw_a crc off
dp_mpa kiw_b crc off
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
