#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kbloom's in-kernel API (include/linux/kbloom_api.h), used by the
# companion module tests/kmod/kbloom_kapi_test.ko (its top comment lists
# its commands) on filters that kbloomctl made and filled, for each filter
# type: a million checks of the keys kbloomctl added find all of them;
# checks of a million others hit at the exact rate of the cells and answer
# key by key as kbloomctl check does; batches answer as single calls do;
# checks run in every context the companion has; adds run where the
# header allows them on this kernel and get EDEADLK, changing nothing,
# where it does not (the companion says which: expect=, from
# CONFIG_PREEMPT_RT); every errno the header names; a destroyed filter's
# references get ENODEV and its memory goes at the last put, from every
# context (NMI's puts defer the freeing); gets,
# checks, adds and puts race create and destroy from a timer and an
# irq_work.  Last, a reference is counted in kbloom's refcnt and rmmod is
# refused (EAGAIN) until the companion is gone, then works.  Scalable
# filters: in-kernel adds to a full one get EAGAIN and a worker grows it,
# past a cap E2BIG until it is raised; batches of adds are refused.
#
# Usage: test-kapi.sh [KEYS [CTX_KEYS]]: KEYS present and as many absent
# keys in the big checks (1000000), CTX_KEYS in each other context (KEYS,
# at most 100000 unless given).  What a context adds is whether the call
# is allowed and safe there, which 100,000 keys show as well as a
# million: the same core code checks them, and the million each in
# process context and among the absent keys stay.  A million per context
# took 0.54 to 0.99 s each, 14 contexts and batch kinds per type, on
# 6.12 under TCG (2 vCPUs, AMD EPYC host, make check at ec60a47,
# 2026-12-03): a third of the test's 81 s.

suite=kapi
# shellcheck source=tests/vm/check-lib.sh
. /tests/check-lib.sh

n=${1:-1000000}
ctx_keys=${2:-$((n < 100000 ? n : 100000))}
# scripts/vm-initramfs puts it here: not at /, where test-module.sh takes
# the first /*.ko for kbloom's.
ko=${KBLOOM_KAPI_KO:-/kmod/kbloom_kapi_test.ko}
kbloom_ko=${KBLOOM_VM_MODULE:-/kbloom.ko}
params=/sys/module/kbloom_kapi_test/parameters
class=/sys/class/kbloom
EDEADLK=35
ENODEV=19
EINVAL=22
ENOENT=2
# Every context of the companion; nmi joins them below when an NMI the
# companion sends its CPU arrives (the nmi command says).
contexts="process rcu spinlock bh softirq preempt rawlock irqoff hardirq"

if [ ! -f "$ko" ]; then
	echo "SKIP: $suite: no $ko in the VM: make module builds" \
		"tests/kmod/kbloom_kapi_test.ko beside kbloom.ko"
	exit 0
fi
if [ ! -d /sys/module/kbloom ]; then
	fail setup "kbloom is not loaded"
	exit 1
fi
tmp=$(mktemp -d) || exit 2
# Whatever happens, the companion goes, so that the harness can unload kbloom.
trap 'if [ -d "$params" ]; then
		echo release >"$params/cmd"
		rmmod kbloom_kapi_test
	fi
	rm -rf "$tmp"' EXIT

# The shell's read, not cat, for the files read most: no program to
# start, which is most of this test's time on the debug kernel under TCG.
refcnt() {
	readf /sys/module/kbloom/refcnt
}

total_bytes() {
	readf "$class/total_bytes"
}

# kapi CMD...: one command to the companion; $res is its answer (a line).
kapi() {
	echo "$*" >"$params/cmd" 2>/dev/null
	read -r res <"$params/result"
}

# COND; verdict $? CASE WHY: PASS when COND succeeded.  $? comes first, so
# that no command substitution in WHY can change it.
verdict() {
	if [ "$1" -eq 0 ]; then
		pass "$2"
	else
		fail "$2" "$3"
	fi
}

