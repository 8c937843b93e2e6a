#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# "make demo": install what is needed, build kiw, boot Debian's stock kernel
# in QEMU, and show two hosts using kiw devices (scripts/guest/demo.sh and
# the steps in scripts/guest/demo.d/). Ends with a short summary.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

start=$(kiw_now)
kiw_log "checking the Debian packages (installs what is missing)"
"$KIW_TOP/scripts/setup-deps.sh"
kiw_log "fetching Debian's stock kernel $(kiw_stock_release) (cached)"
"$KIW_TOP/scripts/stock-kernel.sh" >/dev/null
kiw_log "building kiw against $(kiw_stock_kdir)"
make -s -C "$KIW_TOP" modules
kiw_log "booting a VM (QEMU, software emulation: this takes a little while)"

rc=0
"$KIW_TOP/scripts/vm.sh" --kernel stock --timeout 600 \
	--log "$KIW_TOP/build/logs/demo-stock.log" \
	--script "$KIW_TOP/scripts/guest/demo.sh" || rc=$?

echo
if [ "$rc" = 0 ]; then
	echo "kiw demo: PASS in $(kiw_since "$start") (VM console log: build/logs/demo-stock.log)"
else
	echo "kiw demo: FAIL (status $rc) in $(kiw_since "$start"); see above and build/logs/demo-stock.log"
fi
exit "$rc"
