#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`, inside the VM: kbloomctl's demo on the real device (a filter
# sized for 1,000 keys at 1 %; every added key must be found again; 10,000
# absent keys measure the false-positive rate beside target and theory),
# then that filter's statistics exactly as sysfs shows them.  Exits
# non-zero if the demo failed or the filter cannot be destroyed.
set -u

echo "== kbloomctl demo --keep"
kbloomctl demo --keep || exit 1

# The same statistics with nothing but the shell: every one is a plain
# sysfs file holding one value.
echo
echo "== cat /sys/class/kbloom/demo/*"
for f in /sys/class/kbloom/demo/*; do
	# kbloom's attributes only: not subdirectories, links or the files
	# every device has (dev, uevent).
	case ${f##*/} in dev | uevent) continue ;; esac
	if [ ! -f "$f" ] || [ -L "$f" ]; then
		continue
	fi
	value=$(cat "$f" 2>/dev/null) || value="(not readable)"
	printf '%-24s %s\n' "${f##*/}" "$value"
done

echo
echo "== kbloomctl destroy demo"
kbloomctl destroy demo
