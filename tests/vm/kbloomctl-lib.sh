# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers of the kbloomctl tests (sourced, not run).  Each case prints
#   PASS: <suite>/<case>   or   FAIL: <suite>/<case>: <reason>
# and kb_finish exits non-zero if any case failed.

# The sourcing test sets kb_suite; each case may set kb_why first.
KBLOOMCTL=${KBLOOMCTL:-kbloomctl}
kb_suite=${kb_suite:?set kb_suite before sourcing kbloomctl-lib.sh}
kb_why=
kb_failed=0
kb_tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbloomctl-test.XXXXXX") || exit 2
trap 'rm -rf "$kb_tmp"' EXIT

kb_pass() {
	echo "PASS: $kb_suite/$1"
}

kb_fail() {
	echo "FAIL: $kb_suite/$1: $2"
	kb_failed=$((kb_failed + 1))
}

# kb_run CMD...: runs CMD; sets $out (stdout), $err (stderr) and $rc.
kb_run() {
	"$@" >"$kb_tmp/out" 2>"$kb_tmp/err"
	rc=$?
	out=$(cat "$kb_tmp/out")
	err=$(cat "$kb_tmp/err")
}

# kb_ctl ARGS...: kb_run with kbloomctl.
kb_ctl() {
	kb_run "$KBLOOMCTL" "$@"
}

# kb_has TEXT: stdout or stderr of the last run contains TEXT (fixed).
kb_has() {
	printf '%s\n%s\n' "$out" "$err" | grep -qF -- "$1"
}

# kb_expect CASE RC TEXT ARGS...: kbloomctl ARGS exits RC and prints TEXT
# (on stdout or stderr; "" for no text check).
kb_expect() {
	kb_case=$1
	kb_rc=$2
	kb_text=$3
	shift 3
	kb_ctl "$@"
	if [ "$rc" -ne "$kb_rc" ]; then
		kb_fail "$kb_case" "exit $rc, wanted $kb_rc: $(echo "$err" | head -n 1)"
	elif [ -n "$kb_text" ] && ! kb_has "$kb_text"; then
		kb_fail "$kb_case" "no '$kb_text' in: $(echo "$out$err" | head -n 2 | tr '\n' ' ')"
	else
		kb_pass "$kb_case"
	fi
}

# COND; kb_ok CASE: the case passes when COND (the command list run just
# before) succeeded; $kb_why says what was seen when it did not.
kb_ok() {
	# shellcheck disable=SC2181
	if [ $? -eq 0 ]; then
		kb_pass "$1"
	else
		kb_fail "$1" "$kb_why"
	fi
}

# kb_json_field NAME: the number after "NAME": in $out.
kb_json_field() {
	echo "$out" | sed -n "s/.*\"$1\":\\([0-9][0-9]*\\).*/\\1/p" | head -n 1
}

# kb_json_string NAME: the string after "NAME": in $out (no escapes).
kb_json_string() {
	echo "$out" | sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" | head -n 1
}

kb_finish() {
	exit "$((kb_failed > 0))"
}
