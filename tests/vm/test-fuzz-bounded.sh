#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The bounded fuzz and torture run of `make check` (about a minute under
# TCG): the multi-process fuzzer of ioctls, reads, writes and
# mappings with a refused rmmod in the middle, then the concurrency torture
# (ioctl, mapped and kernel readers) on a filter of each type and on a
# scalable filter of each type that grows (ioctl, in-kernel API and BPF
# writers while it grows at least 10 times), and the
# window torture (torture-window.c) across rotations.  The full
# run, with fault injection and on the debug kernel, is fuzz-full.sh
# (`make check-debug`).
# Usage: test-fuzz-bounded.sh [SEED]   (fixed by default: reproducible)
# shellcheck source=tests/vm/fuzz-lib.sh
. /tests/fuzz-lib.sh

seed=${1:-20251130}

fz_fuzz fuzz-bounded 30 -s "$seed" -p 4 -n 40000 -t 40 -m 10000 \
	-N fuzz-bounded
# Once for each filter type, 8 s each (22 until 9f5d839, 2026-12-01: make
# check went over its 20 minutes cold; 10 until 2026-12-07, when 7.3-rt's
# whole suite and the data-race kernel's bounded run came into make
# check; the debug kernel's run tortures each type for 8 s more, and make
# check-debug for 300), then the two scalable runs, 8 s each too, each
# until its main has grown as far as it asserts (24 s for both at 10 s
# with their final checks on Debian's 6.12 under TCG, 2-vCPU VM,
# 2026-12-04).
fz_run torture torture -s "$seed" -t 8
# Window filters with ground truth across rotations by time, by count and
# by hand (at least 100 of each kind; about 30 s under TCG).
fz_run torture-window torture-window -s "$seed" -t 24

exit "$fz_status"
