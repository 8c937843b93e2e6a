#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=6.1 timeout=600
#
# smoke_61: the smoke test (scripts/guest/smoke_lib.sh) on Debian's 6.1 kernel.
. "$KIW_TOP/scripts/guest/smoke_lib.sh"
smoke_run
