#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The bounded fuzz and torture run of `make check` (about a minute and a
# half under TCG): the multi-process fuzzer of ioctls, reads, writes and
# mappings with a refused rmmod in the middle, then the concurrency torture
# (ioctl, mapped and kernel readers) on a filter of each type.  The full
# run, with fault injection and on the debug kernel, is fuzz-full.sh
# (`make check-debug`).
# Usage: test-fuzz-bounded.sh [SEED]   (fixed by default: reproducible)
# shellcheck source=tests/vm/fuzz-lib.sh
. /tests/fuzz-lib.sh

seed=${1:-20251130}

fz_fuzz fuzz-bounded 30 -s "$seed" -p 4 -n 40000 -t 40 -m 10000 \
	-N fuzz-bounded
# Once for each filter type, 22 s each.
fz_run torture torture -s "$seed" -t 22

exit "$fz_status"
