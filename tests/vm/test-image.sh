#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Images with nothing but the shell's tools, for every filter type:
# `cat /dev/kbloom/a > img`, then `cat img > /dev/kbloom/b` into a filter
# of the same type, geometry and seed reproduces a bit for bit; dd with odd
# block sizes reads and writes the same bytes; an image of another seed is
# refused and changes nothing.

suite=image
# shellcheck source=tests/vm/check-lib.sh
. /tests/check-lib.sh
tmp=$kb_tmp

seq 1 20000 | sed 's/^/key-/' >"$tmp/keys"
# Word splitting of $kb_opt is wanted (empty for bits).
# shellcheck disable=SC2086
for t in $kb_types; do
	kb_type "$t"
	a=ia-$t b=ib-$t c=ic-$t d=id-$t
	kb_destroy "$a" "$b" "$c" "$d"
	for f in "$a" "$b" "$c"; do
		kbloomctl create -q "$f" --capacity 50000 --fp 1% --seed 77 $kb_opt ||
			exit 1
	done
	kbloomctl create -q "$d" --capacity 50000 --fp 1% --seed 78 $kb_opt || exit 1
	kbloomctl add -q "$a" -f "$tmp/keys" || exit 1

	cat "/dev/kbloom/$a" >"$tmp/img"
	nblocks=$(sysfs "$a" nblocks)
	size=$(wc -c <"$tmp/img")
	check "cat-size/$t" "$size bytes for $nblocks blocks" \
		[ "$size" -eq "$(kb_image_bytes "$nblocks")" ]

	cat "$tmp/img" >"/dev/kbloom/$b"
	check "cat-write/$t" "cat into /dev/kbloom/$b failed" [ $? -eq 0 ]
	cat "/dev/kbloom/$b" >"$tmp/img-b"
	check "cat-bit-exact/$t" "image of $b differs from $a" \
		kb_image_same "$tmp/img" "$tmp/img-b"
	check "cat-same-stats/$t" "bits_set/add_calls differ" [ \
		"$(sysfs "$a" bits_set) $(sysfs "$a" add_calls)" = \
		"$(sysfs "$b" bits_set) $(sysfs "$b" add_calls)" ]
	check "cat-keys-found/$t" "keys missing in $b" \
		kbloomctl check -q "$b" -f "$tmp/keys"

	# Short reads of every size give the same bytes; skip reads its way
	# there.
	why=
	for bs in 1 7 88 4096 65536 1000000; do
		dd if="/dev/kbloom/$a" bs=$bs 2>/dev/null >"$tmp/dd"
		kb_image_same "$tmp/img" "$tmp/dd" || why="$why dd bs=$bs differs"
	done
	check "dd-read-sizes/$t" "$why" [ -z "$why" ]
	# Past the window part's time, so only the CRC may differ.
	dd if="/dev/kbloom/$a" bs=100 skip=3 2>/dev/null >"$tmp/dd-skip"
	tail -c +301 "$tmp/img" >"$tmp/tail"
	n=$(($(wc -c <"$tmp/tail") - 4))
	head -c "$n" "$tmp/tail" >"$tmp/tail-cells"
	head -c "$n" "$tmp/dd-skip" >"$tmp/dd-skip-cells"
	check "dd-skip/$t" "dd skip=3 differs from the tail" \
		cmp -s "$tmp/tail-cells" "$tmp/dd-skip-cells"

	# Writes of 100 bytes at a time.
	dd if="$tmp/img" of="/dev/kbloom/$c" bs=100 2>/dev/null
	check "dd-write/$t" "dd of=/dev/kbloom/$c bs=100 failed" [ $? -eq 0 ]
	cat "/dev/kbloom/$c" >"$tmp/img-c"
	check "dd-write-bit-exact/$t" "image of $c differs" \
		kb_image_same "$tmp/img" "$tmp/img-c"

	# Another seed: refused, and the filter keeps what it had.
	kbloomctl add -q "$d" other
	cat "/dev/kbloom/$d" >"$tmp/before"
	if cat "$tmp/img" >"/dev/kbloom/$d" 2>"$tmp/err"; then
		fail "cat-other-seed/$t" "an image of another seed was accepted"
	else
		cat "/dev/kbloom/$d" >"$tmp/after"
		check "cat-other-seed/$t" "filter changed by a refused image" \
			kb_image_same "$tmp/before" "$tmp/after"
	fi
	kbloomctl destroy -q "$a" "$b" "$c" "$d"
done
exit "$status"