# field NAME: the value of NAME= in $res (the last, if it says it twice).
# Expansions, not sed: no program to start.
field() {
	field_r=" $res "
	case $field_r in
	*" $1="*)
		field_r=${field_r##*" $1="}
		echo "${field_r%% *}"
		;;
	esac
}

# has NAME=VALUE...: $res says each of them.
has() {
	for pair in "$@"; do
		case " $res " in
		*" $pair "*) ;;
		*) return 1 ;;
		esac
	done
}

# bytes_back TARGET: total_bytes returns to TARGET within 10 s (a last put
# outside process context leaves the freeing to a work item).
bytes_back() {
	tries=0
	while [ "$(total_bytes)" -ne "$1" ]; do
		tries=$((tries + 1))
		[ "$tries" -gt 100 ] && return 1
		sleep 0.1
	done
}

# The keys the companion makes of numbers are the numbers' digits, so
# the key files are kb_numbers's.  Cut once: the present, the absent, and
# those the adds below take, $step from $first_add on for each context of
# each kind of add.
step=10000
first_add=$((2 * n + 1))
# shellcheck disable=SC2086 # counting words
set -- $contexts nmi
kb_numbers 1 "$n" >"$tmp/present"
kb_numbers $((n + 1)) "$n" >"$tmp/absent"
kb_numbers "$first_add" $((2 * $# * step)) >"$tmp/addable"

# added FIRST: the $step keys from FIRST on, of $tmp/addable.
added() {
	tail -n "+$(($1 - first_add + 1))" "$tmp/addable" | head -n "$step"
}

r0=$(refcnt)
if ! out=$(insmod "$ko" 2>&1); then
	fail load "insmod $ko: $out"
	exit 1
fi
check load-uses-kbloom "kbloom refcnt $r0 -> $(refcnt), wanted +1" \
	[ "$(refcnt)" -eq $((r0 + 1)) ]
kapi nmi
nmi=$(field nmi)
[ "$nmi" = yes ] && contexts="$contexts nmi"

# --- errors that need no filter ----------------------------------------------
kapi null
check null-filter "$res" has check=-$EINVAL add=-$EINVAL \
	check_keys=-$EINVAL add_keys=-$EINVAL mixed_check=-$EINVAL \
	mixed_add=-$EINVAL
for bad in a/b 'a*b' . .. 0123456789012345678901234567890123; do
	kapi hold "$bad"
	has ret=-$EINVAL refs=0 || break
done
check get-bad-name "name '$bad': $res" has ret=-$EINVAL refs=0
kapi hold kapi-nosuch
check get-unknown-name "$res" has ret=-$ENOENT refs=0
kapi hold-id 4294967295
check get-unknown-id "$res" has ret=-$ENOENT refs=0
! echo check process 1 1 >"$params/cmd" 2>/dev/null
verdict $? cmd-needs-reference "a check without a reference was taken"
read -r res <"$params/result"
check cmd-says-why "$res" has "error=check" "needs"

# For each filter type of kbloomctl-lib.sh's table (through check-lib.sh).
# shellcheck disable=SC2154
for type in $kb_types; do
	fname=kapi-$type
	kb_type "$type"
	flag=$kb_opt
	kbloomctl destroy -f -q "$fname" "$fname-e" "$fname-d" "$fname-c" \
		2>/dev/null
	kbloomctl create -q "$fname" --capacity "$(kb_capacity "$n")" --fp 1% \
		$flag
	kbloomctl add -q "$fname" -f "$tmp/present"

	kapi hold "$fname"
	check "$type/get" "$res, sysfs id $(sysfs "$fname" id)" \
		has ret=0 "id=$(sysfs "$fname" id)" refs=1

	# --- the keys kbloomctl added: no false negatives, anywhere --------
	calls=$(sysfs "$fname" check_calls)
	kapi check process 1 "$n"
	check "$type/present-process" "$res" \
		has "keys=$n" "yes=$n" no=0 errors=0 ctx=ok
	echo "kapi: $type: $n checks in process context: $(field ns) ns"
	calls=$(($(sysfs "$fname" check_calls) - calls))
	check "$type/present-counted" "check_calls moved by $calls for $n" \
		[ "$calls" -eq "$n" ]
	for ctx in $contexts; do
		[ "$ctx" = process ] && continue
		kapi check "$ctx" 1 "$ctx_keys"
		check "$type/present-$ctx" "$res" \
			has "keys=$ctx_keys" "yes=$ctx_keys" no=0 errors=0 ctx=ok \
			expect=ok as=yes
		echo "kapi: $type: $ctx_keys checks in $ctx context: $(field ns) ns"
	done
	for ctx in process softirq rawlock hardirq; do
		kapi check-keys "$ctx" 1 "$ctx_keys"
		check "$type/present-batch-$ctx" "$res" \
			has "keys=$ctx_keys" "yes=$ctx_keys" no=0 errors=0 \
			badret=0 ctx=ok
		echo "kapi: $type: $ctx_keys checks in batches of 4096 in $ctx" \
			"context: $(field ns) ns"
	done

	# --- prefix TAG: key i of a range is TAG-i, the keys of the fuzzer and
	# the torture (tests/vm/stress.h's st_keys_fill()); alone, back to i.
	seq 1 1000 | sed 's/^/kp-/' | kbloomctl add -q "$fname"
	kapi prefix kp
	check "$type/prefix" "$res" has ret=0 prefix=kp
	kapi check-keys process 1 1000
	check "$type/prefix-keys-found" "$res" \
		has keys=1000 yes=1000 no=0 errors=0 badret=0 ctx=ok
	# Another tag's keys were never added: not found (a prefix ignored
	# would find the digits 1..1000, which kbloomctl added above).
	kapi prefix kq
	kapi check-keys process 1 1000
	check "$type/prefix-other-absent" "$res" [ "$(field yes)" -lt 500 ]
	kapi prefix
	check "$type/prefix-back" "$res" has ret=0 prefix=
	kapi check process 1 1
	check "$type/prefix-back-digits" "$res" has keys=1 yes=1 sum=1

	# --- a million absent keys: the exact model's rate, kbloomctl's answers
	kapi check process $((n + 1)) "$n"
	maybe=$(field yes)
	sum=$(field sum)
	theory=$(sysfs "$fname" fp_now_ppb)
	check "$type/absent-errors" "$res" has "keys=$n" errors=0 ctx=ok
	check "$type/absent-rate" "$maybe of $n may be present, exact $theory ppb" \
		kb_near_theory "$maybe" "$n" "$theory"
	echo "kapi: $type: $maybe false positives in $n absent keys, exact" \
		"model $theory ppb"
	kbloomctl check -m "$fname" -f "$tmp/absent" >"$tmp/maybe"
	kc=$(wc -l <"$tmp/maybe")
	ks=$(awk '{ s += $1 } END { printf "%.0f\n", s }' "$tmp/maybe")
	[ "$kc" -eq "$maybe" ] && [ "$ks" = "$sum" ]
	verdict $? "$type/absent-as-kbloomctl" \
		"module: $maybe keys, sum $sum; kbloomctl: $kc keys, sum $ks"
	# Batches of every size answer as the single checks did.
	for batch in 4096 65536 1000 1; do
		q=$n
		want="yes=$maybe sum=$sum"
		if [ "$batch" -lt 4096 ]; then
			q=50000
			kapi check process $((n + 1)) "$q"
			want="yes=$(field yes) sum=$(field sum)"
		fi
		kapi check-keys process $((n + 1)) "$q" "$batch"
		# shellcheck disable=SC2086
		check "$type/absent-batch-$batch" "$res, wanted $want" \
			has "keys=$q" $want errors=0 badret=0 ctx=ok
	done

	# --- adds: where the header allows them on this kernel, kbloomctl then
	# finds them (all at once, after the last); elsewhere EDEADLK for every
	# key and nothing changes.  The companion says which it expects
	# (expect=) from CONFIG_PREEMPT_RT.
	next=$first_add
	: >"$tmp/added"
	for op in add add-keys; do
		for ctx in $contexts; do
			kapi check process "$next" "$step"
			before="yes=$(field yes) sum=$(field sum)"
			calls=$(sysfs "$fname" add_calls)
			new=$(sysfs "$fname" add_new)
			bits=$(sysfs "$fname" bits_set)
			kapi "$op" "$ctx" "$next" "$step"
			expect=$(field expect)
			echo "kapi: $type: $op in $ctx context, rt=$(field rt):" \
				"expected $expect"
			if [ "$expect" = ok ]; then
				check "$type/$op-$ctx" "$res" has "keys=$step" \
					errors=0 missing=0 badret=0 ctx=ok as=yes
				calls=$(($(sysfs "$fname" add_calls) - calls))
				new=$(($(sysfs "$fname" add_new) - new))
				added "$next" >>"$tmp/added"
				[ "$calls" -eq "$step" ] &&
					[ "$new" -eq "$(field yes)" ]
				verdict $? "$type/$op-$ctx-counted" \
					"add_calls +$calls add_new +$new for $res"
			elif [ "$expect" = edeadlk ]; then
				check "$type/$op-$ctx-edeadlk" "$res" \
					has "keys=$step" yes=0 no=0 "errors=$step" \
					"err=-$EDEADLK" ctx=ok as=yes
				kapi check process "$next" "$step"
				# shellcheck disable=SC2086
				has $before &&
					[ "$(sysfs "$fname" add_calls)" -eq "$calls" ] &&
					[ "$(sysfs "$fname" bits_set)" -eq "$bits" ]
				verdict $? "$type/$op-$ctx-unchanged" \
					"$res (before: $before), add_calls $calls -> $(sysfs "$fname" add_calls), bits_set $bits -> $(sysfs "$fname" bits_set)"
			else
				fail "$type/$op-$ctx" "no expect= in '$res'"
			fi
			next=$((next + step))
		done
	done
	if [ -s "$tmp/added" ] && kbloomctl check -q "$fname" -f "$tmp/added"
	then
		pass "$type/adds-seen"
	else
		fail "$type/adds-seen" "kbloomctl check of the" \
			"$(wc -l <"$tmp/added") keys the adds added:" \
			"$(kbloomctl check "$fname" -f "$tmp/added" 2>&1 | tail -n 1)"
	fi
	[ "$nmi" = yes ] ||
		echo "SKIP: $suite: $type/add-nmi: no NMI the companion sends" \
			"its CPU arrives here"
	kapi put
	check "$type/put" "$res" has ret=0 refs=0

	# --- keys of 0 and of more than KBLOOM_KEY_MAX bytes: EINVAL, nothing done
	e=$fname-e
	kbloomctl create -q "$e" --capacity 1000 $flag
	kapi hold "$e"
	for len in 0 4097; do
		kapi badkey "$len"
		check "$type/key-length-$len" "$res" has check=-$EINVAL \
			add=-$EINVAL check_keys=-$EINVAL add_keys=-$EINVAL \
			mixed_check=-$EINVAL mixed_add=-$EINVAL
	done
	check "$type/bad-keys-did-nothing" \
		"add_calls $(sysfs "$e" add_calls) check_calls $(sysfs "$e" check_calls) bits_set $(sysfs "$e" bits_set)" \
		[ "$(sysfs "$e" add_calls) $(sysfs "$e" check_calls) $(sysfs "$e" bits_set)" = "0 0 0" ]
	# KBLOOM_KEY_MAX itself is a key: absent, added (a new bit), found,
	# added again (nothing new); with the good key, one found, one new.
	kapi badkey 4096
	check "$type/key-length-4096" "$res" has check=0 add=1 check_keys=1 \
		add_keys=0 mixed_check=1 mixed_add=1
	kapi put
	kbloomctl destroy -q "$e"

	# --- destroy while held: ENODEV, memory kept until the last put ------
	# What a destroy does to a held reference, once; then its last put
	# from each context, which frees the memory (deferred to a work item
	# where freeing is not allowed).
	d=$fname-d
	bytes0=$(total_bytes)
	filters0=$(readf "$class/total_filters")
	kbloomctl create -q "$d" --capacity 100000 $flag
	added "$first_add" | kbloomctl add -q "$d"
	kapi hold "$d"
	id=$(field id)
	bytes1=$(total_bytes)
	kbloomctl destroy -q "$d"
	[ "$bytes1" -gt "$bytes0" ] &&
		[ "$(total_bytes)" -eq "$bytes1" ] &&
		[ "$(readf "$class/total_filters")" -eq "$filters0" ]
	verdict $? "$type/destroyed-memory-kept" \
		"total_bytes $bytes0 -> $bytes1 -> $(total_bytes), total_filters $filters0 -> $(readf "$class/total_filters")"
	# The name and the id are free again at once.
	kapi hold-id "$id"
	check "$type/destroyed-id-free" "$res" has ret=-$ENOENT
	kbloomctl create -q "$d" --capacity 1000 $flag
	kapi hold "$d"
	has ret=0 refs=2 && [ "$(field id)" != "$id" ]
	verdict $? "$type/destroyed-name-free" "$res, old id $id"
	kapi put
	kbloomctl destroy -q "$d"
	for op in check add check-keys add-keys; do
		kapi "$op" process "$next" 100
		check "$type/destroyed-$op-enodev" "$res" \
			has keys=100 yes=0 errors=100 "err=-$ENODEV"
	done
	kapi id
	check "$type/destroyed-id" "$res" has ret=0 "id=$id"
	# The reference above goes in process context, the first; each other
	# context's filter is made, held and destroyed in turn.
	for how in $contexts; do
		if [ "$how" != process ]; then
			kbloomctl create -q "$d" --capacity 100000 $flag
			kapi hold "$d"
			kbloomctl destroy -q "$d"
			kapi check process 1 1
			check "$type/destroyed-$how-enodev" "$res" \
				has errors=1 "err=-$ENODEV"
		fi
		case $how in
		process) kapi put ;;
		softirq | hardirq) kapi "put-$how" ;;
		*) kapi put-in "$how" ;;
		esac
		check "$type/destroyed-$how-last-put" "$res" has ret=0 refs=0 ctx=ok
		check "$type/destroyed-$how-memory-freed" \
			"total_bytes $(total_bytes), wanted $bytes0 again" \
			bytes_back "$bytes0"
	done
	[ "$nmi" = yes ] ||
		echo "SKIP: $suite: $type/destroyed-nmi-last-put: no NMI the" \
			"companion sends its CPU arrives here"

	# --- gets, checks, adds and puts from a timer and an irq_work while
	# userspace creates and destroys the filter (the puts may be the last).
	c=$fname-c
	bytes0=$(total_bytes)
	kapi churn-start "$c"
	i=0
	while [ "$i" -lt 20 ]; do
		kbloomctl create -q "$c" --capacity 10000 $flag
		sleep 0.1
		kbloomctl destroy -q "$c"
		i=$((i + 1))
	done
	kapi churn-stop
	echo "kapi: $type: churn: $res"
	has bad=0 ctx=ok &&
		[ "$(field got)" -gt 0 ] && [ "$(field worked)" -gt 0 ] &&
		[ "$(field enoent)" -gt 0 ] && [ "$(field hgot)" -gt 0 ] &&
		[ "$(field edeadlk)" -gt 0 ]
	verdict $? "$type/churn" "$res"
	check "$type/churn-memory-freed" \
		"total_bytes $(total_bytes), wanted $bytes0 again" \
		bytes_back "$bytes0"
