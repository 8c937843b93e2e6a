#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Debian's stock kernel (6.12 LTS) unpacked: scripts/kernel.sh stock, kept
# under this name for the scripts and habits that call it.
# Usage: scripts/stock-kernel.sh [--print]   (--print: only print the path)
exec "$(dirname "$0")/kernel.sh" stock "$@"
