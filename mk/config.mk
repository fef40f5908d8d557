# Feature detection. Each feature is auto-detected unless forced with
# FEATURE=0 (off) or FEATURE=1 (required: a missing one stops the build).
# The result lands in build/config.h (TL_HAVE_*) and in `make help`.
#
# Every make reads this, the tests' own makes too (some 50 in make check),
# and each $(shell) is a process (about 0.55 s of CPU a make on the 2-core
# VM, all told): what only `make help` prints, the versions of MPI, NCCL,
# PETSc and SimGrid, is read when it prints it (`=`, not `:=`). A tool
# looked up on PATH (`GNUPLOT ?= $(shell command -v gnuplot)`) is made
# simple right after (`GNUPLOT := $(GNUPLOT)`; a value given on the
# command line or in the environment kept): a `?=` is expanded again at
# every use, and config.h's text (mk/rules.mk's CONFIG_BODY), exported to
# every recipe, names MPIRUN and GNUPLOT, two shells a recipe, 875 of the
# 2,218 shells make started in a CI build of `all tests` (CUDA_HOME set).

CUDA_HOME ?= $(firstword $(wildcard /usr/local/cuda) $(patsubst %/bin/nvcc,%,$(shell command -v nvcc 2>/dev/null)))
CUDA_HOME := $(CUDA_HOME)
NVCC      ?= $(if $(CUDA_HOME),$(wildcard $(CUDA_HOME)/bin/nvcc))
# sm_90 (H100/H200) and sm_80 (A100). In CI (CI=true, as GitHub Actions,
# GitLab and most runners set it) the CUDA code is only compiled, never
# run: one architecture, and PTX alone (CUDA_CODE=compute: the front end,
# NVVM and the PTX, without ptxas's machine code, which was half of nvcc's
# time on the FDTD kernels; a GPU would still run it, compiled at load).
# CUDA_ARCH=... and CUDA_CODE=sm on the command line still win.
# CUDA_FAST_COMPILE (min|mid|max, nvcc's --Ofast-compile, CUDA 12.8 and
# later; empty: off) trades the device code's speed for compile time:
# CI never runs that code, and with `mid` the FDTD z-column kernels took
# 2.4 s where they took 29-31 s (PTX, 13.0, one core). Off elsewhere: a
# build that runs its kernels keeps nvcc's full optimisation.
ifeq ($(CI),true)
  CUDA_ARCH ?= 90
  CUDA_CODE ?= compute
  CUDA_FAST_COMPILE ?= mid
endif
CUDA_FAST_COMPILE ?=
CUDA_ARCH ?= 90 80
CUDA_CODE ?= sm

# feature_check(NAME, found-value): sets HAVE_NAME to 1/0, honouring NAME=0/1.
define feature_check
ifeq ($$($(1)),0)
  HAVE_$(1) := 0
else ifneq ($(2),)
  HAVE_$(1) := 1
else ifeq ($$($(1)),1)
  $$(error $(1)=1 was asked for but $(3) was not found)
else
  HAVE_$(1) := 0
endif
endef

$(eval $(call feature_check,CUDA,$(NVCC),nvcc (set CUDA_HOME or put nvcc on PATH)))

