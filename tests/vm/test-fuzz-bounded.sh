#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The bounded fuzz and torture run of `make check` (about a minute and a
# half under TCG): the multi-process fuzzer of ioctls, reads, writes and
# mappings with a refused rmmod in the middle, then the concurrency torture
# (ioctl and mapped readers) on a bits and a counting filter.  The full run, with fault
# injection and on the debug kernel, is fuzz-full.sh (`make check-debug`).
# Usage: test-fuzz-bounded.sh [SEED]   (fixed by default: reproducible)
# shellcheck source=tests/vm/fuzz-lib.sh
. /tests/fuzz-lib.sh

seed=${1:-20251130}

fuzz-ioctl -s "$seed" -p 4 -n 40000 -t 40 -m 10000 -N fuzz-bounded \
	>/tmp/fz-fuzz-bounded.log 2>&1 &
pid=$!
if fz_wait_open "$pid" 30; then
	fz_try_unload fuzz-bounded
else
	fz_fail fuzz-bounded/rmmod-refused "the fuzzer never held the module"
fi
wait "$pid"
rc=$?
cat /tmp/fz-fuzz-bounded.log
if [ "$rc" -ne 0 ]; then
	fz_status=1
	grep -q '^FAIL: ' /tmp/fz-fuzz-bounded.log ||
		fz_fail fuzz-bounded "fuzz-ioctl exit $rc"
fi

fz_run torture torture -s "$seed" -t 25
fz_run torture-counting torture -s "$seed" -t 20 -T counting

exit "$fz_status"
