#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=300
#
# device_netdev_events: kiw follows its netdev. Link down/up moves the port
# state (and raises IBV_EVENT_PORT_ERR / IBV_EVENT_PORT_ACTIVE); deleting the
# netdev, deleting its netns, or moving it to another netns (the kernel
# unregisters it from the old one) removes the kiw device.
. "$KIW_TOP/scripts/guest/lib.sh"

tap_plan 27

check "two hosts: netns a and b joined by veth" kiw_hosts_up
check "modprobe kiw" kiw_load
check "kiw_a and kiw_b added" kiw_devices_add
check "kiw_a starts ACTIVE" wait_for 10 kiw_port_is kiw_a ACTIVE

# Async events, as user space sees them.
events=/tmp/asyncwatch.kiw_a
stdbuf -oL ibv_asyncwatch -d kiw_a > "$events" 2>&1 &
watch_pid=$!
check "ibv_asyncwatch -d kiw_a started" wait_for 10 grep -q 'async event FD' "$events"

check "ip link set veth-a down" ip -n a link set veth-a down
check "kiw_a port goes DOWN" wait_for 10 kiw_port_is kiw_a DOWN
check_output "ibv_devinfo -d kiw_a shows PORT_DOWN" 'state:[[:space:]]+PORT_DOWN' ibv_devinfo -d kiw_a
diag "kiw_b (peer lost carrier): $(kiw_port_state kiw_b)"
check "ip link set veth-a up" ip -n a link set veth-a up
check "kiw_a port goes back to ACTIVE" wait_for 10 kiw_port_is kiw_a ACTIVE
check_output "ibv_devinfo -d kiw_a shows PORT_ACTIVE" 'state:[[:space:]]+PORT_ACTIVE' ibv_devinfo -d kiw_a
check "IBV_EVENT_PORT_ERR delivered for kiw_a" wait_for 5 grep -q 'IBV_EVENT_PORT_ERR' "$events"
check "IBV_EVENT_PORT_ACTIVE delivered for kiw_a" wait_for 5 grep -q 'IBV_EVENT_PORT_ACTIVE' "$events"
kill "$watch_pid" 2>/dev/null
wait "$watch_pid" 2>/dev/null
diag "ibv_asyncwatch saw:" "$(cat "$events")"

# Unregistering the netdev removes the device: deleting one end of a veth
# pair deletes both.
check "ip link delete veth-a" ip -n a link delete veth-a
check "kiw_a is removed with veth-a" wait_for 10 kiw_dev_gone kiw_a
check "kiw_b is removed with its peer veth-b" wait_for 10 kiw_dev_gone kiw_b

# Deleting a namespace destroys its veth (and so the pair); netns cleanup
# runs asynchronously, so wait.
check "a new veth pair with kiw_a and kiw_b" \
	sh -c 'ip link add veth-a netns a type veth peer name veth-b netns b &&
	       ip -n a link set veth-a up && ip -n b link set veth-b up &&
	       ip netns exec a rdma link add kiw_a type kiw netdev veth-a &&
	       ip netns exec b rdma link add kiw_b type kiw netdev veth-b'
check "ip netns delete b" ip netns delete b
check "kiw_b is removed with netns b" wait_for 30 kiw_dev_gone kiw_b
check "kiw_a is removed with its peer" wait_for 30 kiw_dev_gone kiw_a

# Moving the netdev to another namespace unregisters it from the old one:
# the device goes; a new one can be made in the new namespace.
check "netns b and c, veth pair, kiw_a and kiw_b again" \
	sh -c 'ip netns add b && ip netns add c &&
	       ip link add veth-a netns a type veth peer name veth-b netns b &&
	       ip -n a link set veth-a up && ip -n b link set veth-b up &&
	       ip netns exec a rdma link add kiw_a type kiw netdev veth-a &&
	       ip netns exec b rdma link add kiw_b type kiw netdev veth-b'
check "ip link set veth-a netns c" ip -n a link set veth-a netns c
check "kiw_a is removed when veth-a leaves netns a" wait_for 10 kiw_dev_gone kiw_a
check "kiw_b stays" kiw_dev_exists kiw_b
check "rdma link add kiw_c on veth-a in netns c" kiw_dev_add c kiw_c veth-a

check "rmmod kiw" kiw_unload
check_no_output "no RDMA device left" '.' kiw_devices

ip netns del c 2>/dev/null
kiw_hosts_down
tap_done
