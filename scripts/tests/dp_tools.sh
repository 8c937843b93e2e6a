#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=1200
#
# dp_tools: the RDMA user-space tools over kiw, kiw to kiw (server kiw_a
# in netns a, client kiw_b in netns b), through rdma_cm and libsiw: rping
# with data validation, ucmatose with 8 connections, rsockets (rstream,
# riostream) with data verification, and perftest (-R) Write and Read
# bandwidth (four QPs) and Write latency; then rping and a Send bandwidth
# run with markers both ways. CRC is on throughout (the default). Each
# perftest process costs much on the debug kernel: dp_perf.sh runs every
# tool at every size on the stock kernel.
#
# rping, ucmatose and rsockets run with both devices at their default
# settings (nothing written to sysfs or module parameters before): ucmatose
# and ib_write_lat, whose server speaks first, run because the initiator
# asks for RFC 6581 peer-to-peer mode by default, and its zero-length
# Write RTR is the first FPDU an MPA responder must wait for (RFC 5044
# 7.1.2 (4)). perftest then runs with a longer MPA timeout (see below).
#
# KIW_LONG=1: 1000 iterations everywhere, rstream and riostream -S all,
# and the other perftest tools.
# Guest time: 195 s on the debug kernel (make vmtest, shared 2-core host).
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/dp_lib.sh"

long() { [ "${KIW_LONG:-0}" = 1 ]; }

# The debug kernel moves data slowly (KASAN, lockdep, emulated CPUs):
# few iterations, enough to cross every path; KIW_LONG=1 for real runs.
N=20
long && N=1000

check "two hosts: netns a and b joined by veth" kiw_hosts_up
check "modprobe kiw" kiw_load
check "kiw_a on veth-a, kiw_b on veth-b" kiw_devices_add
check "dynamic debug: each connection's settings" sh -c \
	"echo 'module kiw format \"attach:\" +p' > /proc/dynamic_debug/control"
dmesg -C

check "rping -S 64 -C $N -V" dp_rping 64 $N
check "rping -S 65000 -C $((N / 4)) -V" dp_rping 65000 $((N / 4))
check "ucmatose: 8 connections, 4 messages each way on each" \
	dp_pair a b 7471 ucmatose -c 8 -C 4 -- ucmatose -s $A4 -c 8 -C 4
RS="-S 4096 -C $N"
long && RS="-S all"
# shellcheck disable=SC2086
check "rstream (rsockets) $RS, data verified" \
	dp_pair a b 7471 rstream -T v $RS -- rstream -s $A4 -T v $RS
# shellcheck disable=SC2086
check "riostream (rsockets, RDMA writes) $RS, data verified" \
	dp_pair a b 7471 riostream -T v $RS -- riostream -s $A4 -T v $RS

check "the tools so far ran with CRC, without markers, the Write RTR" \
	dp_attach_all 'rev 2 crc 1 markers tx 0 rx 0 ird [0-9]* ord [0-9]* rtr 2 hold [01]$'

# perftest registers its buffers between the connection request and the
# accept, which on this kernel (KASAN, lockdep, emulated CPUs, a busy
# host) can take longer than the default 5 s MPA timeout: raised here
# only. dp_perf.sh runs every perftest tool with the defaults untouched
# on the stock kernel.
for dev in kiw_a kiw_b; do
	dp_mpa $dev timeout_ms 60000
done
check "ib_write_bw -R -s 65536 -n $N" pt_bw ib_write_bw $N -s 65536
diag "ib_write_bw: $(pt_bw_avg) MB/s average"
check "ib_read_bw -R -q 4 -s 4096 -n $N" pt_bw ib_read_bw $N -q 4 -s 4096
diag "ib_read_bw -q 4: $(pt_bw_avg) MB/s average"
check "ib_write_lat -R -s 8 -n $N" pt_lat ib_write_lat $N -s 8
if long; then
	check "ib_send_bw -R -s 65536 -n $N" pt_bw ib_send_bw $N -s 65536
	check "ib_send_lat -R -s 8 -n $N" pt_lat ib_send_lat $N -s 8
	check "ib_read_lat -R -s 8 -n $N" pt_lat ib_read_lat $N -s 8
fi
check "every connection so far ran with CRC, without markers, the Write RTR" \
	dp_attach_all 'rev 2 crc 1 markers tx 0 rx 0 ird [0-9]* ord [0-9]* rtr 2 hold [01]$'

dmesg -C
dp_mpa kiw_a markers 1
dp_mpa kiw_b markers 1
check "rping -S 65000 -C $((N / 4)) -V, markers" dp_rping 65000 $((N / 4))
check "ib_send_bw -R -s 65536 -n $N, markers" pt_bw ib_send_bw $N -s 65536
diag "ib_send_bw: $(pt_bw_avg) MB/s average"
check "every connection since ran with markers both ways, and CRC" \
	dp_attach_all 'crc 1 markers tx 1 rx 1'

pt_repeated_diag
check "rdma link delete kiw_a, kiw_b; rmmod kiw" sh -c \
	'rdma link delete kiw_a && rdma link delete kiw_b && rmmod kiw'
tap_done
