#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`, inside the VM: kbloomctl's demo on the real device.  A filter
# sized for 1,000 keys at 1 %; every added key must be found again; 10,000
# absent keys measure the false-positive rate beside target and theory; the
# filter's statistics are then read back from its sysfs files.  kbloomctl
# exits non-zero unless there were no false negatives.
set -eu
kbloomctl demo