done

# --- scalable filters --------------------------------------------------------
# An in-kernel add never allocates: a new key that finds the newest
# sub-filter full gets EAGAIN, changes nothing, and a worker grows the
# filter for the adds after it; once a growth failed at a cap they get
# E2BIG, until the cap is raised and the worker they ask for succeeds.
# Checks, single and batched, find every key an add took; batches of
# adds are refused (EOPNOTSUPP), as the header says.
EAGAIN=11
E2BIG=7
EOPNOTSUPP=95
caps=/sys/module/kbloom/parameters

# kapi_until WHAT CMD...: CMD again, 0.1 s apart, until $res has WHAT (at
# most 100 times): the worker runs soon, not at once.
kapi_until() {
	until_what=$1
	shift
	tries=0
	while :; do
		kapi "$@"
		has "$until_what" && return 0
		tries=$((tries + 1))
		[ "$tries" -ge 100 ] && return 1
		sleep 0.1
	done
}

# grow_runs FILTER CMD...: the growths of FILTER that failed while CMD...
# ran (its sysfs grow_failures) into $runs, and the whole seconds it took
# (one more) into $secs.
grow_runs() {
	grow_f=$1
	shift
	before=$(sysfs "$grow_f" grow_failures)
	secs=$(date +%s)
	"$@"
	secs=$(($(date +%s) - secs + 1))
	runs=$(($(sysfs "$grow_f" grow_failures) - before))
}

