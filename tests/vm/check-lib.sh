#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Shell helpers for the plain VM test scripts (test-image.sh, test-memcg.sh,
# test-module.sh, test-kapi.sh), sourced from /tests: kbloomctl-lib.sh's
# (the filter types, kb_run, $kb_tmp) and these short names.  The sourcing
# script sets $suite; each check prints one PASS:/FAIL: line named
# "$suite/<case>", and any failure sets $status, the script's exit status.

kb_suite=${suite:?set suite before sourcing check-lib.sh}
# shellcheck source=tests/vm/kbloomctl-lib.sh
. /tests/kbloomctl-lib.sh
status=0

pass() {
	kb_pass "$1"
}

fail() {
	kb_fail "$1" "$2"
	status=1
}

# check NAME WHY COMMAND...: PASS when COMMAND succeeds.
check() {
	name=$1
	why=$2
	shift 2
	if "$@"; then
		pass "$name"
	else
		fail "$name" "$why"
	fi
}

# readf FILE: its first line; nothing, and a failure, if it cannot be
# read.  The shell's read, not cat: no program to start, which costs most
# where the tests call it most, on the debug kernel under TCG.
readf() {
	read -r readf_v 2>/dev/null <"$1" && echo "$readf_v"
}

# sysfs FILTER ATTR: one statistic of a filter; nothing if it is gone.
sysfs() {
	readf "/sys/class/kbloom/$1/$2"
}
