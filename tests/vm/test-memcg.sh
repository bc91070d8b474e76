#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Filter memory is charged to the memory cgroup of the process that
# created the filter, whatever its size: the cells are vmalloc'ed with
# __GFP_ACCOUNT so that they can be mapped, and a cgroup's memory.max must
# still bound what its processes make the kernel hold.  Destroy gives the
# charge back once nothing holds the filter.  What the module counts
# against its caps (held_bytes) is what the group is charged.

suite=memcg
# shellcheck source=tests/vm/check-lib.sh
. /tests/check-lib.sh

cg=/sys/fs/cgroup
if ! grep -q ' cgroup2 ' /proc/mounts; then
	mkdir -p "$cg" && mount -t cgroup2 none "$cg" 2>/dev/null
fi
if ! grep -qw memory "$cg/cgroup.controllers" 2>/dev/null; then
	echo "SKIP: $suite/charged: no cgroup2 memory controller in this kernel"
	exit 0
fi
echo +memory >"$cg/cgroup.subtree_control" 2>/dev/null
grp=$cg/kbloom-memcg-test
rmdir "$grp" 2>/dev/null
mkdir "$grp" || exit 2

# current: the group's charge in bytes.
current() {
	cat "$grp/memory.current"
}

# in_group CMD...: runs CMD as a member of the group.
in_group() {
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$grp" "$@"
}

# within VALUE TARGET SLACK: |VALUE - TARGET| < SLACK.
within() {
	[ "$1" -gt $(($2 - $3)) ] && [ "$1" -lt $(($2 + $3)) ]
}

# 64 MiB filters: far above anything else the commands charge, so the
# deltas are the filters'.
bytes=$((64 << 20))
for type in $kb_types; do
	kb_type "$type"
	kb_destroy "cg-$type"
	before=$(current)
	# Word splitting of $kb_opt is wanted (empty for bits).
	# shellcheck disable=SC2086
	in_group kbloomctl create -q "cg-$type" --bits $((bytes * 8)) $kb_opt ||
		fail "create/$type" "create in the group failed"
	after=$(current)
	delta=$((after - before))
	# Within 2 MiB: the group's other pages (kbloomctl's own, freed at
	# its exit) move memory.current by a few hundred KiB either way.
	check "charged/$type" "group grew by $delta bytes for a $bytes-byte filter" \
		within "$delta" "$bytes" $((2 << 20))

	kbloomctl destroy -q "cg-$type"
	gone=$(current)
	check "uncharged/$type" "destroy left $((gone - before)) bytes charged" \
		within $((gone - before)) 0 $((2 << 20))
done

# held NAME: what the filter holds by its own count (sysfs held_bytes).
held() {
	cat "/sys/class/kbloom/$1/held_bytes"
}

# A scalable filter of capacity 1, expansion 1, grown by adds from the
# group to as many sub-filters as its schedule has: each sub-filter's
# cells are one block, so nearly all it holds is the rest (its structs,
# write locks, per-CPU counts, the cells' page), which the caps and
# total_bytes must count as the group is charged for it.  Within 1 MiB
# and an eighth: the module once counted 64 bytes a sub-filter, about a
# hundredth of it.
for type in bits counting; do
	opt=
	[ "$type" = counting ] && opt=--counting
	fname=cg-grow-$type
	kbloomctl destroy -q "$fname" 2>/dev/null
	before=$(current)
	total0=$(cat /sys/class/kbloom/total_bytes)
	# shellcheck disable=SC2086
	in_group kbloomctl create -q "$fname" --capacity 1 --fp 1% \
		--expansion 1 $opt ||
		fail "grow-create/$type" "create in the group failed"
	# Past the schedule's end the add fails: the keys before it stay.
	seq 1 2000 | in_group kbloomctl add -q "$fname" 2>/dev/null
	subs=$(cat "/sys/class/kbloom/$fname/subfilters")
	after=$(current)
	delta=$((after - before))
	held=$(held "$fname")
	total=$(($(cat /sys/class/kbloom/total_bytes) - total0))
	check "grown/$type" "$subs sub-filters" [ "$subs" -ge 500 ]
	check "grow-total/$type" "total_bytes grew $total, the filter holds $held" \
		[ "$total" -eq "$held" ]
	check "grow-charged/$type" "group grew by $delta bytes for $subs sub-filters holding $held by the module's count" \
		within "$delta" "$held" $(((1 << 20) + held / 8))
	echo "  $suite/grow/$type: $subs sub-filters hold $held bytes by the module's count; the group was charged $delta"
	kbloomctl destroy -q "$fname"
	gone=$(current)
	check "grow-uncharged/$type" "destroy left $((gone - before)) bytes charged" \
		within $((gone - before)) 0 $(((1 << 20) + held / 8))
done

rmdir "$grp"
exit "$status"
