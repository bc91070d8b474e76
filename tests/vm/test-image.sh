#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Images with nothing but the shell's tools: `cat /dev/kbloom/a > img`,
# then `cat img > /dev/kbloom/b` into a filter of the same geometry and
# seed reproduces a bit for bit; dd with odd block sizes reads and writes
# the same bytes; an image of another seed is refused and changes nothing.

suite=image
# shellcheck source=tests/vm/check-lib.sh
. /tests/check-lib.sh
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

for f in ia ib ic id; do
	kbloomctl destroy -f -q "$f"
done

seq 1 20000 | sed 's/^/key-/' >"$tmp/keys"
kbloomctl create -q ia --capacity 50000 --fp 1% --seed 77 || exit 1
kbloomctl create -q ib --capacity 50000 --fp 1% --seed 77 || exit 1
kbloomctl add -q ia -f "$tmp/keys" || exit 1

cat /dev/kbloom/ia >"$tmp/img"
nblocks=$(sysfs ia nblocks)
size=$(wc -c <"$tmp/img")
check cat-size "$size bytes for $nblocks blocks" \
	[ "$size" -eq $((88 + nblocks * 64 + 4)) ]

cat "$tmp/img" >/dev/kbloom/ib
check cat-write "cat into /dev/kbloom/ib failed" [ $? -eq 0 ]
cat /dev/kbloom/ib >"$tmp/img-b"
check cat-bit-exact "image of b differs from a" cmp -s "$tmp/img" "$tmp/img-b"
check cat-same-stats "bits_set/add_calls differ" [ \
	"$(sysfs ia bits_set) $(sysfs ia add_calls)" = \
	"$(sysfs ib bits_set) $(sysfs ib add_calls)" ]
check cat-keys-found "keys missing in b" \
	kbloomctl check -q ib -f "$tmp/keys"

# Short reads of every size give the same bytes; skip reads its way there.
ok=1
for bs in 1 7 88 4096 65536 1000000; do
	dd if=/dev/kbloom/ia bs=$bs 2>/dev/null >"$tmp/dd"
	cmp -s "$tmp/img" "$tmp/dd" || {
		ok=0
		why="dd bs=$bs differs"
	}
done
check dd-read-sizes "$why" [ $ok -eq 1 ]
dd if=/dev/kbloom/ia bs=100 skip=3 2>/dev/null >"$tmp/dd-skip"
tail -c +301 "$tmp/img" >"$tmp/tail"
check dd-skip "dd skip=3 differs from the tail" cmp -s "$tmp/tail" \
	"$tmp/dd-skip"

# Writes of 100 bytes at a time.
kbloomctl create -q ic --capacity 50000 --fp 1% --seed 77 || exit 1
dd if="$tmp/img" of=/dev/kbloom/ic bs=100 2>/dev/null
check dd-write "dd of=/dev/kbloom/ic bs=100 failed" [ $? -eq 0 ]
cat /dev/kbloom/ic >"$tmp/img-c"
check dd-write-bit-exact "image of c differs" cmp -s "$tmp/img" "$tmp/img-c"

# Another seed: refused, and the filter keeps what it had.
kbloomctl create -q id --capacity 50000 --fp 1% --seed 78 || exit 1
kbloomctl add -q id other
cat /dev/kbloom/id >"$tmp/before"
if cat "$tmp/img" >/dev/kbloom/id 2>"$tmp/err"; then
	fail cat-other-seed "an image of another seed was accepted"
else
	cat /dev/kbloom/id >"$tmp/after"
	check cat-other-seed "filter changed by a refused image" \
		cmp -s "$tmp/before" "$tmp/after"
fi

for f in ia ib ic id; do
	kbloomctl destroy -q "$f"
done
exit $status
