# Test binaries are declared by each folder's module.mk:
#   HOST_TESTS += test_trace     (tests/test_trace.c)   test_trace_DEPS := probes runtime
#   GPU_TESTS  += test_gpu_nccl  (tests/gpu/test_gpu_nccl.c or .cu)
#   TEST_HELPERS += helper_x     (programs tests spawn, built with the tests)
#   GPU_TEST_HELPERS += helper_y (the same, needing CUDA: built only with nvcc)
HOST_TESTS += test_error
test_error_DEPS := runtime

# NVTX ranges as a tool sees them (a fake tool through NVTX3's static
# injection): NVTX-only probes, nesting under a tracing session.
HOST_TESTS += test_probes_nvtx
test_probes_nvtx_DEPS := probes runtime

# scripts/demo.sh on one GPU (tests/data/demo-1gpu), the live one-GPU path
# with stand-ins, a failing step named; needs bin/trilap-analyze (make all).
HOST_TESTS += test_demo
test_demo_DEPS :=

# scripts/install-deps.sh with stand-in dpkg-query/apt-get/sudo/id on PATH,
# and the Makefile hook that runs it for `make check` / `make demo`.
HOST_TESTS += test_install_deps
test_install_deps_DEPS :=

# trilap's NVTX domain read back from a real Nsight Systems sqlite export
# (tests/data/nsys-tristream-1gpu.sqlite.gz); needs libsqlite3 (mk/config.mk's
# SQLite feature).
ifeq ($(HAVE_SQLITE),1)
HOST_TESTS += test_nsys_trilap
test_nsys_trilap_DEPS := probes runtime
test_nsys_trilap_LDLIBS := $(SQLITE_LIBS)
endif

# The GPU benchmarks' host side: scripts/solver-log.awk's roofline figures
# on a known output, scripts/bench-solver-roof.sh's VARIANTS with stand-in
# binaries (each variant's options, its summary rows, bad entries refused).
HOST_TESTS += test_bench_scripts
test_bench_scripts_DEPS :=

# issue 32, no false verdicts and no silent garbage: the solvers' verdict
# against b - A x over every shared matrix, generator and method on 1 and
# 3 ranks; bad and edge inputs of every reader; interrupted writers.
HOST_TESTS += test_reliability_solve
test_reliability_solve_DEPS :=
HOST_TESTS += test_reliability_input
test_reliability_input_DEPS :=
test_reliability_input_LDLIBS := $(SQLITE_LIBS)
HOST_TESTS += test_reliability_interrupt
test_reliability_interrupt_DEPS := runtime

# The same for the trace reader with a run folder's rank set, and for the
# Nsight Systems sqlite reader (tests/fuzz_trace.c, tests/fuzz_nsys.c):
# analysis/, the trace reader and what they use of runtime/, built whole
# with the sanitizers.
FUZZ_AN_SRC := $(filter-out analysis/main.c,$(analysis_C)) probes/trace.c probes/trace_read.c probes/trace_write.c \
  runtime/error.c runtime/role.c runtime/results.c runtime/out.c runtime/tmpfile.c runtime/hostmem.c runtime/options.c \
  runtime/options_values.c runtime/options_store.c runtime/options_help.c runtime/options_outputs.c \
  runtime/clock.c runtime/progress.c runtime/gzin.c runtime/dl.c
FUZZ_TRACE := $(BUILD)/fuzz/fuzz_trace
FUZZ_NSYS := $(BUILD)/fuzz/fuzz_nsys
$(FUZZ_TRACE) $(FUZZ_NSYS): $(BUILD)/fuzz/%: $(BUILD)/fuzz/obj/tests/%.o $(call fuzz_objs,$(FUZZ_AN_SRC))
	$(say) FUZZ $@
	$(Q)$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $(filter %.o,$^) $(SQLITE_LIBS) $(if $(filter 1,$(HAVE_ZLIB)),-lz) -lstdc++ -lpthread -lm -ldl
FUZZ_AN := $(FUZZ_TRACE) $(if $(filter 1,$(HAVE_SQLITE)),$(FUZZ_NSYS))
fuzz: $(FUZZ_AN)
ifeq ($(HAVE_FUZZ),1)
tests: $(FUZZ_AN)
endif

# A user's first hour (issue 31) without a GPU: every program's --help and
# every listed option, one-line errors, trilap-fdtd run --grid 32, compare
# on solver results, progress lines, old option names. A script that
# answers --list / NAME as the test binaries do; needs bin/ (make all).
HOST_TEST_SCRIPTS += tests/test_firsthour.sh
HOST_TEST_SCRIPTS += tests/test_structure.sh
# tests/run.sh on a stand-in binary: the run's temporary folder removed
# after a pass, kept and named after a failure.
HOST_TEST_SCRIPTS += tests/test_runner.sh
# The lent-GPU session scripts and the Slurm templates dry-run under
# stand-ins: no GPU refused before anything is made, a failed step named in
# the last line with exit 1.
HOST_TEST_SCRIPTS += tests/test_cluster_scripts.sh


# What a program leaves when it stops short: a cut row, a signal, a
# stuck rank, a crashed claimer (the second review of runtime/, probes/).
HOST_TESTS += test_reliability_abort
test_reliability_abort_DEPS := probes runtime
