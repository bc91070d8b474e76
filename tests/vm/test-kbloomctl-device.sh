#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kbloomctl against the real device: create, destroy, list, add, check,
# delete, clear, info and report, their output, their failure messages and
# their exit codes, for every filter type.  Runs inside the VM as root with
# the module loaded.

kb_suite=kbloomctl-device
for kb_dir in "$(dirname "$0")" /tests; do
	[ -f "$kb_dir/kbloomctl-lib.sh" ] && break
done
. "$kb_dir/kbloomctl-lib.sh"

# The filters of each type; the type is the last part of each name.
names=""
for t in $kb_types; do
	names="$names users-$t sized-$t bpk-$t addv-$t rep-$t cnt-$t map-$t"
	names="$names grow-$t"
done
# Leftovers of an earlier failed run would change every answer below.
# shellcheck disable=SC2086
kb_destroy $names bin bigseed bigseed2

kb_expect list-empty 0 "no filters" list

# --- create, info, add, check, clear and report: every type --------------
seq 1 100 >"$kb_tmp/addv-keys"
printf 'dave\neve\n' >"$kb_tmp/keys1"
printf 'frank' >"$kb_tmp/keys2"
# Word splitting of $kb_opt is wanted (empty for bits).
# shellcheck disable=SC2086
for t in $kb_types; do
	kb_type "$t"
	f=users-$t
	kb_expect "create/$t" 0 "created ${kb_word}filter '$f': " \
		create "$f" --capacity 1000 --fp 1% --seed 42 $kb_opt
	# The size: bits and bytes, and the counters where cells are not bits.
	kb_why="$out"
	kb_has " bits (" && kb_has "), k " &&
		{ [ "$kb_cellword" != counters ] || kb_has " counters), k "; } &&
		{ [ "$t" != window ] ||
			kb_has ", 5 generations, rotates "; }
	kb_ok "create-prints-size/$t"
	kb_why="no node or sysfs directory"
	[ -c "/dev/kbloom/$f" ] && [ -d "/sys/class/kbloom/$f" ]
	kb_ok "create-node/$t"
	kb_why="mode $(stat -c %a "/dev/kbloom/$f")"
	[ "$(stat -c %a "/dev/kbloom/$f")" = 600 ]
	kb_ok "create-default-mode/$t"
	kb_expect "create-exists/$t" 2 \
		"filter '$f' already exists (see: kbloomctl info $f; remove it with: kbloomctl destroy $f)" \
		create "$f" --capacity 10 $kb_opt

	# The calculator and the device agree: the same geometry code.
	kb_ctl size --json 1000 1% $kb_opt
	size_bits=$(kb_json_field bits)
	nblocks=$(kb_json_field nblocks)
	kb_info "size-matches-device/$t" "$f" "bits=$size_bits" \
		"k=$(kb_json_field k)" "fp_design_ppb=$(kb_json_field fp_expected_ppb)"
	kb_info "info-json/$t" "$f" capacity=1000 fp_target_ppb=10000000 \
		seed=42 name="$f" node_mode=0600 type="$t" \
		cells=$((nblocks * kb_cells)) bits_set=0 add_calls=0 \
		delete_calls=0 delete_hits=0 saturated=false
	# The cells have a row of their own where they are not bits.
	cells=
	[ "$kb_cells" -eq 512 ] ||
		cells="cells           $((nblocks * kb_cells)) $kb_cellword ($kb_cells per block)"
	kb_expect "info-table/$t" 0 "$(kb_lines "type            $t" \
		"capacity        1000 keys" "fp target       1%" \
		"/dev/kbloom/$f, mode 0600" "seed            0x000000000000002a" \
		"(0 of $((nblocks * kb_cells)) " "$cells")" info "$f"

	kb_expect "create-bits/$t" 0 "created ${kb_word}filter 'sized-$t': 8192 bits" \
		create "sized-$t" --bits 8Ki --k 3 --seed 0x1234 --mode 0644 $kb_opt
	kb_info "create-bits-geometry/$t" "sized-$t" bits=8192 k=3 seed=4660 \
		node_mode=0644 type="$t"
	kb_why="mode $(stat -c %a "/dev/kbloom/sized-$t")"
	[ "$(stat -c %a "/dev/kbloom/sized-$t")" = 644 ]
	kb_ok "create-mode/$t"
	kb_expect "create-bits-per-key/$t" 0 "created ${kb_word}filter 'bpk-$t'" \
		create "bpk-$t" --capacity 2000 --bits-per-key 12 --k 5 $kb_opt
	kb_ctl info --json "bpk-$t"
	kb_why="$out"
	# 24000 bits, rounded up to whole blocks (a window's of 8 lines).
	[ "$(kb_json_field bits)" -ge 24000 ] &&
		[ "$(kb_json_field bits)" -lt $((24000 + 512 * kb_key_block)) ] &&
		[ "$(kb_json_field k)" = 5 ]
	kb_ok "create-bits-per-key-geometry/$t"

	# list: the filters of the type, with their size and type.
	kb_ctl list
	kb_why="$out"
	[ "$rc" -eq 0 ] && kb_has NAME && kb_has CAPACITY && kb_has TYPE &&
		echo "$out" | grep -qE "^$f +$size_bits .* $t( \(.*\))? *\$" &&
		echo "$out" | grep -qE "^sized-$t +8192 .* $t( \(.*\))? *\$"
	kb_ok "list-table/$t"
	kb_expect "list-json/$t" 0 "$(kb_lines \
		"\"name\":\"$f\",\"node\":\"/dev/kbloom/$f\",\"type\":\"$t\"" \
		"\"name\":\"sized-$t\",\"node\":\"/dev/kbloom/sized-$t\",\"type\":\"$t\",\"bits\":8192")" \
		list --json

	kb_expect "add-args/$t" 0 "added 3 keys to '$f' (3 set new bits)" \
		add "$f" alice bob carol
	kb_expect "add-again/$t" 0 "added 1 key to '$f' (0 set new bits)" \
		add "$f" bob

	# add -v: one "new<TAB>KEY" or "known<TAB>KEY" line per key, from the
	# ADD results bitmap, in input order; no summary line.  Known keys set
	# no new bit (they were added before); new ones did.
	"$KBLOOMCTL" create -q "addv-$t" $kb_opt --bits 64Ki --k 4 --seed 3
	kb_output "add-verbose-new/$t" 0 'new\ta1\nnew\ta2\nnew\ta3' \
		add -v "addv-$t" a1 a2 a3
	kb_output "add-verbose-known/$t" 0 \
		'known\ta2\nnew\tb1\nknown\ta1\nnew\tb2\nknown\ta3' \
		add -v "addv-$t" a2 b1 a1 b2 a3
	# The per-key answers and the counters agree: add_new grows by
	# exactly the "new" lines, over batches of 7 keys.
	kb_ctl info --json "addv-$t"
	new0=$(kb_json_field add_new)
	kb_ctl add -v --batch 7 "addv-$t" -f "$kb_tmp/addv-keys" a1
	news=$(echo "$out" | grep -c '^new	')
	knowns=$(echo "$out" | grep -c '^known	')
	# Arguments come before files: a1 (known) first, then the file.
	first=$(echo "$out" | head -n 1)
	order=$(echo "$out" | cut -f 2 | tail -n 100 |
		cmp - "$kb_tmp/addv-keys" && echo same)
	kb_ctl info --json "addv-$t"
	kb_why="new $news known $knowns first '$first' order '$order', add_new $new0 -> $(kb_json_field add_new)"
	[ $((news + knowns)) -eq 101 ] && [ "$order" = same ] &&
		[ "$first" = "$(printf 'known\ta1')" ] &&
		[ "$(kb_json_field add_new)" -eq $((new0 + news)) ] &&
		[ "$news" -ge 95 ]
	kb_ok "add-verbose-counts/$t"
	"$KBLOOMCTL" destroy -f -q "addv-$t"

	kb_expect "check-present/$t" 0 \
		"3 keys checked in '$f': 3 may be present, 0 definitely absent" \
		check "$f" alice bob carol
	kb_expect "check-absent/$t" 1 "2 may be present, 1 definitely absent" \
		check "$f" alice mallory bob
	kb_expect "check-quiet/$t" 1 "" check -q "$f" mallory
	kb_why="printed: $out"
	[ -z "$out" ]
	kb_ok "check-quiet-silent/$t"
	kb_output "check-verbose/$t" 1 'maybe\talice\nabsent\tmallory' \
		check -v "$f" alice mallory
	kb_output "check-print-absent/$t" 1 'mallory\ntrent' \
		check -a "$f" alice mallory bob trent
	kb_output "check-print-maybe/$t" 1 'alice\nbob' check -m "$f" alice mallory bob

	kb_expect "add-files/$t" 0 "added 3 keys" \
		add "$f" -f "$kb_tmp/keys1" -f "$kb_tmp/keys2"
	kb_expect_sh "add-stdin/$t" 0 "added 2 keys" \
		"printf 'gina\\nhank\\n' | $KBLOOMCTL add $f"
	kb_expect_sh "check-stdin/$t" 0 "4 may be present" \
		"printf 'alice\\ndave\\nfrank\\ngina\\n' | $KBLOOMCTL check $f -f -"
	kb_info "add-counted/$t" "$f" add_calls=9 add_new=8

	kb_expect "clear/$t" 0 "cleared filter '$f'" clear "$f"
	kb_info "clear-resets/$t" "$f" add_calls=0 bits_set=0
	kb_expect "clear-forgets/$t" 1 "" check -q "$f" alice

	kb_expect "create-rep/$t" 0 "" create -q "rep-$t" --capacity 1000 $kb_opt
	kb_expect "report/$t" 0 "observed false-positive rate 3%" \
		report "rep-$t" --fp 3 --tp 50 --tn 97
	kb_expect "report-adds/$t" 0 \
		"totals 4 false positives, 50 true positives, 196 true negatives" \
		report "rep-$t" --fp 1 --tn 99
	kb_info "report-info/$t" "rep-$t" reported_fp=4 reported_tn=196 \
		observed_fp_ppb=20000000
	kb_expect "report-over-max/$t" 2 \
		"cannot report to filter 'rep-$t': one report may carry at most 4294967296 answers (KBLOOM_REPORT_MAX; --fp + --tp + --tn); split it into several reports" \
		report "rep-$t" --fp 1 --tn 4294967296
	kb_info "report-over-max-records-nothing/$t" "rep-$t" reported_fp=4 \
		reported_tn=196
	kb_expect "report-info-table/$t" 0 "fp observed     2%" info "rep-$t"
