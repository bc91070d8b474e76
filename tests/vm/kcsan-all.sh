#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What the data-race kernel (scripts/debug-kernel-kcsan.config: KCSAN in
# place of KASAN) runs: every writer of cells against every other, with
# ground truth.  The torture on a filter of each type and on a scalable
# one of each type that grows (ioctl writers, the in-kernel API's kernel
# thread and a BPF program; readers through ioctls, the API, BPF and
# mappings; chaos merging, loading and clearing beside them), the window
# torture across rotations, then the VM tests that race rewrites (CLEAR,
# INTERSECT, loads) and growth against adds, the scalable filters' and
# their mappings' cases, and the in-kernel API in every context.  KCSAN's
# reports ("BUG: KCSAN: data-race in A / B") go to the kernel log, which
# scripts/vm-run judges with the rest.
# Usage: kcsan-all.sh [SEED] [TORTURE_SECONDS] [PER_TEST_TIMEOUT] [--bounded]
# --bounded, make check's run: the torture of the scalable filters alone
# (both types; ioctl, in-kernel API and BPF writers, every reader, chaos),
# the writers that race each other and growth, and no VM tests.
# shellcheck source=tests/vm/fuzz-lib.sh
. /tests/fuzz-lib.sh

seed=${1:-1}
torture_seconds=${2:-20}
per_test=${3:-1200}
started=$(date +%s)

if [ "${4:-}" = --bounded ]; then
	fz_run torture torture -s "$seed" -t "$torture_seconds" -H 300 -S
	echo "kcsan-all: took $(($(date +%s) - started)) s"
	exit "$fz_status"
fi
fz_run torture torture -s "$seed" -t "$torture_seconds" -H 300
fz_run torture-window torture-window -s "$seed" -t "$torture_seconds"
sh /tests/run-all.sh --timeout "$per_test" test-rewrite-race test-race \
	test-scalable test-scalable-map test-kapi || fz_status=1
echo "kcsan-all: took $(($(date +%s) - started)) s"
exit "$fz_status"
