#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=stock timeout=2700 batch=alone
#
# ops_dkms_build: ops_dkms.sh with "make dkms-install", DKMS compiling kiw
# in the guest against the stock kernel's headers. KIW_LONG=1 only: the
# compile alone takes 15-25 minutes under TCG on a loaded 2-core host.
#
# Guest time: none without KIW_LONG=1 (one skipped check).
if [ "${KIW_LONG:-0}" = 1 ]; then
	OPS_DKMS_BUILD=1 exec bash "$KIW_TOP/scripts/tests/ops_dkms.sh"
fi
. "$KIW_TOP/scripts/guest/lib.sh"
tap_plan 1
skip "make dkms-install with DKMS compiling in the guest" "KIW_LONG=1 only"
tap_done
