#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make install DESTDIR=D on the build host: everything lands under D and
# nothing outside it changes (the live /lib/modules/KVER above all, whose
# modules.dep a stray depmod would rewrite); then the one version (the
# top-level VERSION file) is what the module, dkms.conf, kbloomctl, the
# installed library (a program built with the installed .pc and header),
# the .pc file and the man page all say.  Needs the module built (make
# all), so make check runs it after its build part.

kb_suite=install
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/vm/kbloomctl-lib.sh"

version=$(cat "$top/VERSION")
kdir=$(cd "$top" && sh scripts/kdir)
kver=${KVER:-$(basename "$kdir" | sed -n 's/^linux-headers-//p')}
live=/lib/modules/$kver
dest=$kb_tmp/root
mkdir -p "$dest"

# What may change outside DESTDIR: a listing (name, size, mtime) of the
# live module tree and of the default install directories.
snapshot() {
	for d in "$live" /usr/local/bin /usr/local/lib /usr/local/include \
		 /usr/local/share/man/man1 /etc/udev/rules.d; do
		[ -d "$d" ] && find "$d" -path "$live/build" -prune -o \
			-printf '%p %s %T@\n'
	done | sort
}

if [ -z "$kver" ] || [ ! -d "$live" ]; then
	kb_run true
	echo "SKIP: $kb_suite/live-untouched: no $live on this host"
	before=
else
	before=$(snapshot)
	dep_before=$(stat -c %Y "$live/modules.dep" 2>/dev/null)
fi

kb_run make -C "$top" install DESTDIR="$dest"
kb_why="exit $rc: $(echo "$err" | tail -n 3 | tr '\n' ' ')"
[ "$rc" -eq 0 ]
kb_ok make-install

if [ -n "$before" ]; then
	after=$(snapshot)
	kb_why="changed outside DESTDIR: $(printf '%s\n' "$before" >"$kb_tmp/b"
		printf '%s\n' "$after" >"$kb_tmp/a"
		diff "$kb_tmp/b" "$kb_tmp/a" | grep '^[<>]' | head -n 4 |
			tr '\n' ' ')"
	[ "$before" = "$after" ]
	kb_ok live-untouched
	kb_why="modules.dep mtime $dep_before, now $(stat -c %Y "$live/modules.dep" 2>/dev/null)"
	[ "$dep_before" = "$(stat -c %Y "$live/modules.dep" 2>/dev/null)" ]
	kb_ok live-modules-dep-untouched
fi

# Everything under DESTDIR, where the defaults (PREFIX /usr/local,
# UDEVDIR /etc/udev/rules.d) put it.
# The module as kbuild installs it: compressed where the kernel's config
# says so (6.12's Debian config: kbloom.ko.xz).
ko=$(ls "$dest/lib/modules/$kver/extra/kbloom.ko"* 2>/dev/null | head -n 1)
ko=${ko#"$dest/"}
missing=
for f in "${ko:-lib/modules/$kver/extra/kbloom.ko}" \
	 "lib/modules/$kver/modules.dep" \
	 usr/local/bin/kbloomctl usr/local/lib/libkbloom.a \
	 "usr/local/lib/libkbloom.so.$version" usr/local/lib/libkbloom.so.0 \
	 usr/local/lib/libkbloom.so usr/local/include/kbloom.h \
	 usr/local/include/linux/kbloom.h \
	 usr/local/lib/pkgconfig/libkbloom.pc \
	 usr/local/share/man/man1/kbloomctl.1 \
	 etc/udev/rules.d/60-kbloom.rules; do
	[ -e "$dest/$f" ] || missing="$missing $f"
done
kb_why="missing under DESTDIR:$missing"
[ -z "$missing" ]
kb_ok destdir-complete
kb_why="modules.dep: $(cat "$dest/lib/modules/$kver/modules.dep" 2>&1)"
grep -qE '^extra/kbloom\.ko(\.[a-z]+)?:' \
	"$dest/lib/modules/$kver/modules.dep" 2>/dev/null
kb_ok destdir-depmod
# The companion test module is built beside kbloom.ko but is the tests'.
extra=$(find "$dest" -name 'kbloom_kapi_test*' 2>/dev/null)
kb_why="installed: $extra"
[ -z "$extra" ]
kb_ok destdir-no-test-module

# One version everywhere.
kb_run modinfo -F version "$top/kbloom.ko"
kb_why="modinfo kbloom.ko version '$out' (VERSION $version)"
[ "$out" = "$version" ]
kb_ok version-module
kb_run modinfo -F version "$dest/${ko:-lib/modules/$kver/extra/kbloom.ko}"
kb_why="installed module version '$out'"
[ "$out" = "$version" ]
kb_ok version-module-installed

# dkms.conf is a bash fragment (arrays) that DKMS sources.
dkms=$(kernelver=$kver dkms_tree=/var/lib/dkms bash -c \
	'. "$1/dkms.conf" && echo "$PACKAGE_VERSION"' sh "$top")
kb_why="dkms.conf PACKAGE_VERSION '$dkms'"
[ "$dkms" = "$version" ]
kb_ok version-dkms

kb_run "$dest/usr/local/bin/kbloomctl" --version
kb_why="kbloomctl --version: $out"
[ "$(echo "$out" | head -n 1)" = "kbloomctl $version" ]
kb_ok version-kbloomctl

# The man page's title line names the version too.
th=$(sed -n 's/^\.TH KBLOOMCTL 1 [^ ]* "kbloom \([^"]*\)".*/\1/p' \
	"$dest/usr/local/share/man/man1/kbloomctl.1")
kb_why="man page .TH says kbloom '$th'"
[ "$th" = "$version" ]
kb_ok version-man-page

pc="$dest/usr/local/lib/pkgconfig"
kb_run env PKG_CONFIG_PATH="$pc" PKG_CONFIG_SYSROOT_DIR="$dest" \
	pkg-config --modversion libkbloom
kb_why="pkg-config --modversion: '$out' $err"
[ "$out" = "$version" ]
kb_ok version-pkgconfig

# A program built against the installed header and library alone, with
# the flags the installed .pc gives, asks the library its version.
cat >"$kb_tmp/v.c" <<'EOF'
#include <stdio.h>
#include <kbloom.h>

int main(void)
{
	puts(kbl_version());
	return 0;
}
EOF
flags=$(PKG_CONFIG_PATH="$pc" PKG_CONFIG_SYSROOT_DIR="$dest" \
	pkg-config --cflags --libs libkbloom)
# Word splitting of $flags is wanted.
# shellcheck disable=SC2086
kb_run ${CC:-cc} -o "$kb_tmp/v" "$kb_tmp/v.c" $flags
kb_why="build against the installed library: $err"
[ "$rc" -eq 0 ]
kb_ok installed-library-builds
kb_run env LD_LIBRARY_PATH="$dest/usr/local/lib" "$kb_tmp/v"
kb_why="kbl_version() '$out' $err"
[ "$out" = "$version" ]
kb_ok version-library

kb_finish