done
kb_expect report-bad 2 "invalid count 'x'" report "rep-$t" --fp x
kb_expect create-reserved 2 "the name 'total_bytes' is reserved" \
	create total_bytes --capacity 10

# The byte caps count all a filter holds, its cells and the rest: 8 KiB of
# cells pass either cap set to leave 8 KiB, and the message names the cap.
params=/sys/module/kbloom/parameters
saved_cap=$(cat "$params/max_filter_bytes")
echo 8192 >"$params/max_filter_bytes"
kb_expect create-over-filter-cap 2 \
	"filter 'capped' needs 8.00 KiB of cells and the rest it holds, over the module's limit of 8.00 KiB per filter (ask for less, or raise it: echo BYTES > $params/max_filter_bytes)" \
	create capped --bits 65536
echo "$saved_cap" >"$params/max_filter_bytes"
saved_cap=$(cat "$params/max_total_bytes")
echo $(($(cat /sys/class/kbloom/total_bytes) + 8192)) \
	>"$params/max_total_bytes"
kb_expect create-over-total-cap 2 \
	"filter 'capped' needs 8.00 KiB of cells and the rest it holds, but only 8.00 KiB of the module's" \
	create capped --bits 65536
echo "$saved_cap" >"$params/max_total_bytes"

# list --names: every filter, sorted.
kb_ctl list --names
kb_why="$out"
[ "$out" = "$(for t in $kb_types; do
	printf 'bpk-%s\nrep-%s\nsized-%s\nusers-%s\n' "$t" "$t" "$t" "$t"
done | sort)" ]
kb_ok list-names

