# SPDX-License-Identifier: GPL-2.0
#
# kbloom: build the module and the userspace tools, and run every test.
# The two commands a new user types first are `make demo` and `make check`.

# The kernel to build for: KDIR (a build directory) or KVER (an installed
# kernel's release); by default the running kernel's, else the newest
# installed (scripts/kdir says how it chooses).
# Both are found once, when first used (make deps needs neither).
# KBLOOM_CACHE (where scripts/btf-kdir keeps its copy) may be given on
# the command line too (DKMS does): $(shell) sees only the environment.
user_kver := $(KVER)
KDIR ?= $(eval KDIR := $(shell KVER=$(user_kver) \
	$(if $(KBLOOM_CACHE),KBLOOM_CACHE=$(KBLOOM_CACHE)) sh scripts/kdir))$(KDIR)
# The release is the headers directory's name, wherever it lives
# (scripts/kdir may hand out a copy that can make BTF, in the cache); a
# kernel built elsewhere says its own.
KVER ?= $(eval KVER := $(or \
	$(patsubst linux-headers-%,%,$(filter linux-headers-%,$(notdir $(KDIR)))),\
	$(shell $(MAKE) -s -C $(KDIR) kernelrelease 2>/dev/null)))$(KVER)
# Each kernel's modules build in a directory of their own, so that several
# kernels' builds live side by side; kbloom.ko at the top links to the last.
KOBJ = $(CURDIR)/build/kernels/$(KVER)
# KAPI_TEST=no leaves out the companion test module: DKMS (dkms.conf)
# installs kbloom.ko only, and kbloom-dkms ships no tests/.
KAPI_TEST ?= yes
PREFIX ?= /usr/local
DESTDIR ?=
MAKEFLAGS += --no-print-directory

.PHONY: all deps module module-clean userspace vm-bins install clean demo \
	check test-host test-vm kunit lint vm-shell bench bench-vm check-debug \
	check-kernels check-dkms deb check-packages

all: module userspace

deps:
	@sh scripts/deps

# kbloom.ko, then the companion test module of the in-kernel API
# (tests/kmod/), against kbloom's symbols; only tests/vm/test-kapi.sh
# loads it, `make install` leaves it out.  scripts/kbuild-module builds
# both in $(KOBJ).
# kbuild makes a module's BTF only when it relinks the .ko: one built
# earlier against headers without a vmlinux is dropped so it is relinked.
module:
	@test -n "$(KVER)" || { echo "kbloom: no kernel to build for" \
		"(KDIR=$(KDIR)); run: make deps" >&2; exit 1; }
	@for ko in $(KOBJ)/kbloom.ko $(KOBJ)/tests/kmod/kbloom_kapi_test.ko; do \
		if [ -f $(KDIR)/vmlinux ] && [ -f $$ko ] && \
		   ! readelf -S -W $$ko | grep -q ' \.BTF '; then rm -f $$ko; fi; \
	done
	KBLOOM_KAPI_TEST=$(KAPI_TEST) sh scripts/kbuild-module $(KDIR) $(KOBJ)
	ln -sfn build/kernels/$(KVER)/kbloom.ko kbloom.ko

# The module's build output only (DKMS's CLEAN): kbloom-dkms's tree has
# no userspace/ or tests/ for `make clean` to descend into.
module-clean:
	rm -rf kbloom.ko build

userspace:
	$(MAKE) -C userspace

# Static binaries for the VM's initramfs, which has no C library.
vm-bins:
	$(MAKE) -C userspace STATIC=1 OUT=$(CURDIR)/build/vm/bin
	$(MAKE) -C tests/vm OUT=$(CURDIR)/build/vm/bin

# With DESTDIR (a package's staging root) the module goes under it too
# (INSTALL_MOD_PATH) and depmod indexes only that tree (-b): neither
# touches the running system's /lib/modules.  userspace/test-install.sh
# checks it.
install: all
	$(MAKE) -C $(KDIR) M=$(KOBJ) INSTALL_MOD_PATH=$(abspath $(DESTDIR)) \
		INSTALL_MOD_DIR=extra modules_install
	depmod $(if $(DESTDIR),-b $(abspath $(DESTDIR))) -a $(KVER)
	$(MAKE) -C userspace install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

clean:
	rm -f kbloom.ko
	$(MAKE) -C userspace clean
	$(MAKE) -C tests/host clean
	$(MAKE) -C tests/vm clean
	-$(MAKE) -C bench clean
	rm -rf build

demo: deps
	@$(MAKE) module vm-bins
	@sh scripts/vm-run --timeout 300 tests/vm/demo.sh

check:
	@sh scripts/check

# The module, every VM test and the full fuzz run on a debug kernel (KASAN,
# lockdep, kmemleak, fault injection); built once into the cache, slow.
check-debug:
	@sh scripts/check-debug

# dkms.conf end to end in a DKMS tree of its own (build/dkms/): add,
# build and install for a 6.1 and a 6.12 kernel, then boot each module.
check-dkms: vm-bins
	@sh scripts/test-dkms

# kbloom-dkms, kbloomctl, libkbloom0 and libkbloom-dev from debian/, into
# build/deb/ (scripts/build-deb; installs the build dependencies as root).
deb:
	@sh scripts/build-deb

# Those packages installed, upgraded and purged in a Debian 12 root of
# their own, DKMS building for a 6.1 and a 6.12 kernel (root, slow); the
# VM part boots the modules DKMS built there with the static test programs.
check-packages: deb vm-bins
	@sh scripts/check-packages

test-host:
	@$(MAKE) -C tests/host run

test-vm: module vm-bins
	@sh scripts/vm-run --timeout 1200 tests/vm/run-all.sh

# KUnit on UML, built from each line's Debian linux-source.
# 6.1's and 6.12's sources, then the newest 7.x line's make check runs.
kunit:
	@rc=0; for l in 6.1 6.12 $$(sh scripts/debian-kernels plan | \
		sed -n 's/^full \([7-9]\.[0-9]*\)$$/\1/p' | head -n 1); do \
		sh scripts/kunit $$l || rc=1; done; exit $$rc

# The VM suite on all six of Debian 12's kernel flavours.
check-kernels:
	@sh scripts/check-kernels $(or $(LINES),$(FLAVOURS))

lint:
	@sh scripts/lint

vm-shell: module vm-bins
	@sh scripts/vm-run --shell

bench:
	@$(MAKE) -C bench run QUICK=$(QUICK)

bench-vm: module vm-bins
	@sh scripts/vm-run --timeout 1800 tests/vm/bench.sh
