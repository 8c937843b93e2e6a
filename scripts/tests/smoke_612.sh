#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=stock timeout=600
#
# smoke_612: the smoke test (scripts/guest/smoke_lib.sh) on Debian's 6.12 kernel.
. "$KIW_TOP/scripts/guest/smoke_lib.sh"
smoke_run
