#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kiw-vm: kernel=stock timeout=600 siw=yes
#
# storage_iser_stock: storage_iser.sh on Debian's stock kernel, the one
# users run. It has the policy routing the debug kernel lacks, so here the
# two ends of iSER sit on their own devices and the pairs with siw run
# (kiw initiator to siw target, siw initiator to kiw target), which the
# debug kernel's run skips. KASAN and friends watch kiw to kiw in
# storage_iser.sh on the debug kernel.
# Guest time: 88 s on the stock kernel (make vmtest, shared 2-core
# host, 2026-11-21); with the arguments "baseline mb=32" (siw to siw too,
# 32 MiB each) 144 s.
exec bash "$KIW_TOP/scripts/tests/storage_iser.sh" "$@"
