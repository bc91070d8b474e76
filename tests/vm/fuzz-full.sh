#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The full fuzz run, for the debug kernel (`make check-debug`): at least a
# million fuzzed operations across four processes with rmmod refused while
# they run (the in-kernel API's through the companion module and the BPF
# kfuncs' among them: fuzz-ioctl loads the companion for its run), the
# concurrency torture on a filter of each type (with readers
# through the API and through BPF) and on a scalable filter of each type
# that grows (with writers through the API and through BPF too), and the
# window torture across rotations, then the fuzzer again under fault
# injection (failslab and fail_page_alloc, only for the fuzzer's own
# processes through task-filter and /proc/self/make-it-fail), a sweep
# that fails every allocation point of each kind of call in turn
# (fault-nth, mmap and its page faults among them), then the in-kernel
# API's test (test-kapi.sh: every context, destroy while held, last puts
# from softirq and hardirq) with KAPI_KEYS keys, BPF programs calling the
# kfuncs (test-bpf), and finally a kmemleak scan that must find nothing.
# The kernel log is judged by scripts/vm-run (KASAN, lockdep, WARN, ...).
# Usage: fuzz-full.sh [SEED] [OPS_PER_PROCESS] [FUZZ_SECONDS] [TORTURE_SECONDS]
#                     [FAULT_OPS_PER_PROCESS] [KAPI_KEYS] [BPF_KEYS]
# shellcheck source=tests/vm/fuzz-lib.sh
. /tests/fuzz-lib.sh

seed=${1:-1}
ops=${2:-260000}
fuzz_seconds=${3:-3600}
torture_seconds=${4:-300}
fault_ops=${5:-25000}
# 100,000 keys: 37 s on the debug kernel under TCG, measured on a 2-vCPU
# AMD EPYC VM (edb577f, 2026-12-01; with 1,000,000, run-all.sh's default,
# the whole VM run with boot takes 34 s on Debian's kernel).
kapi_keys=${6:-100000}
# Packets of test-bpf's verdict cases: 20,000 took 7 s per filter type
# on the debug kernel under TCG (2-vCPU VM beside a UML build, AMD EPYC
# host, 2026-12-03), and KASAN sees the same code paths in fewer.
# 0 leaves BPF out of the run: no kfuncs in the fuzzer (-B), no BPF
# readers or writer in the torture and no test-bpf, for a kernel built
# without BPF (make check's debug kernel, scripts/debug-kernel.config), so
# that no case says SKIP for what the run never meant to test.
bpf_keys=${7:-20000}
if [ "$bpf_keys" -eq 0 ]; then
	fuzz_bpf=-B
	torture_bpf="-B 0"
	echo "fuzz-full: BPF left out of this run (BPF_KEYS 0)"
else
	fuzz_bpf=
	torture_bpf=
fi
min_ops=$((ops * 4 < 1000000 ? ops * 4 : 1000000))
started=$(date +%s)

if ! fz_debugfs; then
	echo "fuzz-full: no debugfs: fault injection and kmemleak unavailable"
fi
fz_kmemleak_reset

echo "fuzz-full: phase 1: fuzzing, $ops operations per process"
# shellcheck disable=SC2086 # an option or nothing
fz_fuzz fuzz-full 60 -s "$seed" -p 4 -n "$ops" -t "$fuzz_seconds" \
	-m "$min_ops" -H 300 $fuzz_bpf
echo "fuzz-full: phase 1 took $(($(date +%s) - started)) s"

phase=$(date +%s)
echo "fuzz-full: phase 2: torture, $torture_seconds s on each filter type, fixed and scalable"
# shellcheck disable=SC2086 # an option or nothing
fz_run torture torture -s "$seed" -t "$torture_seconds" -H 300 $torture_bpf
# Window filters: ground truth across rotations by time, count and hand.
fz_run torture-window torture-window -s "$seed" -t "$torture_seconds"
echo "fuzz-full: phase 2 took $(($(date +%s) - phase)) s"

