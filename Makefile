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
#   make install       build for the running kernel (or KDIR) and install into
#                      /lib/modules/<release>/extra, run depmod; honours
#                      INSTALL_MOD_PATH (or DESTDIR) for a staging tree
#   make dkms-install  copy the source to /usr/src/kiw-<version>, dkms add,
#                      build and install it for the running kernel (or
#                      KERNELRELEASE=...); rebuilt by DKMS on kernel updates
#   make dkms-remove   dkms remove it from every kernel, delete the copy
#   make dkms-tarball  build, and pack a DKMS tarball with the source and the
#                      binary module ("dkms ldtarball" on machines without a
#                      compiler)
#   make kunit         only the KUnit suites (debug kernel in QEMU)
#   make vmtest T=name only the VM test scripts/tests/<name>.sh (T= empty: all)
#   make vmpair        only kiw between two VMs, Debian's 6.1 and 7.2, over a
#                      virtio-net link (VMPAIR_ARGS="--server K --client K")
#   make static        only the W=1 build, sparse and checkpatch
#   make deps          install the Debian packages the above need
#   make clean

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
SCRIPTS := $(TOP)/scripts

# The version has one home, VERSION; dkms.conf and MODULE_VERSION read it.
VERSION := $(shell cat $(TOP)/VERSION)

# "make install" is for the running kernel, everything else defaults to
# Debian's 6.12 headers (what the tests use).
RUNNING_KDIR := /lib/modules/$(shell uname -r)/build
ifeq ($(origin KDIR),undefined)
ifneq ($(filter install,$(MAKECMDGOALS)),)
KDIR := $(RUNNING_KDIR)
else
KDIR := $(shell $(SCRIPTS)/kdir.sh 2>/dev/null)
endif
endif
KREL := $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
BUILD := $(TOP)/build/$(KREL)

# A staging tree for packagers: INSTALL_MOD_PATH, or DESTDIR.
INSTALL_MOD_PATH ?= $(DESTDIR)
# Installed without debug information, as distributions do (INSTALL_MOD_STRIP=
# keeps it): 0.4 MB instead of 14.
INSTALL_MOD_STRIP ?= 1
# dkms-install: the kernel to build for (dkms -k).
KERNELRELEASE ?= $(shell uname -r)
DKMS_SRC := /usr/src/kiw-$(VERSION)
# What DKMS needs of the tree (Kbuild descends into kunit/ when the kernel
# has KUnit).
DKMS_FILES := $(shell sed -e 's/\#.*//' $(TOP)/scripts/dkms.files)

.PHONY: all modules install dkms-install dkms-remove dkms-tarball clean deps \
	demo check static kunit vmtest vmpair bench

all: modules

modules:
	@if [ -z "$(KREL)" ]; then \
		echo "kiw: no kernel build tree (KDIR='$(KDIR)')."; \
		echo "kiw: run 'make deps' for Debian's 6.12 headers, or pass KDIR=/lib/modules/\$$(uname -r)/build"; \
		exit 1; \
	fi
	$(SCRIPTS)/kbuild.sh $(KDIR) $(BUILD) modules
	@echo "kiw: built $(BUILD)/drivers/infiniband/sw/kiw/kiw.ko for $(KREL)"

# kbuild's own depmod needs System.map, which headers packages lack: run
# depmod here, on the running system, or on a staging tree that holds the
# kernel's modules (a tree with only kiw in it is left to the packager).
install: modules
	$(SCRIPTS)/kbuild.sh $(KDIR) $(BUILD) modules_install INSTALL_MOD_DIR=extra \
		INSTALL_MOD_STRIP=$(INSTALL_MOD_STRIP) \
		$(if $(INSTALL_MOD_PATH),INSTALL_MOD_PATH=$(abspath $(INSTALL_MOD_PATH)))
	@if [ -z "$(INSTALL_MOD_PATH)" ]; then \
		echo "depmod -a $(KREL)"; depmod -a $(KREL); \
	elif [ -f "$(INSTALL_MOD_PATH)/lib/modules/$(KREL)/modules.builtin" ]; then \
		echo "depmod -a -b $(INSTALL_MOD_PATH) $(KREL)"; \
		depmod -a -b "$(INSTALL_MOD_PATH)" $(KREL); \
	else \
		echo "kiw: $(INSTALL_MOD_PATH) has no module tree for $(KREL): depmod left to the package"; \
	fi

dkms-install: dkms-remove
	mkdir -p $(DKMS_SRC)
	cd $(TOP) && cp -R $(DKMS_FILES) $(DKMS_SRC)/
	dkms add -m kiw -v $(VERSION)
	dkms build -m kiw -v $(VERSION) -k $(KERNELRELEASE)
	dkms install -m kiw -v $(VERSION) -k $(KERNELRELEASE)

# Whatever an earlier dkms-install of this version left: every kernel.
dkms-remove:
	@if dkms status -m kiw -v $(VERSION) 2>/dev/null | grep -q .; then \
		echo "dkms remove -m kiw -v $(VERSION) --all"; \
		dkms remove -m kiw -v $(VERSION) --all; \
	fi
	rm -rf $(DKMS_SRC)

dkms-tarball: modules
	$(SCRIPTS)/dkms-tarball.sh $(KREL) $(BUILD)/drivers/infiniband/sw/kiw/kiw.ko \
		$(TOP)/build/kiw-$(VERSION)-$(KREL).dkms.tar.gz

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

vmpair:
	$(SCRIPTS)/vm-pair.sh $(VMPAIR_ARGS)

bench:
	BENCH_QUICK=$(BENCH_QUICK) $(SCRIPTS)/bench.sh $(BENCH_ARGS)

clean:
	rm -rf $(TOP)/build
