MODULES += solvers
solvers_C := solvers/matrix/csr.c solvers/matrix/outfile.c solvers/matrix/mmio.c solvers/matrix/binfmt.c solvers/matrix/gen.c solvers/dist/partition.c
solvers_C += solvers/matrix/mmio_src.c solvers/matrix/mmio_lex.c solvers/matrix/mmio_header.c solvers/matrix/mmio_vector.c solvers/matrix/mmio_write.c
solvers_C += solvers/dist/dist.c solvers/dist/halo.c
PROGRAMS += trilap-matgen
trilap-matgen_C := solvers/driver/matgen_main.c
trilap-matgen_DEPS := solvers runtime
HOST_TESTS += test_mmio test_binfmt test_gen test_partition
test_mmio_DEPS := solvers runtime
test_binfmt_DEPS := solvers runtime
test_gen_DEPS := solvers runtime
test_partition_DEPS := solvers runtime
# Krylov methods, backends, schedules, driver (trilap-solve)
solvers_C += solvers/backends/backend.c solvers/backends/backend_host.c solvers/methods/method.c
solvers_C += solvers/methods/method_cg.c solvers/methods/method_pipecg.c solvers/methods/method_bicgstab.c solvers/methods/method_pipebicgstab.c
solvers_C += solvers/methods/solve.c solvers/backends/scalars_host.c solvers/methods/pipecg_async.c solvers/methods/pipebicgstab_async.c solvers/methods/pipebicgstab_steps.c solvers/methods/cg_async.c
# CUDA backend (solvers/backends/cuda/README.md); the C files compile to nothing without CUDA
# (the operations: backend_cuda.c and backend_cuda_*.c, solvers/backends/cuda/backend_cuda_impl.h)
solvers_C += solvers/backends/cuda/backend_cuda.c solvers/backends/cuda/backend_cuda_events.c \
  solvers/backends/cuda/backend_cuda_vectors.c solvers/backends/cuda/backend_cuda_updates.c \
  solvers/backends/cuda/backend_cuda_dots.c solvers/backends/cuda/backend_cuda_scalars.c \
  solvers/backends/cuda/backend_cuda_spmv.c solvers/backends/cuda/backend_cuda_lifecycle.c
solvers_C += solvers/backends/cuda/memneed.c solvers/backends/cuda/fused_iterations.c solvers/backends/cuda/update_args.c solvers/backends/cuda/spmv.c solvers/backends/cuda/cusparse_lib.c solvers/backends/cuda/loop_plan.c
solvers_CU += solvers/backends/cuda/kernels.cu solvers/backends/cuda/loop_kernels.cu
# the PETSc path; PETSc's library is loaded at run time (methods/petsc_lib.h)
solvers_C += solvers/methods/petsc_solve.c solvers/methods/petsc_lib.c
EXTRA_CFLAGS_solvers_methods_petsc_solve.c := $(PETSC_CFLAGS)
EXTRA_CFLAGS_solvers_methods_petsc_lib.c := $(PETSC_CFLAGS)
PROGRAMS += trilap-solve
trilap-solve_C := solvers/driver/solve_main.c solvers/driver/solve_opts.c solvers/driver/solve_lists.c \
  solvers/driver/solve_refusals.c solvers/driver/solve_inputs.c solvers/driver/solve_runs.c solvers/driver/solve_run_paths.c
trilap-solve_DEPS := solvers probes runtime
HOST_TESTS += test_dist
test_dist_DEPS := solvers runtime
TEST_HELPERS += helper_dist
helper_dist_DEPS := solvers runtime
HOST_TESTS += test_download
test_download_DEPS := solvers runtime
# libFuzzer build of the Matrix Market reader (mk/config.mk's FUZZ_*);
# `make fuzz`, and built with the tests when available so test_fuzz_mmio
# can run it.
FUZZ_MMIO := $(BUILD)/fuzz/fuzz_mmio
FUZZ_MMIO_SRC := tests/fuzz_mmio.c solvers/matrix/mmio.c solvers/matrix/mmio_src.c solvers/matrix/mmio_lex.c solvers/matrix/mmio_header.c \
  solvers/matrix/mmio_vector.c solvers/matrix/mmio_write.c solvers/matrix/csr.c solvers/matrix/outfile.c runtime/error.c runtime/out.c runtime/tmpfile.c runtime/hostmem.c \
  runtime/gzin.c
$(FUZZ_MMIO): $(call fuzz_objs,$(FUZZ_MMIO_SRC))
	$(say) FUZZ $@
	$(Q)$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $(filter %.o,$^) $(if $(filter 1,$(HAVE_ZLIB)),-lz) -lpthread -lm
fuzz: $(FUZZ_MMIO)
ifeq ($(HAVE_FUZZ),1)
tests: $(FUZZ_MMIO)
endif
HOST_TESTS += test_fuzz_mmio
test_fuzz_mmio_DEPS := solvers runtime
test_fuzz_mmio_LDLIBS := $(SQLITE_LIBS)
.PHONY: fuzz
HOST_TESTS += test_solvers test_solve_cli test_petsc
test_solvers_DEPS := solvers probes runtime
test_solve_cli_DEPS := runtime
test_petsc_DEPS := runtime
# CUDA backend against the host backend (tests/gpu/test_gpu_solvers.c runs bin/trilap-solve)
GPU_TESTS += test_gpu_solvers
test_gpu_solvers_DEPS := runtime
HOST_TESTS += test_solve_scalars
test_solve_scalars_DEPS := runtime
# Pipe-PCG's forms against the one statement of its recurrences, iteration by iteration
HOST_TESTS += test_pipecg_forms
test_pipecg_forms_DEPS := solvers probes runtime
HOST_TESTS += test_cuda_update_entry
test_cuda_update_entry_DEPS := runtime
HOST_TESTS += test_cuda_loop_plan
test_cuda_loop_plan_DEPS := solvers runtime
HOST_TESTS += test_cusparse_lib
test_cusparse_lib_DEPS := solvers runtime
