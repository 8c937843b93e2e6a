#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=300
#
# device_errors: every bad "rdma link add" fails with a message and leaves
# no device behind; afterwards kiw unloads and kmemleak (run by the harness
# on the debug kernel) finds nothing.
. "$KIW_TOP/scripts/guest/lib.sh"

tap_plan 16

check "two hosts: netns a and b joined by veth" kiw_hosts_up
check "modprobe kiw" kiw_load

# The errno reaches the user as rdma's "error: <strerror>": it must say what
# went wrong (ENODEV, EEXIST), not something generic.
check_fails_with "rdma link add on a missing netdev fails: ENODEV" 'No such device' \
	kiw_dev_add a kiw_x nosuch0
check "no device kiw_x after the failure" kiw_dev_gone kiw_x

check_fails "rdma link add on lo (not Ethernet) fails" kiw_dev_add a kiw_lo lo
check "no device kiw_lo after the failure" kiw_dev_gone kiw_lo

check "rdma link add kiw_a on veth-a" kiw_dev_add a kiw_a veth-a
check_fails_with "rdma link add with the duplicate name kiw_a (on veth-b) fails: EEXIST" \
	'File exists' kiw_dev_add b kiw_a veth-b
check_no_output "veth-b got no device from the duplicate" 'netdev veth-b' in_b rdma link show

check_fails_with "a second kiw device on veth-a fails: EEXIST or EBUSY" \
	'File exists|Device or resource busy' kiw_dev_add a kiw_a2 veth-a
check "no device kiw_a2 after the failure" kiw_dev_gone kiw_a2
check_output "exactly one device (kiw_a) is left" '^kiw_a$' kiw_devices
check_output "kiw_a is still ACTIVE after the failures" '^ACTIVE$' kiw_port_state kiw_a

check "rdma link delete kiw_a" rdma link delete kiw_a
check "rmmod kiw" kiw_unload
check_no_output "no RDMA device left" '.' kiw_devices

kiw_hosts_down
tap_done
