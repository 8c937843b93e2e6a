#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=300
#
# device_basic: kiw registers one iWARP device per "rdma link add", user
# space (rdma, libibverbs with Debian's libsiw) sees it as an active iWARP
# port whose GID is the netdev's MAC, and "rdma link delete" and "rmmod kiw"
# remove devices cleanly.
. "$KIW_TOP/scripts/guest/lib.sh"

tap_plan 24

check "two hosts: netns a and b joined by veth" kiw_hosts_up
check "modprobe kiw" kiw_load
check "rdma link add kiw_a type kiw netdev veth-a (in netns a)" kiw_dev_add a kiw_a veth-a
check "rdma link add kiw_b type kiw netdev veth-b (in netns b)" kiw_dev_add b kiw_b veth-b
# rdma link names a device's netdev only to callers in the netdev's netns.
check_output "rdma link show lists kiw_a and kiw_b" '^link kiw_b/1 ' rdma link show
check_output "rdma link show in netns a: kiw_a on veth-a" '^link kiw_a/1 .*netdev veth-a' in_a rdma link show
check_output "rdma link show in netns b: kiw_b on veth-b" '^link kiw_b/1 .*netdev veth-b' in_b rdma link show
check_output "rdma link show: kiw_a is ACTIVE" '^link kiw_a/1 state ACTIVE' rdma link show
check_output "ibv_devices lists kiw_a" '^[[:space:]]+kiw_a[[:space:]]' ibv_devices
check_output "ibv_devices lists kiw_b" '^[[:space:]]+kiw_b[[:space:]]' ibv_devices
check_output "ibv_devinfo -d kiw_a: transport iWARP" 'transport:[[:space:]]+iWARP' ibv_devinfo -d kiw_a
check_output "ibv_devinfo -d kiw_a: port state PORT_ACTIVE" 'state:[[:space:]]+PORT_ACTIVE' ibv_devinfo -d kiw_a
check_output "ibv_devinfo -d kiw_a: link_layer Ethernet" 'link_layer:[[:space:]]+Ethernet' ibv_devinfo -d kiw_a
check_output "ibv_devinfo -d kiw_a: one port" 'phys_port_cnt:[[:space:]]+1$' ibv_devinfo -d kiw_a
check_output "sysfs node_type of kiw_a is RNIC" '^4: RNIC' cat /sys/class/infiniband/kiw_a/node_type

# The GID is the MAC followed by zeros; the MAC is read from "ip link".
gid_is_mac() {
	local ns=$1 netdev=$2 dev=$3 mac want got
	mac=$(ip -n "$ns" link show "$netdev" | awk '/link\/ether/ { print $2 }')
	want=$(kiw_mac_to_gid "$mac")
	got=$(cat "/sys/class/infiniband/$dev/ports/1/gids/0")
	echo "MAC $mac, expected GID $want, sysfs GID $got"
	[ -n "$mac" ] && [ "$got" = "$want" ]
}
check "GID 0 of kiw_a is derived from veth-a's MAC" gid_is_mac a veth-a kiw_a
check "GID 0 of kiw_b is derived from veth-b's MAC" gid_is_mac b veth-b kiw_b

check "rdma link delete kiw_b" rdma link delete kiw_b
check_no_output "kiw_b is gone from rdma link show" '^link kiw_b/' rdma link show
check "kiw_b is gone from sysfs" kiw_dev_gone kiw_b
check "kiw_a still exists after deleting kiw_b" kiw_dev_exists kiw_a

check "re-add kiw_b" kiw_dev_add b kiw_b veth-b
check "rmmod kiw with kiw_a and kiw_b present" kiw_unload
check_no_output "no RDMA device left after rmmod kiw" '.' kiw_devices

kiw_hosts_down
tap_done
