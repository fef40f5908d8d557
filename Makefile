# trilap top-level Makefile. `make help` lists the targets and what was found.
.DEFAULT_GOAL := all
SHELL := /bin/bash
BUILD ?= build
BIN   ?= bin
PREFIX ?= /usr/local
WERROR ?= 1
OPT ?= -O2
V ?= 0

comma := ,
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
-include tests/module.mk

include mk/rules.mk