ifeq ($(HAVE_CUDA),1)
  CUDA_INC := $(CUDA_HOME)/include
  CUDA_LIBDIR := $(firstword $(wildcard $(CUDA_HOME)/lib64/libcudart.so $(CUDA_HOME)/lib/libcudart.so))
  CUDA_LIBDIR := $(patsubst %/,%,$(dir $(CUDA_LIBDIR)))
  CUDA_VERSION_STR := $(shell $(NVCC) --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')
  # the level nvcc is given: --Ofast-compile came with 12.8, an older nvcc
  # compiles at full optimisation
  CUDA_FAST_COMPILE_ON := $(if $(strip $(CUDA_FAST_COMPILE)),$(if $(filter 1,$(shell echo '$(CUDA_VERSION_STR)' | \
    awk -F. '{ print ($$1 > 12 || ($$1 == 12 && $$2 >= 8)) ? 1 : 0 }')),$(strip $(CUDA_FAST_COMPILE))))
  NCCL_H := $(firstword $(wildcard $(NCCL_HOME)/include/nccl.h /usr/include/nccl.h $(CUDA_INC)/nccl.h))
  NCCL_LIB := $(firstword $(wildcard $(NCCL_HOME)/lib/libnccl.so /usr/lib/x86_64-linux-gnu/libnccl.so /usr/lib/x86_64-linux-gnu/libnccl.so.2 $(CUDA_LIBDIR)/libnccl.so))
  CUPTI_H := $(firstword $(wildcard $(CUDA_INC)/cupti.h $(CUDA_HOME)/extras/CUPTI/include/cupti.h))
  CUPTI_LIB := $(firstword $(wildcard $(CUDA_LIBDIR)/libcupti.so $(CUDA_HOME)/extras/CUPTI/lib64/libcupti.so))
  # cuSPARSE ships with the toolkit; the solvers' CUDA backend compiles
  # against its header and loads its library for --spmv cusparse
  # (solvers/backends/cuda/cusparse_lib.h)
  CUSPARSE_H := $(wildcard $(CUDA_INC)/cusparse.h)
  ifeq ($(CUSPARSE_H),)
    $(error CUDA at $(CUDA_HOME) has no include/cusparse.h (the solvers' CUDA backend needs it); build with CUDA=0)
  endif
endif
$(eval $(call feature_check,NCCL,$(and $(NCCL_H),$(NCCL_LIB)),NCCL (nccl.h and libnccl.so; set NCCL_HOME)))
$(eval $(call feature_check,CUPTI,$(and $(CUPTI_H),$(CUPTI_LIB)),CUPTI (cupti.h and libcupti.so)))
NVTX_H := $(if $(CUDA_INC),$(wildcard $(CUDA_INC)/nvtx3/nvToolsExt.h))
$(eval $(call feature_check,NVTX,$(NVTX_H),NVTX3 headers ($(CUDA_HOME)/include/nvtx3)))

MPICC ?= $(shell command -v mpicc 2>/dev/null)
MPICC := $(MPICC)
$(eval $(call feature_check,MPI,$(MPICC),mpicc (install libopenmpi-dev)))
ifeq ($(HAVE_MPI),1)
  MPI_CFLAGS := $(shell $(MPICC) --showme:compile 2>/dev/null || $(MPICC) -show -c 2>/dev/null | cut -d' ' -f2-)
  MPI_LIBS   := $(shell $(MPICC) --showme:link 2>/dev/null || $(MPICC) -show 2>/dev/null | cut -d' ' -f2-)
  MPI_VERSION_STR = $(shell mpirun --version 2>/dev/null | head -n1)
  MPIRUN ?= $(shell command -v mpirun 2>/dev/null)
  MPIRUN := $(MPIRUN)
endif

METIS_H := $(firstword $(wildcard $(METIS_HOME)/include/metis.h /usr/include/metis.h /usr/local/include/metis.h))
$(eval $(call feature_check,METIS,$(METIS_H),METIS 5 (install libmetis-dev)))

ZLIB_OK := $(shell pkg-config --exists zlib 2>/dev/null && echo yes)
$(eval $(call feature_check,ZLIB,$(ZLIB_OK),zlib (install zlib1g-dev)))

# sqlite3.h: the tests that write Nsight Systems exports of their own;
# trilap-analyze loads the library when it reads one (analysis/sqlite_lib.h)
SQLITE_H := $(firstword $(wildcard $(SQLITE_HOME)/include/sqlite3.h /usr/include/sqlite3.h /usr/local/include/sqlite3.h))
$(eval $(call feature_check,SQLITE,$(SQLITE_H),sqlite3 (install libsqlite3-dev)))
SQLITE_LIBS := $(if $(filter 1,$(HAVE_SQLITE)),$(if $(SQLITE_HOME),-L$(SQLITE_HOME)/lib) -lsqlite3)

# SimGrid: the engine of trilap-model (model/); without it the program says so
SIMGRID_H := $(firstword $(wildcard $(SIMGRID_HOME)/include/simgrid/actor.h /usr/include/simgrid/actor.h /usr/local/include/simgrid/actor.h))
$(eval $(call feature_check,SIMGRID,$(SIMGRID_H),SimGrid (install libsimgrid-dev)))
SIMGRID_LIBS := $(if $(filter 1,$(HAVE_SIMGRID)),$(if $(SIMGRID_HOME),-L$(SIMGRID_HOME)/lib -Wl$(comma)-rpath$(comma)$(SIMGRID_HOME)/lib) -lsimgrid)
SIMGRID_VERSION_STR = $(if $(filter 1,$(HAVE_SIMGRID)),$(shell sed -nE 's/^\#define SIMGRID_VERSION_(MAJOR|MINOR|PATCH) *([0-9]*).*/\2/p' $(dir $(SIMGRID_H))version.h | paste -sd. -))

# libFuzzer builds (clang with its fuzzer runtime, e.g. Debian clang +
# libclang-rt-14-dev): `make fuzz`, and built with the tests when there.
# Each source is compiled once into $(BUILD)/fuzz/obj (fuzz_objs) with
# coverage and the sanitizers, and every fuzzer that reads it links it:
# the trace and nsys fuzzers share all of analysis/, once compiled twice.
FUZZ_CC ?= clang
HAVE_FUZZ := $(shell f=$$($(FUZZ_CC) -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null); [ -f "$$f" ] && echo 1 || echo 0)
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -std=c11 -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link -I$(BUILD) -I. -D_GNU_SOURCE
# the user's LDFLAGS too (a zlib or sqlite3 in a prefix of one's own), not
# CFLAGS: the fuzzers' objects are clang's, compiled with these flags alone
FUZZ_LDFLAGS := -g $(FUZZ_SAN) -fsanitize=fuzzer$(if $(LDFLAGS), $(LDFLAGS))
fuzz_objs = $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(1))

GNUPLOT ?= $(shell command -v gnuplot 2>/dev/null)
GNUPLOT := $(GNUPLOT)
$(eval $(call feature_check,GNUPLOT,$(GNUPLOT),gnuplot (install gnuplot-nox)))

# PETSc is compiled against (its headers) and loaded by trilap-solve at
# run time, only for --backend petsc (solvers/methods/petsc_lib.h): linked,
# its ~90 libraries made every start take 134 ms. PETSC_LIBRARY is the
# shared library the link would have recorded: pkg-config's libdir and the
# SONAME of the -lpetsc* it names (libpetsc_real.so.3.18 on Debian); a
# PETSc without one (static only) counts as not found.
ifneq ($(PETSC),0)
  PETSC_PC := $(firstword $(foreach p,PETSc petsc,$(shell pkg-config --exists $(p) 2>/dev/null && echo $(p))))
endif
ifneq ($(PETSC_PC),)
  PETSC_LIBDIR := $(shell pkg-config --variable=libdir $(PETSC_PC))
  PETSC_LIB_SO := $(PETSC_LIBDIR)/lib$(patsubst -l%,%,$(firstword $(filter -lpetsc%,$(shell pkg-config --libs-only-l $(PETSC_PC))))).so
  PETSC_SONAME := $(shell objdump -p '$(PETSC_LIB_SO)' 2>/dev/null | awk '$$1 == "SONAME" { print $$2 }')
  PETSC_LIBRARY := $(firstword $(wildcard $(if $(PETSC_SONAME),$(PETSC_LIBDIR)/$(PETSC_SONAME)) $(PETSC_LIB_SO)))
endif
$(eval $(call feature_check,PETSC,$(and $(PETSC_PC),$(PETSC_LIBRARY)),PETSc (install petsc-dev: its headers and shared library)))
ifeq ($(HAVE_PETSC),1)
  ifneq ($(HAVE_MPI),1)
    $(error PETSc needs MPI; build with PETSC=0 or install MPI)
  endif
  PETSC_CFLAGS := $(shell pkg-config --cflags $(PETSC_PC))
  PETSC_VERSION_STR = $(shell pkg-config --modversion $(PETSC_PC))
endif

OPENMP ?= 1
HAVE_OPENMP := $(if $(filter 1,$(OPENMP)),1,0)

NCCL_VERSION_STR = $(if $(filter 1,$(HAVE_NCCL)),$(shell sed -nE 's/^\#define NCCL_(MAJOR|MINOR|PATCH) *([0-9]*).*/\2/p' $(NCCL_H) | paste -sd. -))
