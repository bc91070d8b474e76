#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Shell helpers for the plain VM test scripts (test-image.sh,
# test-module.sh), sourced from /tests.  The sourcing script sets $suite;
# each check prints one PASS:/FAIL: line named "$suite/<case>", and any
# failure sets $status, the script's exit status.

status=0

pass() {
	echo "PASS: $suite/$1"
}

fail() {
	echo "FAIL: $suite/$1: $2"
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

# sysfs FILTER ATTR: one statistic of a filter; nothing if it is gone.
sysfs() {
	cat "/sys/class/kbloom/$1/$2" 2>/dev/null
}
