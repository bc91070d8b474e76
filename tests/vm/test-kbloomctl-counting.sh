#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kbloomctl and counting filters against the real device: create
# --counting, add, check and delete round trips, delete on a bits filter
# (refused, nothing changed), the delete counters in info and list, images
# of counting filters, and type mismatches in load and merge.  The filters
# are large for their few keys (a false positive about 1e-6 per check and a
# fixed seed), so every answer below is exact.

kb_suite=kbloomctl-counting
for kb_dir in "$(dirname "$0")" /tests; do
	[ -f "$kb_dir/kbloomctl-lib.sh" ] && break
done
. "$kb_dir/kbloomctl-lib.sh"

for f in cnt plain twin-bits c1 c2 restored; do
	"$KBLOOMCTL" destroy -f -q "$f"
done

# Keys k1..kN, one per line.
kb_keys() {
	seq "$1" "$2" | sed 's/^/k/'
}

# --- create --------------------------------------------------------------
kb_expect create 0 "created counting filter 'cnt': " \
	create cnt --counting --capacity 1000 --fp 1e-6 --seed 21
kb_why="$out"
kb_has " counters), k "
kb_ok create-prints-counters

kb_ctl size --json --counting 1000 1e-6
size_bits=$(kb_json_field bits)
size_k=$(kb_json_field k)
size_fp=$(kb_json_field fp_expected_ppb)
kb_ctl info --json cnt
nblocks=$(kb_json_field nblocks)
kb_why="size says bits $size_bits k $size_k fp $size_fp; device: $out"
[ "$(kb_json_field bits)" = "$size_bits" ] &&
	[ "$(kb_json_field k)" = "$size_k" ] &&
	[ "$(kb_json_field fp_design_ppb)" = "$size_fp" ]
kb_ok size-counting-matches-device
kb_why="$out"
kb_has '"type":"counting"' && [ "$(kb_json_field cells)" -eq $((nblocks * 128)) ] &&
	[ "$(kb_json_field delete_calls)" = 0 ] &&
	[ "$(kb_json_field delete_hits)" = 0 ] && [ "$(kb_json_field bits_set)" = 0 ]
kb_ok info-json-type

# --- add, check, delete ----------------------------------------------------
kb_keys 1 20 >"$kb_tmp/k20"
kb_keys 1 10 >"$kb_tmp/first"
kb_keys 11 20 >"$kb_tmp/second"
kb_keys 101 110 >"$kb_tmp/never"
kb_expect add 0 "added 20 keys to 'cnt' (20 set new bits)" add cnt -f "$kb_tmp/k20"
kb_expect check-added 0 "20 may be present, 0 definitely absent" \
	check cnt -f "$kb_tmp/k20"
kb_expect delete 0 "10 of 10 keys removed from 'cnt' (0 not present)" \
	delete cnt -f "$kb_tmp/first"
kb_expect deleted-absent 1 "0 may be present, 10 definitely absent" \
	check cnt -f "$kb_tmp/first"
kb_expect others-kept 0 "10 may be present, 0 definitely absent" \
	check cnt -f "$kb_tmp/second"

kb_expect delete-absent 1 "0 of 10 keys removed from 'cnt' (10 not present)" \
	delete cnt -f "$kb_tmp/never"
kb_expect delete-again 1 "0 of 1 key removed from 'cnt' (1 not present)" \
	delete cnt k1
kb_expect delete-mixed 1 "1 of 2 keys removed from 'cnt' (1 not present)" \
	delete cnt k11 nope
