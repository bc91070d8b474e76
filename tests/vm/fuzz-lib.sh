#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Shell helpers for the fuzzing and torture runs inside the VM, sourced by
# test-fuzz-bounded.sh and fuzz-full.sh (scripts/vm-initramfs puts every
# tests/vm/*.sh in /tests).  Each check prints one PASS:/FAIL: line.

# The verdict of the sourcing script, set by every failure.
# shellcheck disable=SC2034
fz_status=0

fz_pass() {
	echo "PASS: $1"
}

fz_fail() {
	echo "FAIL: $1: $2"
	fz_status=1
}

# fz_verdict NAME RC START: the log of program NAME, which prints its own
# PASS:/FAIL: lines; a non-zero exit RC without a FAIL: line of its own
# still counts as a failure.
fz_verdict() {
	cat "/tmp/fz-$1.log"
	echo "$1: exit $2 after $(($(date +%s) - $3)) s"
	if [ "$2" -ne 0 ]; then
		fz_status=1
		grep -q '^FAIL: ' "/tmp/fz-$1.log" || fz_fail "$1" "exit $2"
	fi
}

# fz_run NAME PROGRAM [ARGS...]: runs it, then its verdict.
fz_run() {
	name=$1
	shift
	start=$(date +%s)
	"$@" >"/tmp/fz-$name.log" 2>&1
	fz_verdict "$name" $? "$start"
}

# fz_fuzz NAME WAIT_S [ARGS...]: fuzz-ioctl ARGS, during which rmmod must
# be refused (NAME/rmmod-refused) once it holds the module, within
# WAIT_S s; then its verdict.
fz_fuzz() {
	name=$1
	wait_s=$2
	shift 2
	start=$(date +%s)
	fuzz-ioctl "$@" >"/tmp/fz-$name.log" 2>&1 &
	pid=$!
	if fz_wait_open "$pid" "$wait_s"; then
		fz_try_unload "$name"
	else
		fz_fail "$name/rmmod-refused" "the fuzzer never held the module"
	fi
	wait "$pid"
	fz_verdict "$name" $? "$start"
}

fz_module_refs() {
	sed -n 's/^kbloom [0-9]* \([0-9]*\) .*/\1/p' /proc/modules
}

# rmmod must be refused while files of kbloom are open (the fuzzer's, and
# one held here so that the fuzzer finishing first cannot make the attempt
# meaningless), and the module must still be there afterwards.
fz_try_unload() {
	name=$1
	exec 3</dev/kbloom-control
	refs=$(fz_module_refs)
	if out=$(rmmod kbloom 2>&1); then
		exec 3<&-
		fz_fail "$name/rmmod-refused" "rmmod succeeded with $refs references"
		return
	fi
	exec 3<&-
	if ! grep -q '^kbloom ' /proc/modules; then
		fz_fail "$name/rmmod-refused" "module gone after a failed rmmod"
		return
	fi
	fz_pass "$name/rmmod-refused ($refs references: $out)"
}

# Waits (up to $2 s) until pid $1 has kbloom files open.
fz_wait_open() {
	i=0
	while [ "$i" -lt "$2" ]; do
		refs=$(fz_module_refs)
		[ "${refs:-0}" -gt 0 ] && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 1
		i=$((i + 1))
	done
	return 1
}

# fuzz-ioctl and torture load the in-kernel API's companion module for
# their run and unload it at its end.  One left loaded (a run killed, an
# rmmod refused) fails here, and goes, so that the next test that loads it
# fails for its own reasons only.
fz_kapi_gone() {
	[ -d /sys/module/kbloom_kapi_test ] || return 0
	fz_fail "$1/companion-unloaded" "kbloom_kapi_test is still loaded"
	echo churn-stop >/sys/module/kbloom_kapi_test/parameters/cmd 2>/dev/null
	echo release >/sys/module/kbloom_kapi_test/parameters/cmd
	rmmod kbloom_kapi_test
}

fz_debugfs() {
	[ -d /sys/kernel/debug/failslab ] || [ -e /sys/kernel/debug/kmemleak ] ||
		mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	[ -e /sys/kernel/debug/kmemleak ] || [ -d /sys/kernel/debug/failslab ]
}

# kmemleak: forget what was suspected before this point (boot-time noise).
fz_kmemleak_reset() {
	[ -w /sys/kernel/debug/kmemleak ] || return 0
	echo scan >/sys/kernel/debug/kmemleak
	echo clear >/sys/kernel/debug/kmemleak
}

# Objects must be unreferenced for a while and across scans to be reported.
fz_kmemleak_check() {
	name=$1
	if [ ! -w /sys/kernel/debug/kmemleak ]; then
		echo "$name: no kmemleak in this kernel"
		return 0
	fi
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	sleep 1
	echo scan >/sys/kernel/debug/kmemleak
	report=/tmp/fz-kmemleak.txt
	cat /sys/kernel/debug/kmemleak >"$report"
	leaks=$(grep -c '^unreferenced object' "$report")
	ours=$(awk '/^unreferenced object/ { seen = 0 }
		    /kbloom/ && !seen { seen = 1; c++ }
		    END { print c + 0 }' "$report")
	if [ "$ours" -gt 0 ]; then
		cat "$report"
		fz_fail "$name/kmemleak" "$ours leaked objects allocated by kbloom"
	elif [ "$leaks" -gt 0 ]; then
		cat "$report"
		fz_fail "$name/kmemleak" "$leaks leaked objects (not from kbloom)"
	else
		fz_pass "$name/kmemleak"
	fi
}
