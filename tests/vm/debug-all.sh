#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Everything `make check-debug` runs inside the debug kernel's VM: every VM
# test (run-all.sh), then the full fuzz, torture and fault-injection run.
# Usage: debug-all.sh [PER_TEST_TIMEOUT] [fuzz-full.sh arguments...]
# shellcheck source=tests/vm/fuzz-lib.sh
. /tests/fuzz-lib.sh

per_test=${1:-1200}
[ $# -gt 0 ] && shift

fz_debugfs
# Boot leaves kmemleak suspects of its own; judge only what follows.
fz_kmemleak_reset

status=0
sh /tests/run-all.sh --timeout "$per_test" || status=1
sh /tests/fuzz-full.sh "$@" || status=1
exit $status
