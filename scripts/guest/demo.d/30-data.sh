# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# Demo part 3: data moves between the two hosts over kiw, through the
# stock RDMA user space (rdma_cm, libibverbs with Debian's libsiw).
# Sourced by scripts/guest/demo.sh after 10-devices.sh.

. "$KIW_TOP/scripts/guest/dp_lib.sh"

# Run "rping" between the hosts; show the client's side.
demo_rping() {
	dp_pair a b 7174 rping -s -a "$A4" -S 64 -C 10 -V -- \
		rping -c -a "$A4" -S 64 -C 10 -V -v
	local rc=$?
	cat "$DP_CLI_OUT"
	return $rc
}

# ib_write_bw -R: RDMA Writes from host b into host a's memory.
demo_write_bw() {
	pt_bw ib_write_bw 2000 -s 65536
	local rc=$?
	grep -vE '^[[:space:]]*(GID|local address|remote address)' "$DP_CLI_OUT"
	return $rc
}

demo_section "rping: host b sends, host a reads and writes back, 10 times, data validated"
demo_expect "rping from host b to host a: 10 round trips, data validated" \
	'rdma-ping-9: ' demo_rping

demo_section "ib_write_bw -R: RDMA Write bandwidth from host b to host a (perftest)"
demo_expect "ib_write_bw -R between the hosts: 2000 Writes of 64 KiB" \
	'^[[:space:]]*65536[[:space:]]+2000[[:space:]]' demo_write_bw
