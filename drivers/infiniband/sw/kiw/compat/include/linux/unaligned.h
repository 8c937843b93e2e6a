/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * kiw compat: <linux/unaligned.h> appeared in 6.12; before it the same
 * helpers were <asm/unaligned.h>. This directory is searched after the
 * kernel's own include directories, so a kernel that has the header uses
 * its own and never reaches this one.
 */
#ifndef _KIW_COMPAT_LINUX_UNALIGNED_H
#define _KIW_COMPAT_LINUX_UNALIGNED_H
#include <asm/unaligned.h>
#endif