# A seed above 2^53 is printed as a JSON string, digit for digit: jq and
# JavaScript round a number that large (to 11814326417431808000), and a
# filter created with the rounded seed would not combine with this one.
kb_expect create-big-seed 0 "created filter 'bigseed'" \
	create bigseed --bits 8Ki --k 3 --seed 11814326417431807788
kb_expect info-json-seed-string 0 '"seed":"11814326417431807788"' \
	info --json bigseed
# What a script reads back creates a filter that combines with it.
kb_run "$KBLOOMCTL" create -q bigseed2 --bits 8Ki --k 3 \
	--seed "$(kb_json_string seed)"
kb_expect info-json-seed-round-trip 0 "" merge bigseed2 bigseed
kb_destroy bigseed2 bigseed

# --- keys are bytes --------------------------------------------------------
# NUL-delimited input keeps newlines; \r is part of a key.  kbloomctl reads
# the keys, whatever the type.
kb_expect create-bin 0 "" create bin --capacity 100000 --seed 7
kb_expect_sh add-nul 0 "added 3 keys" \
	"printf 'a\\0b\\nc\\0d\\r\\0' | $KBLOOMCTL add bin -0"
kb_expect_sh check-nul-newline-in-key 0 "" \
	"printf 'b\\nc\\0' | $KBLOOMCTL check bin -0 -q"
