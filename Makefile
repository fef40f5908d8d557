# trilap top-level Makefile. `make help` lists the targets, the variables a user sets and what was found.
.DEFAULT_GOAL := all
SHELL := /bin/bash
# Every recipe (check, demo, plots) runs in the C locale, as the scripts set
# it: under a comma-decimal LANG (ssh passes it on) mawk read 1.7261e-03 as 1.
export LC_ALL := C
BUILD ?= build
BIN   ?= bin
PREFIX ?= /usr/local
WERROR ?= 1
OPT ?= -O2
V ?= 0

comma := ,
# `make check` and `make demo` first install the Debian packages that are
# missing (scripts/install-deps.sh, mk/debian-packages.txt: as root or with
# password-less sudo; otherwise it prints the command and the build goes on
# with what is there). It runs here, while the Makefile is read, so that
# mk/config.mk finds what it installed. TRILAP_NO_INSTALL=1 skips it.
ifneq ($(filter check demo,$(MAKECMDGOALS)),)
  ifeq ($(TRILAP_DEPS_CHECKED),)
    $(shell TRILAP_NO_INSTALL=$(TRILAP_NO_INSTALL) scripts/install-deps.sh >&2)
    export TRILAP_DEPS_CHECKED := 1
  endif
endif
include mk/config.mk

MODULES :=
PROGRAMS :=
SHLIBS :=
HOST_TESTS :=
GPU_TESTS :=
GPU_TEST_HELPERS :=
TEST_HELPERS :=
include runtime/module.mk
-include probes/module.mk
-include solvers/module.mk
-include microbench/module.mk
-include analysis/module.mk
-include stencil/module.mk
-include model/module.mk
-include tests/module.mk

include mk/rules.mk
