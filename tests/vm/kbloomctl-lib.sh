# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers of the kbloomctl tests (sourced, not run).  Each case prints
#   PASS: <suite>/<case>   or   FAIL: <suite>/<case>: <reason>
# and kb_finish exits non-zero if any case failed.

# The filter types.  A case that holds for every type runs over this list
# and is named <suite>/<case>/<type>; a new type is one more word here and
# one more row in kb_type.
kb_types="bits counting window"

# kb_type TYPE: the type's parameters, for the cases to read:
#   kb_opt     kbloomctl create's option for it ("" for bits)
#   kb_word    the word messages put before "filter" ("counting ")
#   kb_cells   cells per 64-byte block (1-bit cells, 4-bit counters, or a
#              window's masks of 8 planes for its 5 generations)
#   kb_delete  1 when its filters can delete keys, else 0
#   kb_cellword  what kbloomctl calls its cells where they are not bits
#   kb_key_block  64-byte blocks a key's block takes (a window's planes)
#   kb_gens    what kbloomctl adds to a filter's description (", 5
#              generations" for the window row, else nothing)
#   kb_span    the generations a capacity covers (a window's g - 1, else 1)
#   kb_bpk10   bits per key (memory) for 10 cells a key (in each of a
#              window's generations: 8 planes a cell, 4 generations a
#              window's capacity), and kb_fp10 "LOW HIGH", the range (ppb)
#              of the formula's rate there at k 7
# The window row rotates only when asked (no --window, no --rotate-every),
# so that the typed cases see no rotation they did not make.
kb_type() {
	kb_key_block=1
	kb_gens=
	kb_span=1
	case $1 in
	bits)
		kb_opt='' kb_word='' kb_cells=512 kb_delete=0 kb_cellword=
		kb_bpk10=10 kb_fp10="8000000 15000000"
		;;
	counting)
		kb_opt=--counting kb_word="counting " kb_cells=128 kb_delete=1
		kb_cellword=counters kb_bpk10=40 kb_fp10="8000000 15000000"
		;;
	window)
		kb_opt="--generations 5" kb_word="window " kb_cells=64 kb_delete=0
		kb_cellword="masks of 8 bits" kb_key_block=8 kb_gens=", 5 generations"
		kb_span=4
		kb_bpk10=20 kb_fp10="30000000 60000000"
		;;
	*)
		echo "kb_type: unknown type '$1'" >&2
		return 1
		;;
	esac
}

# kb_capacity N: the --capacity for N keys a case adds without rotating.
# A window holds them in its current generation, and its capacity counts
# the keys of g - 1 of them, so a window is made for N * (g - 1): each
# generation holds N keys at the window's share of the rate (as
# vt_create_typed() does for the C suites).
kb_capacity() {
	echo $(($1 * kb_span))
}

# kb_other TYPE: the type after TYPE in $kb_types, the first after the
# last; for cases that need two filters of different types.
kb_other() {
	# Word splitting of the list is wanted.
	# shellcheck disable=SC2086
	set -- "$1" $kb_types $kb_types
	kb_t=$1
	shift
	while [ "$1" != "$kb_t" ]; do
		shift
	done
	echo "$2"
}

# The numbers of kb_numbers, as scripts/vm-initramfs writes them; the
# last line is how many (read once, when first needed).
kb_numbers_file=${KBLOOM_NUMBERS:-/tests/numbers}
kb_numbers_max=

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

# kb_judge CASE RC TEXT: the last run exited RC and printed every line of
# TEXT (on stdout or stderr, each anywhere; "" for no text check).
kb_judge() {
	kb_missing=
	while IFS= read -r kb_line; do
		[ -z "$kb_line" ] || kb_has "$kb_line" || kb_missing=$kb_line
	done <<EOF
$3
EOF
	if [ "$rc" -ne "$2" ]; then
		kb_fail "$1" "exit $rc, wanted $2: $(echo "$err" | head -n 1)"
	elif [ -n "$kb_missing" ]; then
		kb_fail "$1" "no '$kb_missing' in: $(echo "$out$err" | head -n 2 | tr '\n' ' ')"
	else
		kb_pass "$1"
	fi
}

# kb_expect CASE RC TEXT ARGS...: kbloomctl ARGS exits RC and prints the
# lines of TEXT.
kb_expect() {
	kb_case=$1
	kb_rc=$2
	kb_text=$3
	shift 3
	kb_ctl "$@"
	kb_judge "$kb_case" "$kb_rc" "$kb_text"
}

# kb_output CASE RC WANT ARGS...: kbloomctl ARGS exits RC and its stdout is
# WANT, exactly (printf escapes such as \t and \n in WANT are expanded).
kb_output() {
	kb_case=$1
	kb_rc=$2
	# The escapes are the point.
	# shellcheck disable=SC2059
	kb_want=$(printf "$3")
	shift 3
	kb_ctl "$@"
	kb_why="exit $rc (wanted $kb_rc): '$out'"
	[ "$rc" -eq "$kb_rc" ] && [ "$out" = "$kb_want" ]
	kb_ok "$kb_case"
}

# kb_lines TEXT...: the TEXTs, one a line (several texts for kb_expect).
kb_lines() {
	printf '%s\n' "$@"
}

