#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-vm`: runs inside the VM (scripts/vm-run, module loaded).
# kbloom through batched ioctls, the BPF bloom map and the core in
# userspace, on 1 M keys by default: the VM has 1 GiB unless KBLOOM_VM_MEM
# says otherwise.  Prints ratios; lines starting "BENCHJSON: " are the JSONL
# rows (where = vm) for the host to collect.  Then kbloom-vmbench window: a
# window filter's batched checks with and without continuous rotations.
# Then bench-bpf: a check from a BPF program, kbloom's kfunc against
# bpf_map_peek_elem() on a BPF bloom map of the same keys and bits, and
# the hot path per packet (acquire each time, a per-CPU kptr, the map) on
# one vCPU and on two at once (SKIP without BTF).  Then kbloom-vmthreads: ADD throughput of 1, 2 and 4
# processes on one filter, and its PASS/FAIL lines.
set -u
n=${1:-1000000}
repeats=${2:-9}
echo "bench-vm: $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs," \
	"$(awk '/MemTotal/ { print int($2 / 1024) " MiB" }' /proc/meminfo)"
status=0
kbloom-vmbench "$n" "$repeats" || status=1
# Window filters: a 64 MiB window of 8 generations, batched
# checks with and without a second process rotating (about 3 minutes).
kbloom-vmbench window 64 5 || status=1
# The largest power-of-two bits holding n keys at 10 bits/key: 838,860
# keys for the default n.
bench-bpf "$n" "$repeats" || status=1
# Concurrent adds: 1, 2 and 4 processes on one filter of 10 M keys (about
# 2 minutes on a 2-vCPU AMD EPYC VM, 4b42456, 2026-12-01); its own sizes,
# whatever n says.
kbloom-vmthreads || status=1
exit $status
