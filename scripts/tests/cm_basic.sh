#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=500
#
# cm_basic: rdma_cm over kiw, kiw to kiw, as consumers see it (through
# librdmacm: scripts/guest/cm_tool.c). Connect, accept and reject with 255
# octets of private data (what rdma_cm and iw_cm carry; KIW_LONG=1 adds 0
# and 1) and the events and data each side sees; IPv4 and IPv6; wildcard
# and specific listens; two listeners at once; 16 connections at once (64
# with KIW_LONG=1); closes started by either side, gracefully or
# abortively; every event exactly once. Listeners in the right netns (a
# wildcard listen leaves other netns alone); the per-device MPA settings
# in sysfs.
# Guest time: 153 s on the debug kernel (2026-11-21, shared 2-core host;
# 168 s with a load of 3 to 4); the timeout is three times the latter.
. "$KIW_TOP/scripts/guest/lib.sh"
. "$KIW_TOP/scripts/guest/cm_lib.sh"

A4=10.77.0.1 B4=10.77.0.2 B6=fd77::2

# pair DESC SERVER_ARGS -- CLIENT_ARGS -- SERVER_WANT -- CLIENT_WANT:
# a server on kiw_b, a client on kiw_a; each RESULT must hold its k=v.
pair() {
	local desc=$1 sargs=() cargs=() swant=() cwant=()
	shift
	while [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	while [ "$1" != -- ]; do cargs+=("$1"); shift; done
	shift
	while [ "$1" != -- ]; do swant+=("$1"); shift; done
	shift
	cwant=("$@")
	if ! cm_server b "${sargs[@]}" -t 60; then
		not_ok "$desc: the server listens"
		diag "$(cat "$CM_SRV_OUT")"
		return 1
	fi
	cm_client a "${cargs[@]}" -t 60
	cm_server_wait
	check "$desc: client" cm_expect "$CM_CLI_OUT" "${cwant[@]}" dup=0
	check "$desc: server" cm_expect "$CM_SRV_OUT" "${swant[@]}" dup=0
}

cm_setup

LONG=${KIW_LONG:-0}
cm_section "private data: 0, 1 and 255 octets, each way, accept and reject"
pds="255"
[ "$LONG" = 1 ] && pds="0 1 255"
for pd in $pds; do
	pair "accept, $pd octets" -b $B4 -p 7001 -d $pd -- -a $B4 -p 7001 -d $pd -- \
		requests=1 established=1 disconnected=1 pd_bad=0 -- \
		established=1 disconnected=1 pd_bad=0
	pair "reject, $pd octets" -b $B4 -p 7001 -r -d $pd -- -a $B4 -p 7001 -d $pd -- \
		requests=1 established=0 pd_bad=0 -- \
		rejected=1 established=0 pd_bad=0
done
# Covers: MPA-REJ-1, MPA-REJ-2, MPA-PD-6
check_output "the reject reaches the client as REJECTED, status ECONNREFUSED" \
	'RDMA_CM_EVENT_REJECTED status=-111 pd=255 pd_ok=1' cat "$CM_CLI_OUT"
check_output "IRD/ORD: the server saw the client's 1/1" \
	'CONNECT_REQUEST status=0 pd=255 pd_ok=1 ird=1 ord=1' cat "$CM_SRV_OUT"
# Covers: MPA-PD-6
pair "accept, 255 octets, messages each way" -b $B4 -p 7001 -d 255 -D -m 2 -s 3000 -- \
	-a $B4 -p 7001 -d 255 -D -m 2 -s 3000 -- \
	requests=1 established=1 disconnected=1 pd_bad=0 data_ok=1 msgs=2 -- \
	established=1 disconnected=1 pd_bad=0 data_ok=1 msgs=2

cm_section "addresses: IPv6, wildcard listens, two listeners"
if [ "$LONG" = 1 ]; then
	pair "IPv6, a message each way" -b $B6 -p 7002 -d 8 -D -- \
		-a $B6 -p 7002 -d 8 -D -- \
		requests=1 established=1 disconnected=1 pd_bad=0 data_ok=1 -- \
		established=1 disconnected=1 pd_bad=0 data_ok=1
	pair "IPv4 wildcard listen" -b 0.0.0.0 -p 7003 -- -a $B4 -p 7003 -- \
		requests=1 established=1 disconnected=1 -- \
		established=1 disconnected=1
fi
pair "IPv6 wildcard listen, IPv6 client, a message each way" -b :: -p 7004 \
	-d 8 -D -- -a $B6 -p 7004 -d 8 -D -- \
	requests=1 established=1 disconnected=1 data_ok=1 -- \
	established=1 disconnected=1 data_ok=1
pair "IPv6 wildcard listen, IPv4 client" -b :: -p 7004 -- -a $B4 -p 7004 -- \
	requests=1 established=1 disconnected=1 -- established=1 disconnected=1

cm_server b -b $B4 -p 7005 -n 2 -t 60 && srv1=$CM_SRV_PID out1=$CM_SRV_OUT
cm_server b -b $B6 -p 7006 -n 2 -t 60 && srv2=$CM_SRV_PID out2=$CM_SRV_OUT
# Two connections to each, from one client run per listener.
cm_client a -a $B4 -p 7005 -n 2 -t 30 && cp "$CM_CLI_OUT" /tmp/two.4
cm_client a -a $B6 -p 7006 -n 2 -t 30 && cp "$CM_CLI_OUT" /tmp/two.6
wait "$srv1" "$srv2"
check "two listeners: each took its two connections" sh -c "
	grep -q '^RESULT established=2 .*requests=2 .*dup=0' $out1 &&
	grep -q '^RESULT established=2 .*requests=2 .*dup=0' $out2"
check "two listeners: all four clients connected" sh -c \
	"grep -h '^RESULT established=2 ' /tmp/two.* | wc -l | grep -qx 2"

N=16
[ "$LONG" = 1 ] && N=64
cm_section "$N connections at once"
pair "$N at once, a message each way on each" \
	-b $B4 -p 7007 -n $N -B 64 -d 16 -D -- -a $B4 -p 7007 -n $N -d 16 -D -- \
	requests=$N established=$N disconnected=$N pd_bad=0 data_ok=$N -- \
	established=$N disconnected=$N pd_bad=0 data_ok=$N

cm_section "closing: by the server, and abortively by the client"
# Covers: MPA-TD-2
pair "the server disconnects" -b $B4 -p 7008 -c s -- -a $B4 -p 7008 -c s -- \
	established=1 disconnected=1 -- established=1 disconnected=1
pair "the client destroys its id (abort)" -b $B4 -p 7009 -c d -- \
	-a $B4 -p 7009 -c d -- established=1 disconnected=1 -- established=1

cm_section "listeners live in the device's netns"
cm_server b -b 0.0.0.0 -p 7010 -t 30 && wild=$CM_SRV_PID
check_output "a wildcard listen in netns b listens in b, on veth-b" \
	'0\.0\.0\.0%veth-b:7010' in_b ss -Hltn
check_no_output "and not in netns a (kiw_a's listener is dormant)" \
	':7010' in_a ss -Hltn
check_here "netns a listens on the same port meanwhile" \
	cm_server a -b $A4 -p 7010 -t 30
cm_client b -a $A4 -p 7010 -t 30
cm_server_wait
check "and a connection b -> a works" cm_expect "$CM_CLI_OUT" established=1
kill "$wild" 2>/dev/null
wait "$wild" 2>/dev/null

cm_section "per-device MPA settings (sysfs)"
check_output "defaults from the module parameters" \
	'^on 0 2 1 5000$' sh -c 'cd /sys/class/infiniband/kiw_a/mpa &&
	echo $(cat crc markers rev p2p timeout_ms)'
for bad in "crc maybe" "crc ON" "rev 0" "rev 3" "timeout_ms 99" \
	   "timeout_ms 600001" "markers 2" "p2p 2"; do
	set -- $bad
	check_fails_with "$1=$2 is refused with EINVAL" 'Invalid argument' \
		bash -c "echo $2 > /sys/class/infiniband/kiw_a/mpa/$1"
done
check_output "refused writes left the settings alone" \
	'^on 0 2 1 5000$' sh -c 'cd /sys/class/infiniband/kiw_a/mpa &&
	echo $(cat crc markers rev p2p timeout_ms)'
check "kiw_a: crc=required markers=1 rev=1 p2p=0 timeout_ms=600000" sh -c '
	cd /sys/class/infiniband/kiw_a/mpa && echo required > crc &&
	echo 1 > markers && echo 1 > rev && echo 0 > p2p &&
	echo 600000 > timeout_ms'
check_output "kiw_a changed, kiw_b did not" '^required 1 1 0 600000 on 0 2 1 5000$' \
	bash -c 'echo $(cat /sys/class/infiniband/kiw_a/mpa/{crc,markers,rev,p2p,timeout_ms} \
		/sys/class/infiniband/kiw_b/mpa/{crc,markers,rev,p2p,timeout_ms})'
check "module parameters: crc=off, mpa_rev=1, p2p=0" sh -c '
	cd /sys/module/kiw/parameters && echo off > crc && echo 1 > mpa_rev &&
	echo 0 > p2p'
check "kiw_b recreated" sh -c 'rdma link delete kiw_b &&
	ip netns exec b rdma link add kiw_b type kiw netdev veth-b'
check_output "a new device starts from the module parameters" \
	'^off 0 1 0 5000$' sh -c 'cd /sys/class/infiniband/kiw_b/mpa &&
	echo $(cat crc markers rev p2p timeout_ms)'

check "rdma link delete kiw_a" rdma link delete kiw_a
check "rdma link delete kiw_b" rdma link delete kiw_b
check "rmmod kiw: nothing left behind" kiw_unload
cm_section "done"
tap_done
