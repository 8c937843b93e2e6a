# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# kiw: iWARP (RFC 5040/5041/5044) in software, as a Linux RDMA driver.
#
#   make demo          build kiw, boot a VM, show two hosts using kiw devices
#   make check         every test: static checks, KUnit, VM end to end
#   make bench         kiw against siw and TCP in one guest (BENCH_QUICK=1:
#                      a short run; not part of check; see
#                      Documentation/benchmark.rst)
#
#   make [KDIR=dir]    build kiw.ko (default: Debian's linux-headers-6.12-amd64)
#   make install       install into /lib/modules/<release>/updates, run depmod
#   make kunit         only the KUnit suites (debug kernel in QEMU)
#   make vmtest T=name only the VM test scripts/tests/<name>.sh (T= empty: all)
#   make static        only the W=1 build, sparse and checkpatch
#   make deps          install the Debian packages the above need
#   make clean

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
SCRIPTS := $(TOP)/scripts

ifeq ($(origin KDIR),undefined)
KDIR := $(shell $(SCRIPTS)/kdir.sh 2>/dev/null)
endif
KREL := $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
BUILD := $(TOP)/build/$(KREL)

.PHONY: all modules install clean deps demo check static kunit vmtest bench

all: modules

modules:
	@if [ -z "$(KREL)" ]; then \
		echo "kiw: no kernel build tree (KDIR='$(KDIR)')."; \
		echo "kiw: run 'make deps' for Debian's 6.12 headers, or pass KDIR=/lib/modules/\$$(uname -r)/build"; \
		exit 1; \
	fi
	$(SCRIPTS)/kbuild.sh $(KDIR) $(BUILD) modules
	@echo "kiw: built $(BUILD)/drivers/infiniband/sw/kiw/kiw.ko for $(KREL)"

install: modules
	$(SCRIPTS)/kbuild.sh $(KDIR) $(BUILD) modules_install
	depmod -a $(KREL)

deps:
	$(SCRIPTS)/setup-deps.sh

demo:
	$(SCRIPTS)/demo.sh

check:
	$(SCRIPTS)/check.sh

static:
	$(SCRIPTS)/check.sh --only static

kunit:
	$(SCRIPTS)/check.sh --only kunit

vmtest:
	$(SCRIPTS)/check.sh --only vm $(if $(T),--test $(T))

bench:
	BENCH_QUICK=$(BENCH_QUICK) $(SCRIPTS)/bench.sh $(BENCH_ARGS)

clean:
	rm -rf $(TOP)/build