kb_ctl delete -v cnt k12 nope
kb_why="rc $rc: $out"
[ "$rc" -eq 1 ] && [ "$out" = "removed	k12
absent	nope" ]
kb_ok delete-verbose
kb_expect delete-quiet 0 "" delete -q cnt k13
kb_why="printed: $out"
[ -z "$out" ]
kb_ok delete-quiet-silent
kb_run sh -c "printf 'k14\\0k15\\0' | $KBLOOMCTL delete cnt -0"
kb_why="rc $rc: $out $err"
[ "$rc" -eq 0 ] && kb_has "2 of 2 keys removed"
kb_ok delete-stdin-nul
kb_expect delete-stats 0 "deleted 1 keys in 1 ioctls" delete --stats cnt k16

# 10 + 10 + 1 + 2 + 2 + 1 + 2 + 1 keys deleted, 10 + 1 + 1 + 1 + 2 + 1 of
# them removed.
kb_ctl info --json cnt
kb_why="$out"
[ "$(kb_json_field delete_calls)" = 29 ] &&
	[ "$(kb_json_field delete_hits)" = 16 ] &&
	[ "$(kb_json_field add_calls)" = 20 ]
kb_ok info-delete-counters
kb_ctl info cnt
kb_why="$out"
[ "$rc" -eq 0 ] && kb_has "type            counting" &&
	kb_has "cells           $((nblocks * 128)) counters" &&
	kb_has "deletes         29 keys, 16 removed" &&
	kb_has " of $((nblocks * 128)) cells set)"
kb_ok info-table-type

# Every added key deleted once: the counters are all back to 0.
kb_expect delete-rest 0 "4 of 4 keys removed" delete cnt k17 k18 k19 k20
kb_ctl info --json cnt
kb_why="$out"
[ "$(kb_json_field bits_set)" = 0 ]
kb_ok delete-all-empties
kb_expect empty-after 1 "0 may be present, 20 definitely absent" \
	check cnt -f "$kb_tmp/k20"

# A key added twice needs two deletes.
"$KBLOOMCTL" add -q cnt twice twice
kb_expect twice-first 0 "1 of 1 key removed" delete cnt twice
kb_expect twice-still-there 0 "" check -q cnt twice
kb_expect twice-second 0 "1 of 1 key removed" delete cnt twice
kb_expect twice-gone 1 "" check -q cnt twice

# --- delete on a bits filter: refused, nothing changed -------------------
"$KBLOOMCTL" create -q plain --capacity 1000 --fp 1% --seed 5
"$KBLOOMCTL" add -q plain alice bob
kb_ctl info --json plain
before=$out
kb_expect delete-bits 2 \
	"filter 'plain' is not a counting filter: delete needs one (create it with --counting)" \
	delete plain alice
kb_run sh -c "printf '' | $KBLOOMCTL delete plain"
kb_why="rc $rc: $err"
[ "$rc" -eq 2 ] && kb_has "is not a counting filter"
kb_ok delete-bits-no-keys
kb_ctl info --json plain
kb_why="before $before; after $out"
[ "$out" = "$before" ] && kb_has '"type":"bits"' &&
	[ "$(kb_json_field delete_calls)" = 0 ]
kb_ok delete-bits-unchanged
kb_expect delete-bits-keeps-keys 0 "" check -q plain alice bob
kb_expect delete-not-found 2 "cannot open filter 'nope': no such filter (see: kbloomctl list)" \
	delete nope k

# --- list ----------------------------------------------------------------
kb_ctl list
kb_why="$out"
[ "$rc" -eq 0 ] && kb_has TYPE &&
	echo "$out" | grep -q '^cnt .* counting *$' &&
	echo "$out" | grep -q '^plain .* bits *$'
kb_ok list-table-type
kb_ctl list --json
kb_why="$out"
[ "$rc" -eq 0 ] && kb_has '"name":"cnt","node":"/dev/kbloom/cnt","type":"counting"' &&
	kb_has '"name":"plain","node":"/dev/kbloom/plain","type":"bits"' &&
	kb_has '"delete_calls":35'
kb_ok list-json-type

# --- images --------------------------------------------------------------
"$KBLOOMCTL" add -q cnt -f "$kb_tmp/k20" dup dup dup
kb_expect save 0 "saved filter 'cnt'" save cnt "$kb_tmp/cnt.kbloom"
size=$(wc -c <"$kb_tmp/cnt.kbloom")
kb_why="size $size for $nblocks blocks"
[ "$size" -eq $((88 + nblocks * 64 + 4)) ]
kb_ok save-size
"$KBLOOMCTL" clear -q cnt
kb_expect load 0 "loaded $kb_tmp/cnt.kbloom into filter 'cnt'" \
	load cnt "$kb_tmp/cnt.kbloom"
"$KBLOOMCTL" save -q cnt "$kb_tmp/again.kbloom"
kb_why="images differ"
cmp -s "$kb_tmp/cnt.kbloom" "$kb_tmp/again.kbloom"
kb_ok save-load-same-image
kb_ctl info --json cnt
kb_why="$out"
[ "$(kb_json_field delete_calls)" = 0 ] && [ "$(kb_json_field add_calls)" = 45 ]
kb_ok load-resets-delete-counters
kb_expect load-keys 0 "" check -q cnt -f "$kb_tmp/k20" dup
# The counters came back too: dup, added three times, takes three deletes.
kb_ctl delete -q cnt dup dup dup
kb_why="rc $rc: $err"
[ "$rc" -eq 0 ]
kb_ok load-restores-counts
kb_expect load-dup-gone 1 "" check -q cnt dup

kb_expect load-create 0 "into new filter 'restored'" \
	load --create restored "$kb_tmp/cnt.kbloom"
kb_ctl info --json restored
kb_why="$out"
kb_has '"type":"counting"' && [ "$(kb_json_field nblocks)" = "$nblocks" ]
kb_ok load-create-type
# The counters, that is: --create sizes by bits, so no target rate.
kb_cells() {
	tail -c +89 "$1" | head -c $((nblocks * 64))
}
"$KBLOOMCTL" save -q restored "$kb_tmp/restored.kbloom"
kb_cells "$kb_tmp/cnt.kbloom" >"$kb_tmp/cnt.cells"
kb_cells "$kb_tmp/restored.kbloom" >"$kb_tmp/restored.cells"
kb_why="counters differ"
[ -s "$kb_tmp/cnt.cells" ] &&
	cmp -s "$kb_tmp/cnt.cells" "$kb_tmp/restored.cells"
kb_ok load-create-same-counters

# A bits filter of the same size, k and seed takes neither image nor merge.
kb_ctl info --json cnt
k=$(kb_json_field k)
"$KBLOOMCTL" create -q twin-bits --bits $((nblocks * 512)) --k "$k" --seed 21
"$KBLOOMCTL" add -q twin-bits only-bits
kb_expect load-type-differs 2 \
	"image type differs from filter 'twin-bits': $kb_tmp/cnt.kbloom holds a counting filter, the filter is a bits one" \
	load twin-bits "$kb_tmp/cnt.kbloom"
kb_why="$err"
kb_has "kbloomctl create NAME --counting --bits $((nblocks * 512)) --k $k --seed 0x15"
kb_ok load-type-way-out
kb_expect load-type-unchanged 0 "" check -q twin-bits only-bits
kb_expect merge-type-differs 2 \
	"filters 'twin-bits' (bits, $((nblocks * 512)) bits, k $k, seed 0x15) and 'cnt' (counting, $((nblocks * 512)) bits, k $k, seed 0x15) are not compatible (a bits and a counting filter never combine)" \
	merge twin-bits cnt
kb_expect intersect-type-differs 2 "a bits and a counting filter never combine" \
	intersect cnt twin-bits

# --- merge and intersect of counting filters ------------------------------
for f in c1 c2; do
	"$KBLOOMCTL" create -q "$f" --counting --bits 512Ki --k 4 --seed 3
done
"$KBLOOMCTL" add -q c1 -f "$kb_tmp/first" common
"$KBLOOMCTL" add -q c2 -f "$kb_tmp/second" common
kb_expect merge 0 "merged 'c2' into 'c1'" merge c1 c2
kb_expect merge-has-both 0 "" check -q c1 -f "$kb_tmp/k20" common
# common's counters were added: it takes two deletes to go.
kb_expect merge-counts-add 0 "" delete -q c1 common
kb_expect merge-common-stays 0 "" check -q c1 common
kb_expect merge-delete-src-keys 0 "10 of 10 keys removed" \
	delete c1 -f "$kb_tmp/second"
kb_expect merge-deleted-gone 1 "0 may be present, 10 definitely absent" \
	check c1 -f "$kb_tmp/second"
kb_expect intersect 0 "intersected 'c2' into 'c1'" intersect c1 c2
kb_expect intersect-keeps-common 0 "" check -q c1 common
kb_expect intersect-drops-others 1 "0 may be present, 10 definitely absent" \
	check c1 -f "$kb_tmp/first"

for f in cnt plain twin-bits c1 c2 restored; do
	"$KBLOOMCTL" destroy -q "$f"
done

kb_finish
