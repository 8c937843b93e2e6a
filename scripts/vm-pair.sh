#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# kiw across two kernels on a NIC: two VMs, each with a virtio-net NIC,
# joined by a QEMU socket (a unix stream socket on this host: nothing
# leaves the two QEMUs), kiw on each NIC, one VM on one kernel and one on
# the other. scripts/guest/pair.sh runs in both (roles server and client):
# rping -V both ways, perftest -R with either end serving, NFSv4.2 over
# RDMA with nfsd in the server and the mount and fio in the client.
#
# Usage: scripts/vm-pair.sh [--server KERNEL] [--client KERNEL]
#   KERNEL: stock, 6.1 or 7.2 (scripts/vm.sh --kernel); default: the
#   server on 6.1, the client on 7.2
#
# Output: one TAP stream, both guests' checks (prefixed "server 6.1:" and
# "client 7.2:") and one line per VM for scripts/vm.sh's verdict (the script
# passed and the kernel stayed clean: no KASAN, WARN, BUG, hang...). Exit
# status 0 when every check passed. Console logs: build/logs/vmpair-*.log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/tap.sh"

server=6.1 client=7.2
while [ $# -gt 0 ]; do
	case "$1" in
	--server) server=${2:?}; shift 2 ;;
	--client) client=${2:?}; shift 2 ;;
	*) sed -n '11,19s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done

logs=$KIW_TOP/build/logs
mkdir -p "$logs"
dir=$(mktemp -d /tmp/kiw-pair.XXXXXX)
sock=$dir/link
spid= cpid=
# stop: end the VMs still running (vm.sh stops its QEMU as it exits).
stop() {
	local f
	for f in "$dir"/*.pid; do
		[ -f "$f" ] && [ ! -f "${f%.pid}.rc" ] || continue
		kill "$(cat "$f")" 2>/dev/null || true
	done
}
cleanup() {
	stop
	rm -rf "$dir"
}
trap cleanup EXIT

# vm ROLE KERNEL MAC NETDEV TIMEOUT: scripts/vm.sh with pair.sh in ROLE,
# its output in $dir/ROLE.out, its messages in $dir/ROLE.err.
vm() {
	local role=$1 kernel=$2 peer rc=0
	peer=$client
	[ "$role" = client ] && peer=$server
	"$KIW_TOP/scripts/vm.sh" --kernel "$kernel" --nic "$3,$4" \
		--log "$logs/vmpair-$role-$kernel.log" --timeout "$5" \
		--script "$KIW_TOP/scripts/guest/pair.sh" -- "$role" "$peer" \
		> "$dir/$role.out" 2> "$dir/$role.err" &
	echo $! > "$dir/$role.pid"
	wait $! || rc=$?
	echo "$rc" > "$dir/$role.rc"
}

start=$(kiw_now)
echo "# kiw between two VMs: server on $server, client on $client"
# The server's QEMU listens on the socket; the client's connects to it, so
# it starts once the socket is there (after the server's build of kiw and
# its QEMU's start; QEMU 7.2's client does not retry). The server waits up
# to 15 minutes for the client (scripts/guest/pair.sh).
vm server "$server" 52:54:00:77:00:02 \
	"stream,server=on,addr.type=unix,addr.path=$sock" 1200 &
spid=$!
while [ ! -S "$sock" ] && kill -0 "$spid" 2>/dev/null; do sleep 0.5; done
if [ -S "$sock" ]; then
	echo "# the server's VM is up ($(kiw_since "$start")): starting the client's"
	vm client "$client" 52:54:00:77:00:01 \
		"stream,server=off,addr.type=unix,addr.path=$sock" 900 &
	cpid=$!
fi

# When one VM has ended, the other gets 3 minutes more: its peer is gone.
end=
while :; do
	alive=0
	for p in $spid $cpid; do ! kill -0 "$p" 2>/dev/null || alive=$((alive + 1)); done
	[ "$alive" != 0 ] || break
	if [ "$alive" = 1 ]; then
		[ -n "$end" ] || end=$(( $(kiw_now) + 180 ))
		if [ "$(kiw_now)" -gt "$end" ]; then
			echo "# one VM ended 3 minutes ago, the other still runs: stopping it"
			stop
			end=$(( $(kiw_now) + 60 ))
		fi
	fi
	sleep 1
done
wait "$spid" 2>/dev/null || true
[ -z "$cpid" ] || wait "$cpid" 2>/dev/null || true
spid= cpid=

# merge ROLE KERNEL: a guest's TAP, renumbered into this stream, then the
# line for its VM.
merge() {
	local role=$1 kernel=$2 line re='^(not )?ok [0-9]+( -)? ?(.*)$' rc
	echo "# --- $role on $kernel"
	if [ -f "$dir/$role.out" ]; then
		while IFS= read -r line; do
			if [[ $line =~ $re ]]; then
				# (a skip stays a "# SKIP" in the description)
				if [ -z "${BASH_REMATCH[1]}" ]; then
					tap_ok "$role $kernel: ${BASH_REMATCH[3]}"
				else
					tap_not_ok "$role $kernel: ${BASH_REMATCH[3]}"
				fi
			elif [[ $line =~ ^[0-9]+\.\.[0-9]+ ]]; then
				:
			elif [[ $line == \#* ]]; then
				echo "$line"
			else
				echo "# $line"
			fi
		done < "$dir/$role.out"
	fi
	rc=$(cat "$dir/$role.rc" 2>/dev/null || echo none)
	if [ "$rc" = 0 ]; then
		tap_ok "$role VM ($kernel kernel): pair.sh passed, the kernel stayed clean"
	elif [ "$rc" = none ]; then
		tap_not_ok "$role VM ($kernel kernel): not run (the server's VM did not start)"
	else
		tap_not_ok "$role VM ($kernel kernel): scripts/vm.sh failed with status $rc"
	fi
	[ ! -s "$dir/$role.err" ] || sed 's/^/# /' "$dir/$role.err"
}
merge server "$server"
merge client "$client"
tap_end
tap_tally "# " " ($(kiw_since "$start"))"
[ "$KIW_TAP_FAILED" = 0 ]
