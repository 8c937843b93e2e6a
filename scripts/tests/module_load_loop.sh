#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=600
#
# module_load_loop: load and unload kiw 100 times, every tenth time with a
# device on each host; nothing may be left behind, and kmemleak must find
# nothing right after the loop. The loop itself is module_load_loop.py:
# one process making the calls insmod and rmmod make.
. "$KIW_TOP/scripts/guest/lib.sh"

tap_plan 15

check "two hosts: netns a and b joined by veth" kiw_hosts_up
# The modules kiw needs stay loaded: the loop loads kiw.ko by itself.
check "modprobe kiw with what it needs, and user space's ib_uverbs and rdma_ucm" kiw_load
check "rmmod kiw" kiw_unload

# One TAP line per round of ten the Python script reports.
tap_py "$KIW_TOP/scripts/tests/module_load_loop.py" \
	"/lib/modules/$(uname -r)/extra/kiw.ko" 100

check_no_output "kiw is not loaded at the end" '^kiw ' lsmod
check "kmemleak: nothing leaked by the 100 cycles" kmemleak_check

kiw_hosts_down
tap_done
