# SPDX-License-Identifier: GPL-2.0
#
#   make                  build cfq.ko for the running kernel (its headers in
#                         /lib/modules/$(uname -r)/build, the private block/*.h
#                         from /usr/src/linux-source-X.Y.tar.xz)
#   make KVER=6.1|6.12|7.3  build cfq and the test modules against a cached
#                         Debian kernel (scripts/fetch-kernel), in its build
#                         environment (scripts/buildenv)
#   make install          install for the running kernel, like any module
#   make check            every test on every kernel (README)
#   make check-debug [KVER=6.1|6.12]  the tests on a KASAN/lockdep/kmemleak
#                         build of that kernel (6.12)
#   make demo             boot a VM and show cfq at work
#   make bench            the benchmark suite (bench/)
#   make deb              the cfq-dkms Debian package, in build/deb/ (debian/)
#   make soak KVER=K MINUTES=N  N minutes (60) of mixed churn on kernel K
#                         (6.12; 6.12-debug), not part of make check
#   make check-install    the package on an installed Debian 13 system under
#                         QEMU (scripts/check-install; not part of make check)

KERNELRELEASE ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KERNELRELEASE)/build
TOP := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))
KERNELS := $(shell awk '!/^\#/ && NF { print $$1 }' $(TOP)scripts/kernels.conf)
# the kernel series (6.12 of 6.12.118+deb13-amd64): Debian's linux-source-X.Y
KSERIES = $(shell echo '$(KERNELRELEASE)' | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')

ifeq ($(KVER),)
# looked up once, when first used (not for make clean)
BLOCK_PRIV ?= $(eval BLOCK_PRIV := $$(shell $(TOP)scripts/block-headers $(KERNELRELEASE)))$(BLOCK_PRIV)

all: modules

# The headers are checked first, as a prerequisite: the recipe of modules
# (BLOCK_PRIV) is expanded only once that has passed. DKMS runs
# 'make KERNELRELEASE=... KDIR=... modules' here (dkms.conf).
kdir-check:
	@test -f $(KDIR)/Makefile || { echo "cfq: kernel headers for $(KERNELRELEASE) not found in $(KDIR): install linux-headers-$(KERNELRELEASE)" >&2; exit 1; }

modules: kdir-check
	@test -n "$(BLOCK_PRIV)" || { echo "cfq: private block headers for $(KSERIES) not found: install linux-source-$(KSERIES)" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) BLOCK_PRIV=$(BLOCK_PRIV) modules

install: modules
	$(MAKE) -C $(KDIR) M=$(TOP) BLOCK_PRIV=$(BLOCK_PRIV) modules_install
	depmod -a $(KERNELRELEASE)
else
all modules:
	$(TOP)scripts/build-modules $(KVER)
endif

clean:
	rm -rf $(TOP).cache/build
	$(MAKE) -C $(KDIR) M=$(TOP) clean 2>/dev/null || true

setup:
	$(TOP)scripts/setup-host
	$(TOP)scripts/fetch-kernel $(KERNELS)
	$(TOP)scripts/buildenv setup

check: setup
	$(TOP)tests/run

check-debug: setup
	$(TOP)scripts/debug-kernel build $(or $(KVER),6.12)
	$(TOP)tests/run --kernel $(or $(KVER),6.12)-debug --guest-only

demo: setup
	$(TOP)scripts/demo

bench: setup
	$(TOP)bench/run $(BENCH_ARGS)

checkpatch:
	$(TOP)scripts/lint

soak: setup
	$(TOP)scripts/soak --kernel $(or $(KVER),6.12) --minutes $(or $(MINUTES),60)

deb:
	$(TOP)scripts/build-deb

check-install: setup
	$(TOP)scripts/check-install $(CHECK_INSTALL_ARGS)

.PHONY: all modules kdir-check install clean setup check check-debug demo bench checkpatch deb soak check-install
