#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Every VM test, run inside the VM by `make test-vm`:
#   sh scripts/vm-run tests/vm/run-all.sh [--timeout S] [[!]NAME...]
# The tests are /tests/test-*.sh (tests/vm/*.sh) and /usr/bin/test-* (the
# static programs from tests/vm/*.c); NAME patterns pick a subset, and
# !NAME patterns leave tests out (make check splits a suite in two so:
# the named tests, and all but them).  Their
# PASS:/FAIL: lines pass through; a test that reports nothing itself is
# judged by its exit status.  Each test starts with no filters: whatever
# the previous one left is destroyed.  Exits non-zero if anything failed.
set -u

per_test_timeout=300
if [ "${1:-}" = --timeout ]; then
	per_test_timeout=${2:?--timeout needs seconds}
	shift 2
fi
tests_dir=${KBLOOM_VM_TESTS:-/tests}
work=$(mktemp -d "${TMPDIR:-/tmp}/run-all.XXXXXX") || exit 2

# wanted NAME PATTERN...: NAME matches no !PATTERN, and one PATTERN if
# there are any.
wanted() {
	name=$1
	shift
	picked=all
	for pattern in "$@"; do
		# Patterns are globs on purpose.
		# shellcheck disable=SC2254
		case $pattern in
		!*)
			case $name in
			${pattern#!}) return 1 ;;
			esac
			;;
		*)
			[ "$picked" = all ] && picked=no
			case $name in
			$pattern) picked=yes ;;
			esac
			;;
		esac
	done
	[ "$picked" != no ]
}

# Filters are the devices of class kbloom, one directory each.
destroy_leftover_filters() {
	left=""
	for dir in /sys/class/kbloom/*; do
		[ -d "$dir" ] && left="$left ${dir##*/}"
	done
	[ -z "$left" ] && return 0
	echo "run-all: $1 left filters:$left; destroying them"
	if ! command -v kbloomctl >/dev/null; then
		echo "run-all: no kbloomctl to destroy them with"
		return 0
	fi
	for name in $left; do
		kbloomctl destroy "$name" ||
			echo "run-all: could not destroy filter $name"
	done
}

# run_test NAME COMMAND...: runs COMMAND in its own session (so a timeout
# takes everything it started), output through to the console and into a
# log that is then checked for the test's own verdict lines.
failed=""
count=0
run_test() {
	name=$1
	shift
	log=$work/$name.log
	rm -f "$work/rc" "$work/timed-out"
	count=$((count + 1))
	echo "=== $name"
	t0=$(cut -d ' ' -f 1 /proc/uptime)
	(
		setsid "$@" </dev/null 2>&1 &
		pid=$!
		(
			trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
			sleep "$per_test_timeout" &
			sleeper=$!
			wait "$sleeper"
			touch "$work/timed-out"
			kill -KILL -"$pid"
		) >/dev/null 2>&1 &
		watchdog=$!
		wait "$pid"
		echo $? >"$work/rc"
		kill "$watchdog" 2>/dev/null
		kill -KILL -"$pid" 2>/dev/null
	) | tee "$log"
	rc=$(cat "$work/rc" 2>/dev/null || echo 1)
	# Where a run's minutes go, guest time.
	echo "run-all: $name took" \
		"$(awk -v a="$t0" '{ printf "%.0f", $1 - a }' /proc/uptime) s"
	if [ -e "$work/timed-out" ]; then
		echo "FAIL: vm/$name: timed out after $per_test_timeout s"
		failed="$failed $name"
	elif grep -q '^FAIL: ' "$log"; then
		failed="$failed $name"
	elif [ "$rc" -ne 0 ]; then
		echo "FAIL: vm/$name: exit $rc"
		failed="$failed $name"
	elif ! grep -q '^PASS: ' "$log"; then
		echo "PASS: vm/$name"
	fi
	destroy_leftover_filters "$name"
}

for t in "$tests_dir"/test-*.sh; do
	[ -f "$t" ] || continue
	name=${t##*/}
	name=${name%.sh}
	wanted "$name" "$@" && run_test "$name" sh "$t"
done
for t in /usr/bin/test-*; do
	# Regular files only: busybox applet links are symlinks.
	if [ ! -f "$t" ] || [ -L "$t" ] || [ ! -x "$t" ]; then
		continue
	fi
	name=${t##*/}
	wanted "$name" "$@" && run_test "$name" "$t"
done
rm -rf "$work"

if [ "$count" -eq 0 ]; then
	echo "FAIL: vm/run-all: no tests found"
	exit 1
fi
if [ -n "$failed" ]; then
	echo "run-all: $count tests, failed:$failed"
	exit 1
fi
echo "run-all: $count tests, all passed"
