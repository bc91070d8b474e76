#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kbloomctl at scale on the real device: a million keys from stdin in one
# command, in batches of thousands per ioctl (counted by the kernel, not by
# kbloomctl); the lesson's demo; and the benchmark.

kb_suite=kbloomctl-bulk
for kb_dir in "$(dirname "$0")" /tests; do
	[ -f "$kb_dir/kbloomctl-lib.sh" ] && break
done
. "$kb_dir/kbloomctl-lib.sh"

# kb_near_theory HITS QUERIES THEORY_PPB: the measured rate HITS/QUERIES is
# within max(5 sigma, 2 % relative) of the theory, sigma = sqrt(p/Q).
# Squared, because busybox awk has no sqrt.
kb_near_theory() {
	echo "$1 $2 $3" | awk '{
		m = $1 / $2; p = $3 / 1e9; d = (m - p) * (m - p);
		b = 25 * p / $2; if (0.0004 * p * p > b) b = 0.0004 * p * p;
		exit (d <= b ? 0 : 1) }'
}

for f in big demo demo2; do
	"$KBLOOMCTL" destroy -f -q "$f"
done

# --- one million keys from stdin -----------------------------------------
n=1000000
# Generated once: busybox seq under an emulated CPU takes ~15 s a million.
seq 1 $n >"$kb_tmp/million"
"$KBLOOMCTL" create -q big --capacity 1M --fp 1%
kb_run sh -c "cat '$kb_tmp/million' | $KBLOOMCTL add big --stats"
kb_why="rc $rc: $out $err"
[ "$rc" -eq 0 ] && kb_has "added $n keys to 'big'"
kb_ok million-add

lib_ioctls=$(echo "$out" |
	sed -n 's/^added [0-9]* keys in \([0-9]*\) ioctls.*/\1/p')

# The kernel counted every key exactly once.
kb_ctl info --json big
kb_why="$out"
[ "$(kb_json_field add_calls)" = "$n" ]
kb_ok million-add-calls

# At least 1,000 keys per ioctl, by the module's own count of completed ADD
# ioctls; kbloomctl's count must agree with it exactly.
kernel_ioctls=$(cat /sys/class/kbloom/big/add_ioctls 2>&1)
kb_why="add_ioctls = '$kernel_ioctls' for $n keys"
[ "$kernel_ioctls" -ge 1 ] 2>/dev/null && [ "$kernel_ioctls" -le 1000 ]
kb_ok million-keys-per-ioctl-kernel
kb_why="kbloomctl reports '$lib_ioctls' ioctls, the module counted '$kernel_ioctls'"
[ "$lib_ioctls" = "$kernel_ioctls" ]
kb_ok million-keys-per-ioctl-reported

# Adding the same keys again sets no new bit.
kb_run sh -c "$KBLOOMCTL add big <'$kb_tmp/million'"
kb_why="rc $rc: $out $err"
[ "$rc" -eq 0 ] && kb_has "added $n keys to 'big' (0 set new bits)"
kb_ok million-readd-sets-nothing-new

# No false negatives among a million keys, checked from stdin: through the
# mapping (check's default), which the module does not count, then through
# ioctls (--no-map), which it counts in batches.
kb_run sh -c "cat '$kb_tmp/million' | $KBLOOMCTL check big"
kb_why="rc $rc: $out $err"
[ "$rc" -eq 0 ] && kb_has "$n keys checked in 'big': $n may be present, 0 definitely absent"
kb_ok million-check-no-false-negatives
kb_ctl info --json big
kb_why="$out"
[ "$(kb_json_field check_calls)" = 0 ] &&
	[ "$(cat /sys/class/kbloom/big/check_ioctls)" = 0 ]
kb_ok million-check-mapped-uncounted
kb_run sh -c "cat '$kb_tmp/million' | $KBLOOMCTL check --no-map big"
kb_why="rc $rc: $out $err"
[ "$rc" -eq 0 ] && kb_has "$n keys checked in 'big': $n may be present, 0 definitely absent"
kb_ok million-check-no-map-no-false-negatives
kb_ctl info --json big
kb_why="$out"
[ "$(kb_json_field check_calls)" = "$n" ] &&
	[ "$(kb_json_field check_hits)" = "$n" ]
kb_ok million-check-calls
kernel_ioctls=$(cat /sys/class/kbloom/big/check_ioctls 2>&1)
kb_why="check_ioctls = '$kernel_ioctls' for $n keys"
[ "$kernel_ioctls" -ge 1 ] 2>/dev/null && [ "$kernel_ioctls" -le 1000 ]
kb_ok million-check-keys-per-ioctl-kernel

# 300,000 absent keys: the measured rate is near the exact rate of the bits
# (5 sigma is about 9 % of the rate here).
q=300000
kb_run sh -c "seq $((n + 1)) $((n + q)) | $KBLOOMCTL check big"
maybe=$(echo "$out" | sed -n 's/.*: \([0-9]*\) may be present.*/\1/p')
check_rc=$rc
kb_ctl info --json big
theory=$(kb_json_field fp_now_ppb)
kb_why="maybe $maybe of $q, theory $theory ppb"
[ "$check_rc" -eq 1 ] && [ -n "$maybe" ] && [ "$maybe" -gt 0 ] &&
	kb_near_theory "$maybe" "$q" "$theory"
kb_ok million-absent-rate

"$KBLOOMCTL" destroy -q big

# --- the demo --------------------------------------------------------------
kb_ctl demo --keep --seed 5
kb_why="rc $rc: $out $err"
[ "$rc" -eq 0 ] && kb_has "false negatives: 0" &&
	kb_has "1000 present keys" && kb_has "10000 absent keys" &&
	kb_has "target 1%" && kb_has "theory" && kb_has "measured" &&
	kb_has "/sys/class/kbloom/demo/" && kb_has "add_calls"
kb_ok demo
# Its numbers are the filter's: 1000 adds and 11000 checks, and its
# measured rate is the filter's own within 5 sigma of the theory.
fp=$(echo "$out" | sed -n 's/.*absent keys.*false positives: \([0-9]*\).*/\1/p')
kb_ctl info --json demo
kb_why="fp '$fp', $out"
[ "$(kb_json_field add_calls)" = 1000 ] &&
	[ "$(kb_json_field check_calls)" = 11000 ] &&
	[ "$(kb_json_field check_hits)" = $((1000 + fp)) ]
kb_ok demo-counts-real
theory=$(kb_json_field fp_now_ppb)
kb_why="fp $fp of 10000, theory $theory ppb"
[ -n "$fp" ] && kb_near_theory "$fp" 10000 "$theory"
kb_ok demo-rate-near-theory
kb_expect demo-exists 2 "filter 'demo' already exists" demo
"$KBLOOMCTL" destroy -q demo
kb_ctl demo --name demo2
kb_why="rc $rc"
[ "$rc" -eq 0 ] && kb_has "destroyed filter 'demo2'" && [ ! -e /dev/kbloom/demo2 ]
kb_ok demo-cleans-up

# --- the benchmark -----------------------------------------------------------
kb_ctl bench --keys 200k --batch 8192 --name benchf
kb_why="rc $rc: $out $err"
[ "$rc" -eq 0 ] && kb_has "keys/s" && kb_has "ns/key" &&
	kb_has "false negatives 0" && kb_has "8192 keys per ioctl" &&
	echo "$out" | grep -q '^add  *200000 keys .* 25 ioctls' &&
	[ ! -e /dev/kbloom/benchf ]
kb_ok bench

kb_finish