# Allocations fail at random, only in the fuzzer's workers (task-filter
# plus their /proc/self/make-it-fail): first often, so that nearly every
# call takes an error path, then rarely, so that calls also succeed with
# some of their allocations having failed before.  The kernel-side
# operations run there too: what fails for them is the companion's
# allocations (a batch's keys and answers, the bad key), kernfs' copy of
# each command and seq_file's buffer for its answer, and for BPF
# test_run's data, skb and context, and a program's load (verifier, BTF,
# maps); the fuzzer's table counts their ENOMEMs per operation.
# A page fault of a mapping that cannot allocate its page table is retried
# by the kernel ("Huh VM_FAULT_OOM leaked out to the #PF handler. Retrying
# PF" in the log, 5 to 6 times per run on a 2-vCPU AMD EPYC VM, 9867360,
# 2026-12-01), never a SIGBUS so far: the fuzzer counts any SIGBUS and
# would print it.
phase=$(date +%s)
fs=/sys/kernel/debug
if [ -d $fs/failslab ] && [ -d $fs/fail_page_alloc ]; then
	echo "fuzz-full: phase 3: fuzzing under fault injection"
	for f in failslab fail_page_alloc; do
		echo Y >$fs/$f/task-filter
		echo N >$fs/$f/ignore-gfp-wait
		echo 1 >$fs/$f/interval
		echo -1 >$fs/$f/times
		echo 0 >$fs/$f/space
		echo 0 >$fs/$f/verbose
	done
	echo N >$fs/fail_page_alloc/ignore-gfp-highmem
	echo 0 >$fs/fail_page_alloc/min-order
	for level in heavy:10:5 light:1:1; do
		name=fuzz-fault-${level%%:*}
		rates=${level#*:}
		echo "${rates%:*}" >$fs/failslab/probability
		echo "${rates#*:}" >$fs/fail_page_alloc/probability
		echo "fuzz-full: $name: failslab ${rates%:*} %, fail_page_alloc ${rates#*:} %"
		# shellcheck disable=SC2086 # an option or nothing
		fz_run "$name" fuzz-ioctl -s "$seed" -p 4 -n "$fault_ops" \
			-t "$fuzz_seconds" -H 300 -F -N "$name" $fuzz_bpf
	done
	echo 0 >$fs/failslab/probability
	echo 0 >$fs/fail_page_alloc/probability
	# Then each allocation of each kind of call, one at a time.
	fz_run fault-nth fault-nth
else
	fz_fail fuzz-full/fault-injection "no failslab/fail_page_alloc in debugfs"
fi
echo "fuzz-full: phase 3 took $(($(date +%s) - phase)) s"

# The companion module's checks, adds and puts from every context, under
# KASAN, lockdep and DEBUG_ATOMIC_SLEEP; it reloads kbloom at its end.
# It loads the companion itself: the runs before must have unloaded it.
fz_kapi_gone fuzz-full
phase=$(date +%s)
echo "fuzz-full: phase 4: the in-kernel API, $kapi_keys keys"
fz_run kapi sh /tests/test-kapi.sh "$kapi_keys"
echo "fuzz-full: phase 4 took $(($(date +%s) - phase)) s"

# kbloom's kfuncs from BPF programs under KASAN and lockdep: verdicts,
# adds, verifier refusals, destroy under running programs; BPF_KEYS XDP
# packets.
if [ "$bpf_keys" -ne 0 ]; then
	phase=$(date +%s)
	echo "fuzz-full: phase 5: BPF kfuncs (test-bpf), $bpf_keys packets"
	fz_run bpf test-bpf "$bpf_keys"
	echo "fuzz-full: phase 5 took $(($(date +%s) - phase)) s"
fi

fz_kmemleak_check fuzz-full
echo "fuzz-full: whole run took $(($(date +%s) - started)) s"
exit "$fz_status"
