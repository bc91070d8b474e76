#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kbloomctl against the real device: create, destroy, list, add, check,
# clear, info and report, their output, their failure messages and their
# exit codes.  Runs inside the VM as root with the module loaded.

kb_suite=kbloomctl-device
for kb_dir in "$(dirname "$0")" /tests; do
	[ -f "$kb_dir/kbloomctl-lib.sh" ] && break
done
. "$kb_dir/kbloomctl-lib.sh"

# Leftovers of an earlier failed run would change every answer below.
for f in users pub sized bpk bin empty rep bigseed bigseed2 addv; do
	"$KBLOOMCTL" destroy -f -q "$f"
done

# --- create, list, info --------------------------------------------------
kb_expect list-empty 0 "no filters" list

kb_expect create 0 "created filter 'users'" \
	create users --capacity 1000 --fp 1% --seed 42
kb_why="no node or sysfs directory"
[ -c /dev/kbloom/users ] && [ -d /sys/class/kbloom/users ]
kb_ok create-node
kb_why="mode $(stat -c %a /dev/kbloom/users)"
[ "$(stat -c %a /dev/kbloom/users)" = 600 ]
kb_ok create-default-mode
kb_expect create-exists 2 \
	"filter 'users' already exists (see: kbloomctl info users; remove it with: kbloomctl destroy users)" \
	create users --capacity 10
kb_expect create-reserved 2 "the name 'total_bytes' is reserved" \
	create total_bytes --capacity 10

# The calculator and the device agree: the same geometry code.
kb_ctl size --json 1000 1%
size_bits=$(kb_json_field bits)
size_k=$(kb_json_field k)
size_fp=$(kb_json_field fp_expected_ppb)
kb_ctl info --json users
kb_why="size says bits $size_bits k $size_k fp $size_fp; device: $out"
[ "$(kb_json_field bits)" = "$size_bits" ] &&
	[ "$(kb_json_field k)" = "$size_k" ] &&
	[ "$(kb_json_field fp_design_ppb)" = "$size_fp" ]
kb_ok size-matches-device
kb_why="$out"
[ "$rc" -eq 0 ] && [ "$(kb_json_field capacity)" = 1000 ] &&
	[ "$(kb_json_field fp_target_ppb)" = 10000000 ] &&
	[ "$(kb_json_string seed)" = 42 ] && kb_has '"name":"users"' &&
	kb_has '"node_mode":"0600"' && kb_has '"saturated":false'
kb_ok info-json

kb_ctl info users
kb_why="$out"
[ "$rc" -eq 0 ] && kb_has "capacity        1000 keys" &&
	kb_has "fp target       1%" && kb_has "/dev/kbloom/users, mode 0600" &&
	kb_has "seed            0x000000000000002a"
kb_ok info-table

kb_expect create-bits 0 "created filter 'sized': 8192 bits" \
	create sized --bits 8Ki --k 3 --seed 0x1234 --mode 0644
kb_ctl info --json sized
kb_why="$out"
[ "$(kb_json_field bits)" = 8192 ] &&
	[ "$(kb_json_field k)" = 3 ] && [ "$(kb_json_string seed)" = 4660 ] &&
	kb_has '"node_mode":"0644"'
kb_ok create-bits-geometry
kb_why="mode $(stat -c %a /dev/kbloom/sized)"
[ "$(stat -c %a /dev/kbloom/sized)" = 644 ]
kb_ok create-mode

# A seed above 2^53 is printed as a JSON string, digit for digit: jq and
# JavaScript round a number that large (to 11814326417431808000), and a
# filter created with the rounded seed would not combine with this one.
kb_expect create-big-seed 0 "created filter 'bigseed'" \
	create bigseed --bits 8Ki --k 3 --seed 11814326417431807788
