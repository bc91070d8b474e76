#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kbloomctl at scale on the real device: a million keys from stdin in one
# command, in batches of thousands per ioctl (counted by the kernel, not by
# kbloomctl), for every filter type; the lesson's demo; and the benchmark.

kb_suite=kbloomctl-bulk
for kb_dir in "$(dirname "$0")" /tests; do
	[ -f "$kb_dir/kbloomctl-lib.sh" ] && break
done
. "$kb_dir/kbloomctl-lib.sh"

kb_destroy demo demo2
for t in $kb_types; do
	kb_destroy "big-$t"
done

# kb_per_ioctl CASE OP: at least 1,000 keys per ioctl, by the module's own
# count of completed OP ioctls of $f (in $kernel_ioctls after).
kb_per_ioctl() {
	kernel_ioctls=$(cat "/sys/class/kbloom/$f/$2_ioctls" 2>&1)
	kb_why="$2_ioctls = '$kernel_ioctls' for $n keys"
	[ "$kernel_ioctls" -ge 1 ] 2>/dev/null && [ "$kernel_ioctls" -le 1000 ]
	kb_ok "$1"
}

# --- one million keys from stdin, every type ------------------------------
n=1000000
q=300000
# Generated once (kb_numbers: cut from /tests/numbers).
kb_numbers 1 $n >"$kb_tmp/million"
kb_numbers $((n + 1)) $q >"$kb_tmp/absent"
# Word splitting of $kb_opt is wanted (empty for bits).
# shellcheck disable=SC2086
for t in $kb_types; do
	kb_type "$t"
	f=big-$t
	"$KBLOOMCTL" create -q "$f" --capacity "$(kb_capacity 1000000)" \
		--fp 1% $kb_opt
	kb_expect_sh "million-add/$t" 0 "added $n keys to '$f'" \
		"cat '$kb_tmp/million' | $KBLOOMCTL add $f --stats"
	lib_ioctls=$(echo "$out" |
		sed -n 's/^added [0-9]* keys in \([0-9]*\) ioctls.*/\1/p')

	# The kernel counted every key exactly once, in batches; kbloomctl's
	# count of ioctls must agree with the module's exactly.
	kb_info "million-add-calls/$t" "$f" add_calls=$n
	kb_per_ioctl "million-keys-per-ioctl-kernel/$t" add
	kb_why="kbloomctl reports '$lib_ioctls' ioctls, the module counted '$kernel_ioctls'"
	[ "$lib_ioctls" = "$kernel_ioctls" ]
	kb_ok "million-keys-per-ioctl-reported/$t"

	# Adding the same keys again sets no new bit.
	kb_expect_sh "million-readd-sets-nothing-new/$t" 0 \
		"added $n keys to '$f' (0 set new bits)" \
		"$KBLOOMCTL add $f <'$kb_tmp/million'"

	# No false negatives among a million keys, checked from stdin:
	# through the mapping (check's default), which the module does not
	# count, then through ioctls (--no-map), which it counts in batches.
	all="$n keys checked in '$f': $n may be present, 0 definitely absent"
	kb_expect_sh "million-check-no-false-negatives/$t" 0 "$all" \
		"cat '$kb_tmp/million' | $KBLOOMCTL check $f"
	kb_ctl info --json "$f"
	kb_why="$out"
	[ "$(kb_json_field check_calls)" = 0 ] &&
		[ "$(cat "/sys/class/kbloom/$f/check_ioctls")" = 0 ]
	kb_ok "million-check-mapped-uncounted/$t"
	kb_expect_sh "million-check-no-map-no-false-negatives/$t" 0 "$all" \
		"cat '$kb_tmp/million' | $KBLOOMCTL check --no-map $f"
	kb_info "million-check-calls/$t" "$f" check_calls=$n check_hits=$n
	kb_per_ioctl "million-check-keys-per-ioctl-kernel/$t" check

	# 300,000 absent keys: the measured rate is near the exact rate of
	# the cells set (5 sigma is about 9 % of the rate here).
	kb_run sh -c "$KBLOOMCTL check $f <'$kb_tmp/absent'"
	maybe=$(echo "$out" | sed -n 's/.*: \([0-9]*\) may be present.*/\1/p')
	check_rc=$rc
	kb_ctl info --json "$f"
	theory=$(kb_json_field fp_now_ppb)
	kb_why="maybe $maybe of $q, theory $theory ppb"
	[ "$check_rc" -eq 1 ] && [ -n "$maybe" ] && [ "$maybe" -gt 0 ] &&
		kb_near_theory "$maybe" "$q" "$theory"
	kb_ok "million-absent-rate/$t"
	"$KBLOOMCTL" destroy -q "$f"
done

# --- the demo --------------------------------------------------------------
kb_expect demo 0 "$(kb_lines "false negatives: 0" "1000 present keys" \
	"10000 absent keys" "target 1%" theory measured \
	/sys/class/kbloom/demo/ add_calls)" demo --keep --seed 5
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
