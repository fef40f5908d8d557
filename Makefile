# trilap top-level Makefile. `make help` lists the targets, the variables a user sets and what was found.
.DEFAULT_GOAL := all
SHELL := /bin/bash
# Every recipe (check, demo, plots) runs in the C locale, as the scripts set
# it: under a comma-decimal LANG (ssh passes it on) mawk read 1.7261e-03 as 1.
export LC_ALL := C
BUILD ?= build
BIN   ?= bin
PREFIX ?= /usr/local
# Warnings are errors with the compiler CI builds with, Debian 12's gcc 12
# (.ci/run, and so make check on such a machine); clang or another gcc has
# warnings of its own (clang 14 stopped the default build at a string
# concatenation gcc does not flag), so there they are printed and the build
# goes on. WERROR=1 or 0 decides either way.
# (-E of __clang__ __GNUC__: gcc 12 leaves the first, clang replaces both)
ifeq ($(origin WERROR),undefined)
  WERROR := $(if $(filter gcc-12,$(subst __clang__ ,gcc-,$(strip $(shell printf '__clang__ __GNUC__\n' | \
    $(CC) -E -P -x c - 2>/dev/null)))),1,0)
endif
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