kb_expect_sh check-newline-splits 1 "" \
	"printf 'b\\nc\\n' | $KBLOOMCTL check bin -q"
kb_expect check-cr-exact 1 "" check -q bin d
kb_expect_sh check-cr-kept 0 "" "printf 'd\\r\\n' | $KBLOOMCTL check bin -q"
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

# --- delete: where the type can, and refused where it cannot ---------------
# Large filters for their few keys (a false positive about 1e-6 a check,
# a fixed seed), so that every answer is exact.
kb_keys 1 20 >"$kb_tmp/k20"
kb_keys 1 10 >"$kb_tmp/first"
kb_keys 11 20 >"$kb_tmp/second"
kb_keys 101 110 >"$kb_tmp/never"
# shellcheck disable=SC2086
for t in $kb_types; do
	kb_type "$t"
	f=cnt-$t
	"$KBLOOMCTL" create -q "$f" --capacity 1000 --fp 1e-6 --seed 21 $kb_opt
	"$KBLOOMCTL" add -q "$f" -f "$kb_tmp/k20"
	if [ "$kb_delete" -eq 0 ]; then
		kb_ctl info --json "$f"
		before=$out
		kb_expect "delete-refused/$t" 2 \
			"filter '$f' is not a counting filter: delete needs one (create it with --counting)" \
			delete "$f" k1
		kb_expect_sh "delete-refused-no-keys/$t" 2 "is not a counting filter" \
			"printf '' | $KBLOOMCTL delete $f"
		kb_ctl info --json "$f"
		kb_why="before $before; after $out"
		[ "$out" = "$before" ] && [ "$(kb_json_field delete_calls)" = 0 ]
		kb_ok "delete-refused-unchanged/$t"
		kb_expect "delete-refused-keeps-keys/$t" 0 "" check -q "$f" -f "$kb_tmp/k20"
		continue
	fi
	kb_expect "delete/$t" 0 "10 of 10 keys removed from '$f' (0 not present)" \
		delete "$f" -f "$kb_tmp/first"
	kb_expect "deleted-absent/$t" 1 "0 may be present, 10 definitely absent" \
		check "$f" -f "$kb_tmp/first"
	kb_expect "others-kept/$t" 0 "10 may be present, 0 definitely absent" \
		check "$f" -f "$kb_tmp/second"
	kb_expect "delete-absent/$t" 1 "0 of 10 keys removed from '$f' (10 not present)" \
		delete "$f" -f "$kb_tmp/never"
	kb_expect "delete-again/$t" 1 "0 of 1 key removed from '$f' (1 not present)" \
		delete "$f" k1
	kb_expect "delete-mixed/$t" 1 "1 of 2 keys removed from '$f' (1 not present)" \
		delete "$f" k11 nope
	kb_output "delete-verbose/$t" 1 'removed\tk12\nabsent\tnope' \
		delete -v "$f" k12 nope
	kb_expect "delete-quiet/$t" 0 "" delete -q "$f" k13
	kb_why="printed: $out"
	[ -z "$out" ]
	kb_ok "delete-quiet-silent/$t"
	kb_expect_sh "delete-stdin-nul/$t" 0 "2 of 2 keys removed" \
		"printf 'k14\\0k15\\0' | $KBLOOMCTL delete $f -0"
	kb_expect "delete-stats/$t" 0 "deleted 1 keys in 1 ioctls" \
		delete --stats "$f" k16
	# 10 + 10 + 1 + 2 + 2 + 1 + 2 + 1 keys deleted, 10 + 1 + 1 + 1 + 2 + 1
	# of them removed; the table and list say the same.
	kb_info "info-delete-counters/$t" "$f" delete_calls=29 delete_hits=16 \
		add_calls=20
	kb_expect "info-table-deletes/$t" 0 "deletes         29 keys, 16 removed" \
		info "$f"
	kb_expect "list-json-deletes/$t" 0 \
		"\"name\":\"$f\",\"node\":\"/dev/kbloom/$f\",\"type\":\"$t\"" list --json
	kb_why="no delete_calls 29, delete_hits 16 for $f: $out"
	echo "$out" | grep "\"name\":\"$f\"" | grep -q '"delete_calls":29,"delete_hits":16'
	kb_ok "list-json-delete-counters/$t"

	# Every added key deleted once: the counters are all back to 0.
	kb_expect "delete-rest/$t" 0 "4 of 4 keys removed" delete "$f" k17 k18 k19 k20
	kb_info "delete-all-empties/$t" "$f" bits_set=0
	kb_expect "empty-after/$t" 1 "0 may be present, 20 definitely absent" \
		check "$f" -f "$kb_tmp/k20"
	# A key added twice needs two deletes.
	"$KBLOOMCTL" add -q "$f" twice twice
	kb_expect "twice-first/$t" 0 "1 of 1 key removed" delete "$f" twice
	kb_expect "twice-still-there/$t" 0 "" check -q "$f" twice
	kb_expect "twice-second/$t" 0 "1 of 1 key removed" delete "$f" twice
	kb_expect "twice-gone/$t" 1 "" check -q "$f" twice