kb_ctl info --json bigseed
kb_why="$out"
[ "$rc" -eq 0 ] && kb_has '"seed":"11814326417431807788"'
kb_ok info-json-seed-string
# What a script reads back creates a filter that combines with it.
kb_run "$KBLOOMCTL" create -q bigseed2 --bits 8Ki --k 3 \
	--seed "$(kb_json_string seed)"
kb_expect info-json-seed-round-trip 0 "" merge bigseed2 bigseed
"$KBLOOMCTL" destroy -f -q bigseed2
"$KBLOOMCTL" destroy -f -q bigseed

kb_expect create-bits-per-key 0 "created filter 'bpk'" \
	create bpk --capacity 2000 --bits-per-key 12 --k 5
kb_ctl info --json bpk
kb_why="$out"
[ "$(kb_json_field bits)" -ge 24000 ] &&
	[ "$(kb_json_field bits)" -lt 24576 ] && [ "$(kb_json_field k)" = 5 ]
kb_ok create-bits-per-key-geometry

kb_ctl list
kb_why="$out"
[ "$rc" -eq 0 ] && kb_has NAME && kb_has CAPACITY &&
	echo "$out" | grep -q '^users  *10240 ' &&
	echo "$out" | grep -q '^sized  *8192 '
kb_ok list-table
kb_ctl list --names
kb_why="$out"
[ "$out" = "bpk
sized
users" ]
kb_ok list-names
kb_ctl list --json
kb_why="$out"
[ "$rc" -eq 0 ] && kb_has '"name":"users"' &&
	kb_has '"name":"sized"' && kb_has '"bits":8192'
kb_ok list-json

# --- add and check -------------------------------------------------------
kb_expect add-args 0 "added 3 keys to 'users' (3 set new bits)" \
	add users alice bob carol
kb_expect add-again 0 "added 1 key to 'users' (0 set new bits)" add users bob

# add -v: one "new<TAB>KEY" or "known<TAB>KEY" line per key, from the
# ADD results bitmap, in input order; no summary line.  Known keys set no
# new bit (they were added before); new ones did.
seq 1 100 >"$kb_tmp/addv-keys"
for t in bits counting; do
	opt=
	[ "$t" = counting ] && opt=--counting
	# Word splitting of $opt is wanted (empty for bits).
	# shellcheck disable=SC2086
	"$KBLOOMCTL" create -q addv $opt --bits 64Ki --k 4 --seed 3
	kb_ctl add -v addv a1 a2 a3
	kb_why="$t: rc $rc: $out"
	[ "$rc" -eq 0 ] && [ "$out" = "$(printf 'new\ta1\nnew\ta2\nnew\ta3')" ]
	kb_ok "add-verbose-new:$t"
	kb_ctl add -v addv a2 b1 a1 b2 a3
	bad=
	i=0
	for want in known:a2 new:b1 known:a1 new:b2 known:a3; do
		i=$((i + 1))
		line=$(echo "$out" | sed -n "${i}p")
		[ "$line" = "$(printf '%s\t%s' "${want%%:*}" "${want#*:}")" ] ||
			bad="$bad line $i '$line' (wanted $want)"
	done
	kb_why="$t: rc $rc:$bad; $(echo "$out" | wc -l) lines"
	[ "$rc" -eq 0 ] && [ -z "$bad" ] && [ "$(echo "$out" | wc -l)" -eq 5 ]
	kb_ok "add-verbose-known:$t"
	# The per-key answers and the counters agree: add_new grows by
	# exactly the "new" lines, over batches of 7 keys.
	kb_ctl info --json addv
	new0=$(kb_json_field add_new)
	kb_ctl add -v --batch 7 addv -f "$kb_tmp/addv-keys" a1
	news=$(echo "$out" | grep -c '^new	')
	knowns=$(echo "$out" | grep -c '^known	')
	# Arguments come before files: a1 (known) first, then the file.
	first=$(echo "$out" | head -n 1)
	order=$(echo "$out" | cut -f 2 | tail -n 100 |
		cmp - "$kb_tmp/addv-keys" && echo same)
	kb_ctl info --json addv
	kb_why="$t: new $news known $knowns first '$first' order '$order', add_new $new0 -> $(kb_json_field add_new)"
	[ $((news + knowns)) -eq 101 ] && [ "$order" = same ] &&
		[ "$first" = "$(printf 'known\ta1')" ] &&
		[ "$(kb_json_field add_new)" -eq $((new0 + news)) ] &&
		[ "$news" -ge 95 ]
	kb_ok "add-verbose-counts:$t"
	"$KBLOOMCTL" destroy -f -q addv
done
kb_expect check-present 0 "3 keys checked in 'users': 3 may be present, 0 definitely absent" \
	check users alice bob carol
kb_expect check-absent 1 "2 may be present, 1 definitely absent" \
	check users alice mallory bob
kb_expect check-quiet 1 "" check -q users mallory
kb_why="printed: $out"
[ -z "$out" ]
kb_ok check-quiet-silent
kb_ctl check -v users alice mallory
kb_why="$out"
[ "$rc" -eq 1 ] && [ "$out" = "maybe	alice
absent	mallory" ]
kb_ok check-verbose
kb_ctl check -a users alice mallory bob trent
kb_why="$out"
[ "$rc" -eq 1 ] && [ "$out" = "mallory
trent" ]
kb_ok check-print-absent
kb_ctl check -m users alice mallory bob
kb_why="$out"
[ "$rc" -eq 1 ] && [ "$out" = "alice
bob" ]
kb_ok check-print-maybe

printf 'dave\neve\n' >"$kb_tmp/keys1"
printf 'frank' >"$kb_tmp/keys2"
kb_expect add-files 0 "added 3 keys" add users -f "$kb_tmp/keys1" -f "$kb_tmp/keys2"
kb_run sh -c "printf 'gina\nhank\n' | $KBLOOMCTL add users"
kb_why="$out $err"
[ "$rc" -eq 0 ] && kb_has "added 2 keys"
kb_ok add-stdin
kb_run sh -c "printf 'alice\ndave\nfrank\ngina\n' | $KBLOOMCTL check users -f -"
kb_why="$out $err"
[ "$rc" -eq 0 ] && kb_has "4 may be present"
kb_ok check-stdin
kb_ctl info --json users
kb_why="$out"
[ "$(kb_json_field add_calls)" = 9 ] &&
	[ "$(kb_json_field add_new)" = 8 ]
kb_ok add-counted

# Keys are bytes: NUL-delimited input keeps newlines; \r is part of a key.
kb_expect create-bin 0 "" create bin --capacity 100000 --seed 7
kb_run sh -c "printf 'a\\0b\\nc\\0d\\r\\0' | $KBLOOMCTL add bin -0"
kb_why="$out $err"
[ "$rc" -eq 0 ] && kb_has "added 3 keys"
kb_ok add-nul
kb_run sh -c "printf 'b\\nc\\0' | $KBLOOMCTL check bin -0 -q"
kb_why="rc $rc"
[ "$rc" -eq 0 ]
kb_ok check-nul-newline-in-key
kb_run sh -c "printf 'b\\nc\\n' | $KBLOOMCTL check bin -q"
kb_why="rc $rc"
[ "$rc" -eq 1 ]
kb_ok check-newline-splits
kb_expect check-cr-exact 1 "" check -q bin d
kb_run sh -c "printf 'd\\r\\n' | $KBLOOMCTL check bin -q"
kb_why="rc $rc"
[ "$rc" -eq 0 ]
kb_ok check-cr-kept
kb_run sh -c "printf 'a\\0zz\\0' | $KBLOOMCTL check bin -0 -v"
kb_why="$(od -c <"$kb_tmp/out" | head -n 3)"
[ "$rc" -eq 1 ] &&
	[ "$(printf 'maybe\ta\0absent\tzz\0' | od -c)" = "$(od -c <"$kb_tmp/out")" ]
kb_ok check-nul-output

# A key of exactly 4096 bytes is fine; one byte more is refused, by line.
head -c 4096 /dev/zero | tr '\0' 'k' >"$kb_tmp/long"
kb_expect key-max 0 "added 1 key " add bin -f "$kb_tmp/long"
printf 'ok\n' >"$kb_tmp/toolong"
head -c 4097 /dev/zero | tr '\0' 'k' >>"$kb_tmp/toolong"
kb_expect key-too-long 2 "line 2: key of 4097 bytes is longer than 4096 bytes" \
	add bin -f "$kb_tmp/toolong"
printf 'x\n\ny\n' >"$kb_tmp/emptyline"
kb_expect key-empty 2 "line 2: empty key (keys are 1 to 4096 bytes)" \
	add bin -f "$kb_tmp/emptyline"
kb_expect key-empty-arg 2 "argument 2: empty key" add bin x ""
kb_expect key-file-missing 2 "cannot read keys from /nonexistent: No such file or directory" \
	add bin -f /nonexistent

# --- clear ---------------------------------------------------------------
kb_expect clear 0 "cleared filter 'users'" clear users
kb_ctl info --json users
kb_why="$out"
[ "$(kb_json_field add_calls)" = 0 ] &&
	[ "$(kb_json_field bits_set)" = 0 ]
kb_ok clear-resets
kb_expect clear-forgets 1 "" check -q users alice

# --- report --------------------------------------------------------------
kb_expect create-rep 0 "" create rep --capacity 1000
kb_expect report 0 "observed false-positive rate 3%" \
	report rep --fp 3 --tp 50 --tn 97
kb_expect report-adds 0 "totals 4 false positives, 50 true positives, 196 true negatives" \
	report rep --fp 1 --tn 99
kb_ctl info --json rep
kb_why="$out"
[ "$(kb_json_field reported_fp)" = 4 ] &&
	[ "$(kb_json_field reported_tn)" = 196 ] &&
	[ "$(kb_json_field observed_fp_ppb)" = 20000000 ]
kb_ok report-info
kb_expect report-over-max 2 \
	"cannot report to filter 'rep': one report may carry at most 4294967296 answers (KBLOOM_REPORT_MAX; --fp + --tp + --tn); split it into several reports" \
	report rep --fp 1 --tn 4294967296
kb_ctl info --json rep
kb_why="$out"
[ "$(kb_json_field reported_fp)" = 4 ] && [ "$(kb_json_field reported_tn)" = 196 ]
kb_ok report-over-max-records-nothing
kb_ctl info rep
kb_why="$out"
kb_has "fp observed     2%"
kb_ok report-info-table
kb_expect report-bad 2 "invalid count 'x'" report rep --fp x

# --- errors: missing filters, permissions --------------------------------
# The module is loaded, so a missing filter is "no such filter" (libkbloom's
# kbl_error_message(); without the module it says that instead, see
# test-kbloomctl-cli.sh and userspace/test_messages.c).
for c in "add nope k" "check nope k" "info nope" "clear nope" \
	 "report nope --fp 1" "save nope $kb_tmp/x" "load nope $kb_tmp/keys1"; do
	# shellcheck disable=SC2086
	kb_expect "not-found:${c%% *}" 2 \
		"cannot open filter 'nope': no such filter (see: kbloomctl list)" $c
done
kb_expect destroy-not-found 2 \
	"cannot destroy filter 'nope': no such filter (see: kbloomctl list)" \
	destroy nope
kb_expect destroy-force 0 "" destroy -f nope
kb_expect bad-name 2 "invalid filter name 'x/y'" info x/y

# A user other than root: filter nodes are 0600 root by default and the
# control node is root's alone.
grep -q '^nobody:' /etc/passwd 2>/dev/null ||
	echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
kb_nobody() {
	kb_run su -s /bin/sh nobody -c "$KBLOOMCTL $*"
}
kb_nobody add users k
kb_why="rc $rc: $err"
[ "$rc" -eq 2 ] &&
	kb_has "permission denied: /dev/kbloom/users is mode 0600, owner root"
kb_ok perm-filter
kb_nobody create x --capacity 10
kb_why="rc $rc: $err"
[ "$rc" -eq 2 ] &&
	kb_has "permission denied: /dev/kbloom-control is mode 0600, owner root"
kb_ok perm-control
kb_nobody destroy users
kb_why="rc $rc: $err"
[ "$rc" -eq 2 ] && kb_has "permission denied: /dev/kbloom-control"
kb_ok perm-destroy
# With the control node writable by everyone, the filter's own right
# still decides: nobody may not destroy root's 0600 filter.
ctl_mode=$(stat -c %a /dev/kbloom-control)
chmod 0666 /dev/kbloom-control
kb_nobody destroy users
kb_why="rc $rc: $err"
[ "$rc" -eq 2 ] &&
	kb_has "cannot destroy filter 'users': permission denied: it belongs to root (/dev/kbloom/users mode 0600, owner root, group 0); only its owner, a user who may write /dev/kbloom/users, or root (CAP_SYS_ADMIN) can destroy it" &&
	[ -c /dev/kbloom/users ]
kb_ok perm-destroy-filter-right
chmod "$ctl_mode" /dev/kbloom-control
# 0644: others may check and read info, not add.
"$KBLOOMCTL" add -q sized s1
kb_nobody check -q sized s1
kb_why="rc $rc: $err"
[ "$rc" -eq 0 ]
kb_ok perm-read-allowed
kb_nobody add sized s2
kb_why="rc $rc: $err"
[ "$rc" -eq 2 ] &&
	kb_has "permission denied: /dev/kbloom/sized is mode 0644, owner root (this needs write access"
kb_ok perm-write-denied
kb_nobody list
kb_why="rc $rc: $out $err"
[ "$rc" -eq 0 ] && kb_has users
kb_ok perm-list

# --- check through the mapping and through ioctls -------------------------
# check maps the filter when it can; --no-map asks through ioctls.  Both
# must print the same bytes and exit alike, for both filter types and every
# output mode.  The module's check_calls tell which way each one went:
# mapped checks do not pass through it.
"$KBLOOMCTL" destroy -f -q mapb mapc
seq 2 2 2000 >"$kb_tmp/map-in"
seq 1 4000 >"$kb_tmp/map-all"
kb_run "$KBLOOMCTL" create mapb --capacity 1000 --seed 7 &&
	kb_run "$KBLOOMCTL" create mapc --counting --capacity 1000 --seed 7 &&
	kb_run "$KBLOOMCTL" add -q mapb -f "$kb_tmp/map-in" &&
	kb_run "$KBLOOMCTL" add -q mapc -f "$kb_tmp/map-in"
kb_why="setup: rc $rc: $err"
[ "$rc" -eq 0 ]
kb_ok map-setup

# map_same CASE ARGS...: check ARGS and check --no-map ARGS agree.
map_same() {
	map_case=$1
	shift
	"$KBLOOMCTL" check "$@" >"$kb_tmp/map-out" 2>"$kb_tmp/map-err"
	map_rc=$?
	"$KBLOOMCTL" check --no-map "$@" >"$kb_tmp/ioc-out" 2>"$kb_tmp/ioc-err"
	ioc_rc=$?
	if [ "$map_rc" -ne "$ioc_rc" ]; then
		kb_fail "$map_case" "exit $map_rc mapped, $ioc_rc with --no-map"
	elif ! cmp -s "$kb_tmp/map-out" "$kb_tmp/ioc-out" ||
	     ! cmp -s "$kb_tmp/map-err" "$kb_tmp/ioc-err"; then
		kb_fail "$map_case" "output differs: $(diff "$kb_tmp/map-out" "$kb_tmp/ioc-out" | head -n 3 | tr '\n' ' ')"
	else
		kb_pass "$map_case"
	fi
}

for f in mapb mapc; do
	map_same "map-same-present:$f" "$f" -f "$kb_tmp/map-in"
	map_same "map-same-absent:$f" "$f" -f "$kb_tmp/map-all"
	map_same "map-same-args:$f" "$f" 2 4 6 3
	for mode in -v -a -m -q; do
		map_same "map-same$mode:$f" "$f" "$mode" -f "$kb_tmp/map-all"
	done
	tr '\n' '\0' <"$kb_tmp/map-all" >"$kb_tmp/map-all0"
	map_same "map-same-0:$f" "$f" -0 -v -f "$kb_tmp/map-all0"
	map_same "map-same-missing:$f" "${f}x" 1
done
kb_ctl check -v mapb -f "$kb_tmp/map-in"
kb_why="rc $rc, $(echo "$out" | grep -c '^maybe') maybe lines"
[ "$rc" -eq 0 ] && [ "$(echo "$out" | grep -c '^maybe	')" -eq 1000 ]
kb_ok map-no-false-negatives

calls() {
	cat /sys/class/kbloom/mapb/check_calls
}
c0=$(calls)
kb_ctl check -q mapb -f "$kb_tmp/map-all"
c1=$(calls)
kb_ctl check -q --no-map mapb -f "$kb_tmp/map-all"
c2=$(calls)
kb_why="check_calls $c0 -> $c1 (mapped) -> $c2 (--no-map)"
[ "$c1" -eq "$c0" ] && [ "$c2" -eq $((c1 + 4000)) ]
kb_ok map-used-by-default
kb_ctl check -s mapb -f "$kb_tmp/map-in"
kb_why="$out"
[ "$rc" -eq 0 ] && kb_has "checked 1000 keys in 0 ioctls"
kb_ok map-stats-no-ioctls

# A check waiting for more keys holds its mapping: info counts it, and
# says the checks through it are not counted; --json always has it.
kb_ctl info --json mapb
kb_why="$out"
[ "$rc" -eq 0 ] && kb_has '"mappings":0'
kb_ok info-json-no-mappings
rm -f "$kb_tmp/map-fifo"
mkfifo "$kb_tmp/map-fifo"
"$KBLOOMCTL" check -q mapb -f "$kb_tmp/map-fifo" &
map_pid=$!
exec 8>"$kb_tmp/map-fifo"
echo 2 >&8
# The checker maps before it reads; wait for the mapping to show.
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ "$(cat /sys/class/kbloom/mapb/mappings)" -gt 0 ] && break
	sleep 0.2
done
kb_ctl info mapb
kb_why="$out"
[ "$rc" -eq 0 ] &&
	kb_has "mappings        1 (checks through them are not counted above)"
kb_ok info-shows-mappings
exec 8>&-
wait "$map_pid"
map_rc=$?
kb_why="check through the fifo exited $map_rc"
[ "$map_rc" -eq 0 ]
kb_ok map-fifo-check
kb_why="mappings $(cat /sys/class/kbloom/mapb/mappings) after the check ended"
[ "$(cat /sys/class/kbloom/mapb/mappings)" -eq 0 ]
kb_ok mappings-gone-after-exit
kb_expect map-destroy 0 "destroyed filter 'mapb'" destroy mapb mapc

# --- destroy -------------------------------------------------------------
kb_expect destroy 0 "destroyed filter 'users'" destroy users
kb_why="node left behind"
[ ! -e /dev/kbloom/users ] && [ ! -e /sys/class/kbloom/users ]
kb_ok destroy-node
kb_expect destroy-many 0 "destroyed filter 'bpk'" destroy sized bpk bin rep
kb_ctl list --names
kb_why="left: $out"
[ -z "$out" ]
kb_ok destroy-all

kb_finish
