#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=1200
#
# module_load_loop: load and unload kiw 100 times, every tenth time with a
# device on each host; nothing may be left behind and kmemleak (run by the
# harness on the debug kernel) must stay clean.
. "$KIW_TOP/scripts/guest/lib.sh"

tap_plan 13

check "two hosts: netns a and b joined by veth" kiw_hosts_up
check "modprobe ib_uverbs rdma_ucm" sh -c 'modprobe ib_uverbs && modprobe rdma_ucm'

# One round of ten: nine plain load/unload cycles, then one with devices.
ten_rounds() {
	local i
	for i in 1 2 3 4 5 6 7 8 9; do
		modprobe kiw || { echo "modprobe kiw failed (cycle $i)"; return 1; }
		rmmod kiw || { echo "rmmod kiw failed (cycle $i)"; return 1; }
	done
	modprobe kiw || { echo "modprobe kiw failed (cycle 10)"; return 1; }
	kiw_devices_add || { echo "rdma link add failed"; return 1; }
	kiw_port_is kiw_a ACTIVE || { echo "kiw_a not ACTIVE"; return 1; }
	rmmod kiw || { echo "rmmod kiw with devices failed"; return 1; }
	[ -z "$(kiw_devices)" ] || { echo "left behind: $(kiw_devices)"; return 1; }
}

for r in 1 2 3 4 5 6 7 8 9 10; do
	check "cycles $((r * 10 - 9))-$((r * 10)): load/unload, the last with devices" ten_rounds
done
check_no_output "kiw is not loaded at the end" '^kiw ' lsmod

kiw_hosts_down
tap_done