done

# --- errors: missing filters, permissions --------------------------------
# The module is loaded, so a missing filter is "no such filter" (libkbloom's
# kbl_error_message(); without the module it says that instead, see
# test-kbloomctl-cli.sh and userspace/test_messages.c).
for c in "add nope k" "check nope k" "delete nope k" "info nope" "clear nope" \
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
# control node is root's alone.  The node's rights, whatever the type: the
# first type's filters.
t0=${kb_types%% *}
grep -q '^nobody:' /etc/passwd 2>/dev/null ||
	echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
# kb_nobody CASE RC TEXT ARGS...: kb_expect, as the user nobody.
kb_nobody() {
	kb_case=$1
	kb_rc=$2
	kb_text=$3
	shift 3
	kb_run su -s /bin/sh nobody -c "$KBLOOMCTL $*"
	kb_judge "$kb_case" "$kb_rc" "$kb_text"
}
kb_nobody perm-filter 2 \
	"permission denied: /dev/kbloom/users-$t0 is mode 0600, owner root" \
	add "users-$t0" k
kb_nobody perm-control 2 \
	"permission denied: /dev/kbloom-control is mode 0600, owner root" \
	create x --capacity 10
kb_nobody perm-destroy 2 "permission denied: /dev/kbloom-control" \
	destroy "users-$t0"
