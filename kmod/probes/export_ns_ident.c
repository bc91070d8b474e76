// SPDX-License-Identifier: GPL-2.0
/*
 * A symbol namespace given as an identifier, which the export macros
 * stringified until 6.13; since, the namespace is a string literal and an
 * identifier does not compile.
 */
#include <linux/export.h>

extern int kbloom_probe_symbol;
int kbloom_probe_symbol;
EXPORT_SYMBOL_NS_GPL(kbloom_probe_symbol, KBLOOM_PROBE);
