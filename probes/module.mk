MODULES += probes
probes_C := probes/trace.c probes/trace_write.c probes/trace_read.c \
  probes/probes.c probes/probes_host.c probes/probes_nvtx.c probes/probes_cupti.c \
  probes/probes_convert.c probes/probes_owner.c probes/clock_align.c probes/session.c \
  probes/rank_claim.c probes/peers.c
probes_CU :=

# libtrilap-probes.so: the probes and what they use of the runtime (error
# reporting, folder creation, agreeing across ranks), for programs outside this tree. Shared
# libraries link with --no-undefined, so a missing piece fails the build.
SHLIBS += trilap-probes
trilap-probes_C := runtime/error.c runtime/results.c runtime/out.c runtime/tmpfile.c runtime/role.c runtime/clock.c runtime/comm.c \
  runtime/provenance.c runtime/command.c runtime/gzin.c
trilap-probes_DEPS := probes

# libtrilap-inject.so: CUDA_INJECTION64_PATH library; links neither the CUDA
# runtime nor NCCL (the driver and NCCL are looked up in the traced process).
SHLIBS += trilap-inject
trilap-inject_C := probes/inject.c runtime/error.c runtime/results.c runtime/out.c runtime/tmpfile.c runtime/role.c runtime/clock.c runtime/comm.c \
  runtime/provenance.c runtime/command.c runtime/gzin.c
trilap-inject_DEPS := probes
# only InitializeInjection is for the driver: the rest stays inside
trilap-inject_LDLIBS := -Wl,--exclude-libs,ALL

HOST_TESTS += test_trace test_probes_host
test_trace_DEPS := probes runtime
test_probes_host_DEPS := probes runtime
# inject_rank_from_torchrun loads the injection library as the driver would
test_probes_host_LDLIBS := -ldl
$(BUILD)/tests/test_probes_host: $(BUILD)/lib/libtrilap-inject.so $(BUILD)/tests/helper_inject_args
# a process of any command line with the injection library loaded (the trace's args)
TEST_HELPERS += helper_inject_args
helper_inject_args_LDLIBS := -ldl

# GPU tests: kernels on registered streams, drops, injection, nsys-style
# subscriber. helper_inject_target is the unmodified NCCL program the
# injection test traces; it does not link the probes.
GPU_TESTS += test_gpu_probes test_gpu_multirank
# ranks sharing one GPU, traced: attribution, host-staged communication counted
test_gpu_multirank_C := tests/gpu/test_gpu_multirank.c
test_gpu_multirank_DEPS := runtime
test_gpu_probes_C := tests/gpu/test_gpu_probes.c
test_gpu_probes_CU := tests/gpu/test_gpu_probes_kernels.cu
test_gpu_probes_DEPS := probes runtime
GPU_TEST_HELPERS += helper_inject_target
helper_inject_target_C := tests/gpu/helper_inject_target.c
helper_inject_target_CU := tests/gpu/helper_inject_target_kernels.cu
# the GPU test spawns these: build them with it (make check-gpu builds no helpers)
$(BUILD)/tests/test_gpu_probes: $(BUILD)/tests/helper_inject_target $(BUILD)/lib/libtrilap-inject.so
