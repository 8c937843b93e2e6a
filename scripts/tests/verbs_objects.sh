#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=debug timeout=600
#
# verbs_objects: the verbs objects of a kiw device as user space sees them
# through Debian's unmodified libsiw, driven by pyverbs
# (verbs_objects.py): device and port attributes, CQ rings and arming, RC
# QP caps, limits and states, flushing into the mapped CQ, the doorbell,
# MRs and their STags, SRQs. Then every object is gone: the module unloads.
. "$KIW_TOP/scripts/guest/lib.sh"

check "two hosts: netns a and b joined by veth" kiw_hosts_up
check "modprobe kiw" kiw_load
check "rdma link add kiw_a type kiw netdev veth-a" kiw_dev_add a kiw_a veth-a

# One TAP line per check the Python script reports.
tap_py "$KIW_TOP/scripts/tests/verbs_objects.py" kiw_a

check "rdma link delete kiw_a" rdma link delete kiw_a
check "rmmod kiw: no object left behind" kiw_unload
tap_done
