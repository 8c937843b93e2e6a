# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Demo part 1: kiw loads and gives each host its own iWARP device.
# Sourced by scripts/guest/demo.sh; use demo_section, demo_run,
# demo_expect and demo_quiet.

demo_section "Two hosts: network namespaces a and b, joined by a veth pair"
demo_quiet "create hosts a (10.77.0.1, veth-a) and b (10.77.0.2, veth-b)" kiw_hosts_up
demo_run "host a's network" ip -n a -br addr show
demo_run "host b's network" ip -n b -br addr show

demo_section "Load kiw and create one iWARP device per host"
demo_quiet "load the RDMA user-space interfaces (udev does this on a real system)" \
	modprobe -a ib_uverbs rdma_ucm
demo_run "load kiw with modprobe" modprobe kiw
demo_run "host a: rdma link add kiw_a type kiw netdev veth-a" \
	ip netns exec a rdma link add kiw_a type kiw netdev veth-a
demo_run "host b: rdma link add kiw_b type kiw netdev veth-b" \
	ip netns exec b rdma link add kiw_b type kiw netdev veth-b

demo_section "The devices, as the RDMA tools see them"
demo_expect "rdma link: kiw_a and kiw_b are ACTIVE" \
	'kiw_b/1 state ACTIVE' rdma link show
demo_expect "rdma link, seen from host a: kiw_a runs over veth-a" \
	'kiw_a/1 state ACTIVE.*netdev veth-a' ip netns exec a rdma link show
demo_expect "ibv_devices lists kiw_a and kiw_b" 'kiw_b' ibv_devices
demo_expect "ibv_devinfo -d kiw_a: iWARP, PORT_ACTIVE" \
	'PORT_ACTIVE' ibv_devinfo -d kiw_a
