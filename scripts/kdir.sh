#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Print the default KDIR: the build tree of Debian's linux-headers-6.12-amd64
# (the release is read from the installed metapackage, never hard-coded).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
kiw_stock_kdir
