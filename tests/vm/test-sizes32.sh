#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The filter core's size bounds with a 32-bit size_t: sizes32 (tests/vm/
# sizes32.c) is the core's geometry code built -m32, run through the
# kernel's IA32 emulation, which Debian's kernels have on.  A kernel
# without it (or booted with ia32_emulation=0) cannot run the program:
# that is a SKIP, not a pass.

out=$(sizes32 2>&1)
rc=$?
case $out in
"sizes32: size_t is 4 bytes"*)
	echo "$out"
	exit $rc
	;;
esac
if [ ! -e /proc/sys/abi/vsyscall32 ] ||
	grep -qE 'ia32_emulation=(0|false|off|n)' /proc/cmdline; then
	echo "SKIP: sizes32: this kernel runs no 32-bit programs" \
		"(no IA32 emulation)"
	exit 0
fi
echo "FAIL: sizes32: the 32-bit program did not run (exit $rc): $out"
exit 1