# kb_expect_sh CASE RC TEXT SCRIPT: the shell SCRIPT (a pipe into or out
# of kbloomctl, whose path is $KBLOOMCTL there) exits RC and prints TEXT.
kb_expect_sh() {
	kb_run sh -c "$4"
	kb_judge "$1" "$2" "$3"
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

# kb_json_flat: $out without a window's per-generation array ("gen":
# [{...}, ...], whose objects repeat field names such as add_calls) and a
# scalable filter's per-sub-filter one ("sub": [...], capacity, k, ...),
# so that a field name means the filter's own field.
kb_json_flat() {
	echo "$out" | sed -e 's/"gen":\[[^]]*\],\{0,1\}//' \
		-e 's/"sub":\[[^]]*\],\{0,1\}//'
}

# kb_json_field NAME: the number after "NAME": in $out.
kb_json_field() {
	kb_json_flat | sed -n "s/.*\"$1\":\\([0-9][0-9]*\\).*/\\1/p" | head -n 1
}

# kb_json_string NAME: the string after "NAME": in $out (no escapes).
kb_json_string() {
	kb_json_flat | sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" | head -n 1
}

# kb_info CASE FILTER FIELD=VALUE...: `info --json FILTER` has every
# FIELD equal to VALUE.
kb_info() {
	kb_case=$1
	kb_ctl info --json "$2"
	shift 2
	kb_why="rc $rc:"
	for kb_pair in "$@"; do
		# A number, true/false, or a string without quotes or commas.
		kb_v=$(kb_json_flat | sed -n "s/.*\"${kb_pair%%=*}\":\"\{0,1\}\([^\",}]*\).*/\1/p")
		[ "$kb_v" = "${kb_pair#*=}" ] || kb_why="$kb_why $kb_pair (is '$kb_v')"
	done
	[ "$rc" -eq 0 ] && [ "$kb_why" = "rc $rc:" ]
	kb_ok "$kb_case"
}

# kb_near_theory HITS QUERIES THEORY_PPB: the measured rate HITS/QUERIES is
# within max(5 sigma, 2 % relative) of the theory, sigma = sqrt(p/Q).
# Squared, because busybox awk has no sqrt.
kb_near_theory() {
	echo "$1 $2 $3" | awk '{
		m = $1 / $2; p = $3 / 1e9; d = (m - p) * (m - p);
		b = 25 * p / $2; if (0.0004 * p * p > b) b = 0.0004 * p * p;
		exit (d <= b ? 0 : 1) }'
}

# kb_keys FIRST LAST: the keys kFIRST..kLAST, one per line.
kb_keys() {
	seq "$1" "$2" | sed 's/^/k/'
}

# kb_numbers FIRST COUNT: the numbers FIRST..FIRST+COUNT-1, one per line.
# Cut from the 1..N that scripts/vm-initramfs writes to /tests/numbers
# where they lie in it: busybox seq prints through floating point, which
# qemu's TCG emulates, and takes ~15 s a million there; tail and head take
# it at the speed of memchr.
kb_numbers() {
	kb_last=$(($1 + $2 - 1))
	if [ -z "$kb_numbers_max" ]; then
		kb_numbers_max=0
		[ -f "$kb_numbers_file" ] &&
			kb_numbers_max=$(tail -n 1 "$kb_numbers_file")
	fi
	if [ "$2" -le 0 ]; then
		return 0
	elif [ "$1" -ge 1 ] && [ "$kb_last" -le "$kb_numbers_max" ]; then
		tail -n "+$1" "$kb_numbers_file" | head -n "$2"
	else
		seq "$1" "$kb_last"
	fi
}

# Images (version 3): the header (88 bytes), the window part, the cells,
# a CRC32C.  kb_image_bytes NBLOCKS: an image's size.
kb_image_header=88
kb_image_window=576
kb_image_bytes() {
	echo $((kb_image_header + kb_image_window + $1 * 64 + 4))
}

# kb_image_same A B: image files A and B hold the same filter state.  A
# window's image also says how long ago it last rotated (le64 at 24 in the
# window part), which time changes and no call does: that field and the
# CRC over it are left out.
kb_image_same() {
	kb_n=$(wc -c <"$1")
	[ "$kb_n" -eq "$(wc -c <"$2")" ] || return 1
	kb_at=$((kb_image_header + 24))
	for kb_f in "$1" "$2"; do
		head -c "$kb_at" "$kb_f" >"$kb_f.head"
		tail -c +$((kb_at + 9)) "$kb_f" | head -c $((kb_n - kb_at - 12)) \
			>"$kb_f.tail"
	done
	cmp -s "$1.head" "$2.head" && cmp -s "$1.tail" "$2.tail"
	kb_rc=$?
	rm -f "$1.head" "$1.tail" "$2.head" "$2.tail"
	return $kb_rc
}

# kb_destroy NAME...: destroys what an earlier failed run may have left.
kb_destroy() {
	for kb_f in "$@"; do
		"$KBLOOMCTL" destroy -f -q "$kb_f"
	done
}

kb_finish() {
	exit "$((kb_failed > 0))"
}