# kapi_adds_for_a_second START: ten rounds of 5,000 in-kernel adds of new
# keys from START on, 0.1 s apart.
kapi_adds_for_a_second() {
	round=0
	while [ "$round" -lt 10 ]; do
		kapi add process $(($1 + round * 5000)) 5000
		round=$((round + 1))
		sleep 0.1
	done
}

for type in bits counting; do
	kb_type "$type"
	s=kapi-$type-s
	kbloomctl destroy -f -q "$s" 2>/dev/null
	kbloomctl create -q "$s" --capacity 1000 --fp 1% --expansion 2 $kb_opt
	kapi hold "$s"
	kapi add softirq 1 3000
	has keys=3000 err=-$EAGAIN missing=0 ctx=ok &&
		[ "$(field errors)" -gt 0 ] &&
		[ $(($(field yes) + $(field no) + $(field errors))) -eq 3000 ]
	verdict $? "$type/scalable-full-eagain" "$res"
	kapi_until errors=0 add softirq 1 3000
	verdict $? "$type/scalable-grown-by-worker" "$res"
	check "$type/scalable-grown-subfilters" \
		"$(sysfs "$s" subfilters) sub-filters" \
		[ "$(sysfs "$s" subfilters)" -ge 2 ]
	kapi check process 1 3000
	check "$type/scalable-check" "$res" has yes=3000 errors=0
	kapi check-keys softirq 1 3000
	check "$type/scalable-check-keys" "$res" has yes=3000 errors=0 badret=0
	kapi add-keys process 1 10
	check "$type/scalable-add-keys-refused" "$res" \
		has errors=10 err=-$EOPNOTSUPP

	saved=$(readf "$caps/max_filter_bytes")
	subs=$(sysfs "$s" subfilters)
	echo "$(sysfs "$s" bytes)" >"$caps/max_filter_bytes"
	kapi_until err=-$E2BIG add process 100001 5000
	verdict $? "$type/scalable-cap-e2big" "$res"
	[ "$(sysfs "$s" saturated)" -eq 1 ] &&
		[ "$(sysfs "$s" subfilters)" -eq "$subs" ]
	verdict $? "$type/scalable-cap-saturated" \
		"saturated $(sysfs "$s" saturated), $(sysfs "$s" subfilters) sub-filters, $subs before"
	# 50,000 adds at the cap ask for few growths: each failure doubles
	# the wait before the next (10 ms to 1 s): at least one, at most 8 in
	# the first second and one a second after, where each add asked for
	# one.
	grow_runs "$s" kapi_adds_for_a_second 200001
	echo "  $suite/$type/scalable-cap-backoff: $runs growths tried in $secs s of adds at the cap"
	[ "$runs" -ge 1 ] && [ "$runs" -le $((8 + secs)) ]
	verdict $? "$type/scalable-cap-backoff" \
		"$runs growths tried in $secs s of adds at the cap"
	echo "$saved" >"$caps/max_filter_bytes"
	kapi_until errors=0 add process 100001 5000
	verdict $? "$type/scalable-cap-raised" "$res"
	kapi check process 1 3000
	check "$type/scalable-check-after" "$res" has yes=3000 errors=0
	kapi put
	kbloomctl destroy -q "$s"
