#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=stock timeout=180
#
# stock_smoke: kiw loads on Debian's own kernel (the one users run), creates
# a device per host, both active in libibverbs, and unloads.
. "$KIW_TOP/scripts/guest/lib.sh"

tap_plan 8

check "two hosts: netns a and b joined by veth" kiw_hosts_up
check "modprobe kiw on $(uname -r)" kiw_load
check "rdma link add kiw_a and kiw_b" kiw_devices_add
check_output "ibv_devices lists kiw_a" '^[[:space:]]+kiw_a[[:space:]]' ibv_devices
check_output "ibv_devinfo -d kiw_a: PORT_ACTIVE" 'state:[[:space:]]+PORT_ACTIVE' ibv_devinfo -d kiw_a
check_output "ibv_devinfo -d kiw_b: PORT_ACTIVE" 'state:[[:space:]]+PORT_ACTIVE' ibv_devinfo -d kiw_b
check "rmmod kiw" kiw_unload
check_no_output "no RDMA device left" '.' kiw_devices

kiw_hosts_down
tap_done