# With the control node writable by everyone, the filter's own right
# still decides: nobody may not destroy root's 0600 filter.
ctl_mode=$(stat -c %a /dev/kbloom-control)
chmod 0666 /dev/kbloom-control
kb_nobody perm-destroy-filter-right 2 \
	"cannot destroy filter 'users-$t0': permission denied: it belongs to root (/dev/kbloom/users-$t0 mode 0600, owner root, group 0); only its owner, a user who may write /dev/kbloom/users-$t0, or root (CAP_SYS_ADMIN) can destroy it" \
	destroy "users-$t0"
kb_why="/dev/kbloom/users-$t0 is gone"
[ -c "/dev/kbloom/users-$t0" ]
kb_ok perm-destroy-filter-right-kept
# Names are one namespace: nobody, allowed to create, takes a name first.
# root's create says whose it is, and load --create will not fill it.
kb_nobody squat-create 0 "" create "squat-$t0" --bits 8Ki --mode 0666
kb_expect squat-create-root 2 \
	"filter 'squat-$t0' exists and is not yours: nobody created it (/dev/kbloom/squat-$t0 mode 0666, owner nobody, group
names are shared by every user who may create filters); choose another name, or have its owner or root destroy it" \
	create "squat-$t0" --bits 8Ki
"$KBLOOMCTL" save -q "sized-$t0" "$kb_tmp/squat.kbloom"
"$KBLOOMCTL" add -q "squat-$t0" planted
kb_expect squat-load-create 2 \
	"filter 'squat-$t0' exists and is not yours: nobody created it
load --create loads only into a filter of yours or one it creates (load without --create to load into it anyway)" \
	load --create "squat-$t0" "$kb_tmp/squat.kbloom"
kb_expect squat-untouched 0 "maybe" check -v "squat-$t0" planted
kb_expect squat-destroy-root 0 "" destroy -q "squat-$t0"
chmod "$ctl_mode" /dev/kbloom-control
# 0644: others may check and read info, not add.
"$KBLOOMCTL" add -q "sized-$t0" s1
kb_nobody perm-read-allowed 0 "" check -q "sized-$t0" s1
kb_nobody perm-write-denied 2 \
	"permission denied: /dev/kbloom/sized-$t0 is mode 0644, owner root (this needs write access" \
	add "sized-$t0" s2
kb_nobody perm-list 0 "users-$t0" list
# Statistics of a filter others may not read are root's in sysfs: nobody's
# list shows its geometry and "-" for them, and a 0644 one's in full.
kb_run su -s /bin/sh nobody -c "$KBLOOMCTL list"
kb_why="rc $rc: $out $err"
[ "$rc" -eq 0 ] &&
	echo "$out" | grep -qE "^users-$t0 +[0-9]+ .* +- +- +- +$t0\$" &&
	echo "$out" | grep -E "^sized-$t0 +[0-9]+ .* $t0( +saturated)?\$" | grep -qv ' - '
kb_ok perm-list-stats-hidden
kb_nobody perm-list-json-stats-hidden 0 '"statistics":false,"generations":0' \
	list --json
kb_why="rc $rc: $out"
echo "$out" | tr '{' '\n' | grep "\"name\":\"sized-$t0\"" |
	grep -q '"statistics":true,"est_keys":'
kb_ok perm-list-json-stats-shown

# --- check through the mapping and through ioctls -------------------------
# check maps the filter when it can; --no-map asks through ioctls.  Both
# must print the same bytes and exit alike, for every type and every output
# mode.  The module's check_calls tell which way each one went: mapped
# checks do not pass through it.
seq 2 2 2000 >"$kb_tmp/map-in"
seq 1 4000 >"$kb_tmp/map-all"
tr '\n' '\0' <"$kb_tmp/map-all" >"$kb_tmp/map-all0"

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

# mappings: the filter's mappings, from sysfs.
mappings() {
	cat "/sys/class/kbloom/$f/mappings"
}