done

# At the schedule's end (capacity 1, expansion 1: 1,024 sub-filters of one
# key, grown by the ADD ioctl) no growth can succeed: in-kernel adds get
# E2BIG and the worker is not asked at all.  What the worker does is the
# same for both types; a counting filter's 1,023 growths would each wait
# a grace period, so this runs on bits.
s=kapi-end
kbloomctl destroy -f -q "$s" 2>/dev/null
kbloomctl create -q "$s" --capacity 1 --fp 1% --expansion 1
seq 1 1100 | kbloomctl add -q "$s" 2>/dev/null
check end/scalable-schedule-end "$(sysfs "$s" subfilters) sub-filters" \
	[ "$(sysfs "$s" subfilters)" -eq 1024 ]
kapi hold "$s"
grow_runs "$s" kapi_adds_for_a_second 300001
echo "  $suite/end/scalable-end-no-growth: $runs growths tried in $secs s of adds at the schedule's end"
check end/scalable-end-no-growth \
	"$runs growths tried at the schedule's end ($res)" [ "$runs" -eq 0 ]
check end/scalable-end-e2big "$res" has err=-$E2BIG
kapi put
kbloomctl destroy -q "$s"

# --- references pin kbloom ---------------------------------------------------
# Two references to the first type's filter.
# shellcheck disable=SC2086
set -- $kb_types
kapi hold "kapi-$1"
kapi hold-id "$(sysfs "kapi-$1" id)"
check refcnt-counts-references "kbloom refcnt $(refcnt) with 2 held, wanted $((r0 + 3))" \
	[ "$(refcnt)" -eq $((r0 + 3)) ]
out=$(rmmod kbloom 2>&1)
rc=$?
[ "$rc" -ne 0 ] && [ -d /sys/module/kbloom ] &&
	echo "$out" | grep -q 'Resource temporarily unavailable'
verdict $? rmmod-refused "rmmod exit $rc: $out"
# The filter may even go while its references keep the module.
for type in $kb_types; do
	kbloomctl destroy -q "kapi-$type"
done
kapi put
kapi put
check refcnt-after-puts "kbloom refcnt $(refcnt), wanted $((r0 + 1))" \
	[ "$(refcnt)" -eq $((r0 + 1)) ]
out=$(rmmod kbloom_kapi_test 2>&1)
check rmmod-companion "$out" [ ! -d /sys/module/kbloom_kapi_test ]
check refcnt-after-companion "kbloom refcnt $(refcnt), wanted $r0" \
	[ "$(refcnt)" -eq "$r0" ]
out=$(rmmod kbloom 2>&1)
check rmmod-kbloom-after "$out" [ ! -d /sys/module/kbloom ]
# Loaded again, as the harness expects.
insmod "$kbloom_ko"
check reload "insmod $kbloom_ko failed" [ -d /sys/module/kbloom ]
exit "$status"
