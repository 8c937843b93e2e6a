#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=stock timeout=600 siw=yes
#
# verbs_semantics: the verbs semantics rdma-core's libraries and tests
# expect (issue 16, point 2), table by table, through Debian's unmodified
# libsiw and pyverbs (verbs_semantics.py), kiw next to Linux siw in the
# same guest: QP state changes from every unconnected state to every IB
# state with the attribute masks applications pass, what query_qp reports
# afterwards and the errno of what is refused; QP attributes set and
# queried back; ibv_create_qp_ex; device, port, CQ, SRQ and MR arguments
# and queries. kiw's outcome of every case is written out in the script;
# siw's must equal it, except where the script says why siw differs (and
# then that it still does). Guest time: 31 s on the stock kernel
# (2026-11-27, make vmtest on the shared 2-core host).
. "$KIW_TOP/scripts/guest/lib.sh"

check "two hosts: netns a and b joined by veth" kiw_hosts_up
check "modprobe kiw and siw" sh -c 'modprobe ib_uverbs && modprobe kiw &&
	modprobe siw'
check "rdma link add kiw_a type kiw netdev veth-a" kiw_dev_add a kiw_a veth-a
check "rdma link add siw_b type siw netdev veth-b" \
	ip netns exec b rdma link add siw_b type siw netdev veth-b

# One TAP line per check the Python script reports.
tap_py "$KIW_TOP/scripts/tests/verbs_semantics.py" kiw_a siw_b

check "rdma link delete siw_b" rdma link delete siw_b
check "rdma link delete kiw_a" rdma link delete kiw_a
check "rmmod kiw: no object left behind" kiw_unload
tap_done