# shellcheck disable=SC2086
for t in $kb_types; do
	kb_type "$t"
	f=map-$t
	kb_run "$KBLOOMCTL" create "$f" --capacity 1000 --seed 7 $kb_opt &&
		kb_run "$KBLOOMCTL" add -q "$f" -f "$kb_tmp/map-in"
	kb_why="setup: rc $rc: $err"
	[ "$rc" -eq 0 ]
	kb_ok "map-setup/$t"

	map_same "map-same-present/$t" "$f" -f "$kb_tmp/map-in"
	map_same "map-same-absent/$t" "$f" -f "$kb_tmp/map-all"
	map_same "map-same-args/$t" "$f" 2 4 6 3
	for mode in -v -a -m -q; do
		map_same "map-same$mode/$t" "$f" "$mode" -f "$kb_tmp/map-all"
	done
	map_same "map-same-0/$t" "$f" -0 -v -f "$kb_tmp/map-all0"
	map_same "map-same-missing/$t" "${f}x" 1
	kb_ctl check -v "$f" -f "$kb_tmp/map-in"
	kb_why="rc $rc, $(echo "$out" | grep -c '^maybe') maybe lines"
	[ "$rc" -eq 0 ] && [ "$(echo "$out" | grep -c '^maybe	')" -eq 1000 ]
	kb_ok "map-no-false-negatives/$t"

	c0=$(cat "/sys/class/kbloom/$f/check_calls")
	kb_ctl check -q "$f" -f "$kb_tmp/map-all"
	c1=$(cat "/sys/class/kbloom/$f/check_calls")
	kb_ctl check -q --no-map "$f" -f "$kb_tmp/map-all"
	c2=$(cat "/sys/class/kbloom/$f/check_calls")
	kb_why="check_calls $c0 -> $c1 (mapped) -> $c2 (--no-map)"
	[ "$c1" -eq "$c0" ] && [ "$c2" -eq $((c1 + 4000)) ]
	kb_ok "map-used-by-default/$t"
	kb_expect "map-stats-no-ioctls/$t" 0 "checked 1000 keys in 0 ioctls" \
		check -s "$f" -f "$kb_tmp/map-in"

	# A check waiting for more keys holds its mapping: info counts it,
	# and says the checks through it are not counted; --json always has
	# it.
	kb_info "info-json-no-mappings/$t" "$f" mappings=0
	rm -f "$kb_tmp/map-fifo"
	mkfifo "$kb_tmp/map-fifo"
	"$KBLOOMCTL" check -q "$f" -f "$kb_tmp/map-fifo" &
	map_pid=$!
	exec 8>"$kb_tmp/map-fifo"
	echo 2 >&8
	# The checker maps before it reads; wait for the mapping to show.
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ "$(mappings)" -gt 0 ] && break
		sleep 0.2
	done
	kb_expect "info-shows-mappings/$t" 0 \
		"mappings        1 (checks through them are not counted above)" \
		info "$f"
	exec 8>&-
	wait "$map_pid"
	map_rc=$?
	kb_why="check through the fifo exited $map_rc"
	[ "$map_rc" -eq 0 ]
	kb_ok "map-fifo-check/$t"
	kb_why="mappings $(mappings) after the check ended"
	[ "$(mappings)" -eq 0 ]
	kb_ok "mappings-gone-after-exit/$t"
done

