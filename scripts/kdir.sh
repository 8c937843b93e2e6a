#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Print the KDIR to build kiw against: by default the build tree of Debian's
# linux-headers-6.12-amd64 (the release is read from the installed
# metapackage, never hard-coded); with a kernel id (stock, 6.1, 7.2: see
# scripts/kernel.sh), that kernel's, made ready first (7.2: in a sid chroot,
# which scripts/kbuild.sh builds in).
# Usage: scripts/kdir.sh [ID]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ $# = 0 ] || exec "$KIW_TOP/scripts/kernel.sh" "$1" --kdir
kiw_stock_kdir
