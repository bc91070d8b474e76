#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kbloomctl save, load, merge and intersect against the real device: round
# trips, every way an image can be rejected (with the filter unchanged),
# and the compatibility rules of merge and intersect.

kb_suite=kbloomctl-image
for kb_dir in "$(dirname "$0")" /tests; do
	[ -f "$kb_dir/kbloomctl-lib.sh" ] && break
done
. "$kb_dir/kbloomctl-lib.sh"

for f in img other restored made a b c d; do
	"$KBLOOMCTL" destroy -f -q "$f"
done

# Keys k1..kN, one per line.
kb_keys() {
	seq "$1" "$2" | sed 's/^/k/'
}

# --- save and load -------------------------------------------------------
"$KBLOOMCTL" create -q img --capacity 10000 --fp 0.1% --seed 11
kb_keys 1 500 >"$kb_tmp/k500"
"$KBLOOMCTL" add -q img -f "$kb_tmp/k500"
kb_expect save 0 "saved filter 'img' to $kb_tmp/img.kbloom" \
	save img "$kb_tmp/img.kbloom"
kb_ctl info --json img
nblocks=$(kb_json_field nblocks)
size=$(wc -c <"$kb_tmp/img.kbloom")
# 88-byte header, 64 bytes per block, 4-byte CRC32C.
kb_why="size $size for $nblocks blocks"
[ "$size" -eq $((88 + nblocks * 64 + 4)) ]
kb_ok save-size
kb_why="temporary file left"
for kb_left in "$kb_tmp"/*.tmp.*; do
	[ ! -e "$kb_left" ]
done
kb_ok save-no-temporary

kb_run sh -c "$KBLOOMCTL save img - >'$kb_tmp/stdout.kbloom'"
kb_why="rc $rc $err"
[ "$rc" -eq 0 ] && cmp -s "$kb_tmp/img.kbloom" "$kb_tmp/stdout.kbloom"
kb_ok save-stdout

"$KBLOOMCTL" clear -q img
kb_expect cleared-forgets 1 "" check -q img -f "$kb_tmp/k500"
kb_expect load 0 "loaded $kb_tmp/img.kbloom into filter 'img'" \
	load img "$kb_tmp/img.kbloom"
kb_expect load-restores-keys 0 "500 may be present" check img -f "$kb_tmp/k500"
kb_ctl info --json img
kb_why="$out"
[ "$(kb_json_field add_calls)" = 500 ]
kb_ok load-restores-counters

"$KBLOOMCTL" clear -q img
kb_run sh -c "$KBLOOMCTL load img - <'$kb_tmp/img.kbloom'"
kb_why="rc $rc $err"
[ "$rc" -eq 0 ]
kb_ok load-stdin
kb_expect load-stdin-keys 0 "" check -q img -f "$kb_tmp/k500"

kb_expect load-create 0 "loaded $kb_tmp/img.kbloom into new filter 'restored'" \
	load --create restored "$kb_tmp/img.kbloom"
kb_expect load-create-keys 0 "" check -q restored -f "$kb_tmp/k500"
kb_ctl info --json restored
kb_why="$out"
[ "$(kb_json_field nblocks)" = "$nblocks" ] && [ "$(kb_json_string seed)" = 11 ]
kb_ok load-create-geometry
kb_expect load-create-existing 0 "into filter 'restored'" \
	load --create restored "$kb_tmp/img.kbloom"

# --- rejected images leave the filter unchanged ---------------------------
"$KBLOOMCTL" add -q img only-in-img
kb_ctl info --json img
before_adds=$(kb_json_field add_calls)
before_bits=$(kb_json_field bits_set)
kb_unchanged() {
	kb_ctl info --json img
	kb_why="add_calls $(kb_json_field add_calls) bits_set $(kb_json_field bits_set), were $before_adds $before_bits"
	[ "$(kb_json_field add_calls)" = "$before_adds" ] &&
		[ "$(kb_json_field bits_set)" = "$before_bits" ]
	kb_ok "$1"
}

echo "hello, this is not an image" >"$kb_tmp/text"
kb_expect load-not-image 2 "$kb_tmp/text is not a kbloom image" \
	load img "$kb_tmp/text"
kb_unchanged load-not-image-unchanged
: >"$kb_tmp/empty"
kb_expect load-empty 2 "is not a kbloom image" load img "$kb_tmp/empty"

head -c 1000 "$kb_tmp/img.kbloom" >"$kb_tmp/short"
kb_expect load-truncated 2 "$kb_tmp/short is a truncated kbloom image (1000 of $size bytes)" \
	load img "$kb_tmp/short"
kb_unchanged load-truncated-unchanged
# The README's warning beside the cat recipe: the module can say ENODATA
# only at close(), and busybox cat exits without checking it, so
# `cat short > /dev/kbloom/img` exits 0 and nothing says the image was
# refused (the filter is unchanged).  kbloomctl load, above, reports it.
kb_run sh -c "cat '$kb_tmp/short' >/dev/kbloom/img"
kb_why="cat exit $rc: $err"
[ "$rc" -eq 0 ]
kb_ok load-cat-truncated-exits-0
kb_unchanged load-cat-truncated-unchanged
head -c 40 "$kb_tmp/img.kbloom" >"$kb_tmp/short-header"
kb_expect load-truncated-header 2 "truncated kbloom image" \
	load img "$kb_tmp/short-header"
# The same header arriving in two reads (a pipe): it must be judged whole,
# not by its last piece.
mkfifo "$kb_tmp/split"
{ head -c 20 "$kb_tmp/short-header"; sleep 1
  tail -c 20 "$kb_tmp/short-header"; } >"$kb_tmp/split" &
kb_expect load-truncated-header-split 2 "truncated kbloom image" \
	load img "$kb_tmp/split"
wait

cp "$kb_tmp/img.kbloom" "$kb_tmp/long"
echo extra >>"$kb_tmp/long"
kb_expect load-too-long 2 "is longer than the kbloom image its header describes" \
	load img "$kb_tmp/long"
kb_unchanged load-too-long-unchanged

# Flip one byte of the bits: the CRC32C catches it.
cp "$kb_tmp/img.kbloom" "$kb_tmp/corrupt"
off=$((88 + 64 * (nblocks / 2) + 5))
byte=$(dd if="$kb_tmp/corrupt" bs=1 skip="$off" count=1 2>/dev/null | od -An -tx1 | tr -d ' ')
if [ "$byte" = ff ]; then
	printf '\001' | dd of="$kb_tmp/corrupt" bs=1 seek="$off" conv=notrunc 2>/dev/null
else
	printf '\377' | dd of="$kb_tmp/corrupt" bs=1 seek="$off" conv=notrunc 2>/dev/null
fi
kb_expect load-corrupt 2 "is a corrupt kbloom image (checksum mismatch); filter 'img' is unchanged" \
	load img "$kb_tmp/corrupt"
kb_unchanged load-corrupt-unchanged

# Version 2 (bytes 4-5 of the header, little-endian).
cp "$kb_tmp/img.kbloom" "$kb_tmp/v2"
printf '\002' | dd of="$kb_tmp/v2" bs=1 seek=4 conv=notrunc 2>/dev/null
kb_expect load-version 2 "kbloom image of version 2, which this module does not read" \
	load img "$kb_tmp/v2"

# Another seed: the geometry check names both sides and the way out.
"$KBLOOMCTL" create -q other --capacity 10000 --fp 0.1% --seed 12
kb_expect load-other-seed 2 "image geometry differs from filter 'other'" \
	load other "$kb_tmp/img.kbloom"
kb_why="$err"
kb_has "seed 0xb" && kb_has "seed 0xc" && kb_has "--seed 0xb"
kb_ok load-other-seed-explains

kb_expect load-missing-file 2 "cannot read /nonexistent: No such file or directory" \
	load img /nonexistent
# The user's path and the reason, never the temporary file beside it.
kb_expect save-bad-dir 2 "cannot write /nonexistent-dir/x.img: no such directory /nonexistent-dir" \
	save img /nonexistent-dir/x.img
kb_why="$err"
! kb_has ".tmp."
kb_ok save-bad-dir-no-temporary
: >"$kb_tmp/afile"
kb_expect save-not-dir 2 "cannot write $kb_tmp/afile/x.img: $kb_tmp/afile is not a directory" \
	save img "$kb_tmp/afile/x.img"

# --- merge and intersect --------------------------------------------------
for f in a b c; do
	"$KBLOOMCTL" create -q "$f" --bits 64Ki --k 4 --seed 99
done
"$KBLOOMCTL" create -q d --bits 64Ki --k 4 --seed 100
kb_keys 1 100 >"$kb_tmp/a-keys"
kb_keys 101 200 >"$kb_tmp/b-keys"
"$KBLOOMCTL" add -q a -f "$kb_tmp/a-keys" common
"$KBLOOMCTL" add -q b -f "$kb_tmp/b-keys" common
"$KBLOOMCTL" add -q c -f "$kb_tmp/a-keys" common

kb_expect merge-before 1 "" check -q a -f "$kb_tmp/b-keys"
kb_expect merge 0 "merged 'b' into 'a'" merge a b
kb_expect merge-has-both 0 "" check -q a -f "$kb_tmp/a-keys" -f "$kb_tmp/b-keys"
kb_expect merge-src-unchanged 1 "" check -q b -f "$kb_tmp/a-keys"

kb_expect intersect 0 "intersected 'b' into 'c'" intersect c b
kb_expect intersect-keeps-common 0 "" check -q c common
# 100 keys of a, with 4 probes each in 64 Ki bits holding ~200 keys: an
# a-only key survives only if b set all of its bits (~1e-5 each).
kb_ctl check c -f "$kb_tmp/a-keys"
kb_why="$out"
[ "$rc" -eq 1 ] && kb_has "0 may be present, 100 definitely absent"
kb_ok intersect-drops-others

kb_expect merge-incompatible 2 "filters 'a' (65536 bits, k 4, seed 0x63) and 'd' (65536 bits, k 4, seed 0x64) are not compatible" \
	merge a d
kb_why="$err"
kb_has "--seed 0x63"
kb_ok merge-incompatible-way-out
kb_expect intersect-incompatible 2 "are not compatible" intersect a img
kb_expect merge-missing 2 "cannot open filter 'nope': no such filter (see: kbloomctl list)" merge a nope
kb_expect merge-missing-dst 2 "cannot open filter 'nope': no such filter" merge nope a

for f in img other restored a b c d; do
	"$KBLOOMCTL" destroy -q "$f"
done

kb_finish