# --- scalable filters: they grow as keys come ----------------------------
# Made for 1000 keys and given 10 times that, a scalable filter adds
# sub-filters (with expansion 2 they hold 1000, 2000, 4000 and 8000 new
# keys: 4 of them for the 10000, fewer only by the keys that were false
# positives when they came), and every key is still found.  Windows do not
# grow.  What a scalable filter refuses says so.
kb_numbers 1 10000 >"$kb_tmp/grow-keys"
# shellcheck disable=SC2086
for t in $kb_types; do
	[ "$t" = window ] && continue
	kb_type "$t"
	f=grow-$t
	kb_expect "scalable-create/$t" 0 \
		"created scalable ${kb_word}filter '$f': " \
		create "$f" --capacity 1000 --fp 1% --expansion 2 --seed 9 $kb_opt
	kb_info "scalable-info-created/$t" "$f" expansion=2 subfilters=1 \
		capacity=1000 fp_target_ppb=10000000 type="$t"
	kb_expect "scalable-add/$t" 0 "added 10000 keys to '$f'" \
		add "$f" -f "$kb_tmp/grow-keys"
	kb_ctl info --json "$f"
	subs=$(kb_json_field subfilters)
	listed=$(echo "$out" | grep -o '"index":[0-9]*' | wc -l)
	kb_why="subfilters '$subs', $listed listed: $out"
	[ "$rc" -eq 0 ] && [ "${subs:-0}" -gt 1 ] && [ "$listed" -eq "$subs" ] &&
		[ "$(kb_json_field expansion)" = 2 ]
	kb_ok "scalable-grows/$t"
	kb_expect "scalable-info-table/$t" 0 "$(kb_lines \
		"capacity        1000 keys in the first sub-filter" \
		"expansion       2 (each next sub-filter holds 2 times the last)" \
		"sub-filters     $subs of at most " \
		"    SUB       CAPACITY           KEYS" \
		"      0           1000 ")" info "$f"
	kb_expect "scalable-no-false-negatives/$t" 0 \
		"10000 keys checked in '$f': 10000 may be present, 0 definitely absent" \
		check "$f" -f "$kb_tmp/grow-keys"
	kb_ctl list
	kb_why="$out"
	echo "$out" | grep -qE "^$f .* $t \(scalable, expansion 2, $subs sub-filters\)\$"
	kb_ok "scalable-list/$t"
	kb_expect "scalable-list-json/$t" 0 \
		"\"name\":\"$f\",\"node\":\"/dev/kbloom/$f\",\"type\":\"$t\"" list --json
	kb_why="no expansion 2, subfilters $subs for $f: $out"
	echo "$out" | tr '{' '\n' | grep "\"name\":\"$f\"" |
		grep -q "\"expansion\":2,\"subfilters\":$subs,"
	kb_ok "scalable-list-json-fields/$t"
	kb_expect "scalable-save/$t" 0 "saved filter '$f' to $kb_tmp/grow.kbloom" \
		save "$f" "$kb_tmp/grow.kbloom"
	kb_expect "scalable-load-create/$t" 0 \
		"loaded $kb_tmp/grow.kbloom into new scalable filter 'copy-$f' (expansion 2, $subs sub-filters)" \
		load --create "copy-$f" "$kb_tmp/grow.kbloom"
	kb_expect "scalable-load-no-false-negatives/$t" 0 \
		"10000 keys checked in 'copy-$f': 10000 may be present, 0 definitely absent" \
		check "copy-$f" -f "$kb_tmp/grow-keys"
	kb_expect "scalable-load-into-fixed-refused/$t" 2 \
		"holds a scalable filter's image (version 4: $t, capacity 1000, fp 1%, expansion 2, seed " \
		load "sized-$t" "$kb_tmp/grow.kbloom"
	"$KBLOOMCTL" destroy -q "copy-$f"
	kb_expect "scalable-intersect-refused/$t" 2 \
		"cannot intersect filter '$f': a scalable filter cannot be intersected" \
		intersect "$f" "sized-$t"
	# A counting one takes no merge at all, before any other check.
	if [ "$t" = counting ]; then
		why="cannot merge into filter '$f': a counting scalable filter takes no merge"
	else
		why="filters '$f' and 'sized-$t' are not compatible: '$f' is scalable and 'sized-$t' is not"
	fi
	kb_expect "scalable-merge-fixed-refused/$t" 2 "$why" merge "$f" "sized-$t"
	"$KBLOOMCTL" destroy -q "$f"
done

# --- destroy -------------------------------------------------------------
for t in $kb_types; do
	kb_expect "destroy/$t" 0 "destroyed filter 'users-$t'" destroy "users-$t"
	kb_why="node left behind"
	[ ! -e "/dev/kbloom/users-$t" ] && [ ! -e "/sys/class/kbloom/users-$t" ]
	kb_ok "destroy-node/$t"
done
# Every filter left, in one command.
left=$("$KBLOOMCTL" list --names)
# shellcheck disable=SC2086
kb_expect destroy-many 0 "destroyed filter 'bpk-$t0'" destroy $left
kb_ctl list --names
kb_why="left: $out"
[ -z "$out" ]
kb_ok destroy-all

kb_finish
