#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Guest side of scripts/kunit.sh: load kiw_kunit, whose suites run while it
# loads and print KTAP on the kernel log, between two markers the host cuts
# the log at. Usage: kunit.sh [GLOB]  (only suites/cases matching GLOB,
# kunit's own filter, e.g. "kiw_cfg*" or "kiw_dev.*gid*")
set -u
glob=${1:-}

if [ -n "$glob" ]; then
	# printf: a charp parameter keeps a trailing newline, which no suite
	# name matches.
	printf %s "$glob" > /sys/module/kunit/parameters/filter_glob || exit 1
fi
echo "KIW-KUNIT-BEGIN" > /dev/kmsg
rc=0
modprobe kiw_kunit || rc=$?
echo "KIW-KUNIT-END" > /dev/kmsg
echo "modprobe kiw_kunit: status $rc"
# Unload, so kmemleak's scan after this job sees what the suites freed.
rmmod kiw_kunit && rmmod kiw || rc=1
exit "$rc"
