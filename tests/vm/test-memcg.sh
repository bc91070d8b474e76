#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Filter memory is charged to the memory cgroup of the process that
# created the filter, whatever its size: the cells are vmalloc'ed with
# __GFP_ACCOUNT so that they can be mapped, and a cgroup's memory.max must
# still bound what its processes make the kernel hold.  Destroy gives the
# charge back once nothing holds the filter.

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

rmdir "$grp"
exit "$status"
