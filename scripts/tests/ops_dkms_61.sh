#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=6.1 timeout=600
#
# ops_dkms_61: ops_dkms.sh on Debian 12's default kernel, 6.1, where a
# Debian user installs kiw with DKMS: DKMS takes the package, installs the
# module into 6.1's tree, modprobe loads it, and dkms remove undoes it all.
# As on 6.12, the module installed is the one built natively for 6.1 from
# this tree (compiling under TCG takes 15-25 minutes); DKMS's own build
# for 6.1, compat probes included, runs natively in make check's static
# phase (scripts/dkms-build.sh).
#
# Guest time: about 60 s on a loaded 2-core host.
exec bash "$KIW_TOP/scripts/tests/ops_dkms.sh"
