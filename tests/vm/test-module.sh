#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The module's own life: rmmod is refused while a node is open, unloading
# with filters (open files closed) frees everything, and the parameters
# create a default filter at insmod time.  Leaves the module loaded with
# no parameters, as the harness expects.

suite=module
# shellcheck source=tests/vm/check-lib.sh
. /tests/check-lib.sh
ko=$(ls /*.ko 2>/dev/null | head -n 1)

loaded() {
	[ -d /sys/module/kbloom ]
}

# reload [PARAMS...]: unload if loaded, then insmod with PARAMS.
reload() {
	if loaded; then
		rmmod kbloom || return 1
	fi
	insmod "$ko" "$@"
}

if [ -z "$ko" ] || ! loaded; then
	echo "FAIL: $suite/setup: no module file or module not loaded"
	exit 1
fi

# --- rmmod while nodes are open ------------------------------------------
# refused CASE WHAT: rmmod fails while fd 3 (WHAT) is open; then fd 3 is
# closed, and the module loaded again if rmmod did unload it.
refused() {
	rmmod kbloom 2>/dev/null
	check "$1" "rmmod succeeded with $2 open" loaded
	exec 3<&-
	loaded || insmod "$ko"
}

kbloomctl create -q mod-open --capacity 1000
exec 3</dev/kbloom/mod-open
refused rmmod-refused-filter-open "a filter"
exec 3</dev/kbloom-control
refused rmmod-refused-control-open "the control"
# A destroyed filter still open pins the module too.
kbloomctl create -q mod-dead --capacity 1000 2>/dev/null
exec 3</dev/kbloom/mod-dead
kbloomctl destroy -q mod-dead
refused rmmod-refused-destroyed-open "a destroyed filter"

# --- unloading with filters frees them -----------------------------------
# Filters of every type, with keys.
i=0
for t in $kb_types $kb_types; do
	i=$((i + 1))
	kb_type "$t"
	# Word splitting of $kb_opt is wanted (empty for bits).
	# shellcheck disable=SC2086
	kbloomctl create -q "mod-f$i" --capacity 100000 $kb_opt
	seq 1 1000 | kbloomctl add -q "mod-f$i" -f -
done
check unload-with-filters "rmmod with $i filters failed" rmmod kbloom
check unload-removes-nodes "nodes left after rmmod" \
	[ ! -e /dev/kbloom-control -a ! -e /dev/kbloom/mod-f1 -a \
	  ! -e /sys/class/kbloom ]
insmod "$ko"
check reload-starts-empty "filters survived a reload" \
	[ "$(readf /sys/class/kbloom/total_filters)" = 0 -a \
	  "$(readf /sys/class/kbloom/total_bytes)" = 0 ]

# --- destroy and rmmod while rotations are pending ------------------------
# Windows rotating every 10 ms (the shortest period) on filters whose
# planes take a while to clear, and one rotating on every add while keys
# go in: destroys land while a timer is armed or a rotation runs, then
# rmmod with more of them pending.  Both must wait for or cancel the
# rotations (the kernel log, KASAN and lockdep on the debug kernel, judge
# the rest), and the reload starts empty.
for round in 1 2 3; do
	for i in 1 2 3 4; do
		kbloomctl create -q "rot-$round-$i" --capacity 2M \
			--window 40ms --generations 5 || fail rotate-setup "create"
	done
	kbloomctl create -q "rot-$round-c" --capacity 1000 --generations 5 \
		--rotate-every 1 --window 40ms || fail rotate-setup "create"
	seq 1 3000 | kbloomctl add -q "rot-$round-c" -f - &
	adder=$!
	sleep 0.0$round
	kbloomctl destroy -q "rot-$round-1" "rot-$round-2"
	wait "$adder"
	check "destroy-while-rotating/$round" "rotations stopped on the others" \
		[ "$(sysfs "rot-$round-3" rotations)" -gt 0 ]
	check "rmmod-while-rotating/$round" "rmmod with rotations pending failed" \
		rmmod kbloom
	insmod "$ko"
done
check reload-after-rotations "filters survived a reload" \
	[ "$(readf /sys/class/kbloom/total_filters)" = 0 ]

# --- the default filter ----------------------------------------------------
reload default_capacity=1000000 default_fp=1%
check default-filter-node "no /dev/kbloom/default" [ -c /dev/kbloom/default ]
check default-filter-geometry \
	"capacity $(sysfs default capacity) target $(sysfs default fp_target_ppb)" \
	[ "$(sysfs default capacity)" = 1000000 -a \
	  "$(sysfs default fp_target_ppb)" = 10000000 ]
check default-filter-mode "mode $(stat -c %a /dev/kbloom/default)" \
	[ "$(stat -c %a /dev/kbloom/default)" = 600 ]
seq 1 100 | kbloomctl add -q default -f -
check default-filter-works "keys not found" \
	sh -c 'seq 1 100 | kbloomctl check -q default -f -'

reload default_name=web default_capacity=5000 default_fp=0.05% \
	default_mode=0644
check default-filter-params \
	"name/target/mode: $(ls /dev/kbloom) $(sysfs web fp_target_ppb)" \
	[ -c /dev/kbloom/web -a "$(sysfs web fp_target_ppb)" = 500000 -a \
	  "$(stat -c %a /dev/kbloom/web)" = 644 ]

reload default_capacity=1000 default_fp=250000
check default-fp-ppb "target $(sysfs default fp_target_ppb)" \
	[ "$(sysfs default fp_target_ppb)" = 250000 ]

for bad in abc 0% 100% 1.12345678% 1e-3 "" 1000000000; do
	if reload default_capacity=1000 "default_fp=$bad" 2>/dev/null; then
		fail "default-fp-rejected" "default_fp=$bad was accepted"
		bad_ok=no
	fi
done
[ "${bad_ok:-yes}" = yes ] && pass default-fp-rejected
check default-bad-name "default_name=a/b was accepted" \
	sh -c "! insmod '$ko' default_capacity=1000 default_name=a/b 2>/dev/null"

# Back to a plain load for the harness.
if loaded; then
	rmmod kbloom
fi
insmod "$ko"
check plain-load-no-default "a default filter without default_capacity" \
	[ "$(readf /sys/class/kbloom/total_filters)" = 0 ]
exit $status
