MODULES += runtime
runtime_C := runtime/error.c runtime/check.c runtime/options.c runtime/options_values.c runtime/options_store.c \
  runtime/options_help.c runtime/options_outputs.c runtime/timing.c runtime/results.c \
  runtime/manifest.c runtime/command.c runtime/comm.c runtime/comm_threads.c runtime/comm_mpi.c runtime/launch.c runtime/gpu.c runtime/gpumem.c runtime/role.c runtime/schedule.c \
  runtime/clock.c runtime/progress.c runtime/nccl.c runtime/evtimer.c runtime/devcomm.c runtime/devcomm_nccl.c runtime/devcomm_host.c runtime/tmpfile.c runtime/out.c runtime/hostmem.c runtime/hostshare.c runtime/results_folder.c \
  runtime/provenance.c runtime/gzin.c runtime/manifest_run.c runtime/dl.c
runtime_CU :=

HOST_TESTS += test_options test_results test_manifest test_launch test_progress
test_progress_DEPS := runtime
test_options_DEPS := runtime
test_results_DEPS := runtime
test_manifest_DEPS := runtime
test_launch_DEPS := runtime
TEST_HELPERS += helper_launch
helper_launch_DEPS := runtime
GPU_TESTS += test_gpu_nccl
test_gpu_nccl_DEPS := runtime
# a GPU "test" with no tests (--list prints nothing), so that make gpu-tests builds it
GPU_TEST_HELPERS += helper_gpu_nccl
helper_gpu_nccl_DEPS := runtime
GPU_TESTS += test_gpu_runtime
test_gpu_runtime_DEPS := probes runtime
GPU_TEST_HELPERS += helper_gpu_runtime
helper_gpu_runtime_CU := tests/gpu/test_gpu_probes_kernels.cu
helper_gpu_runtime_DEPS := probes runtime
$(BUILD)/tests/test_gpu_runtime: $(BUILD)/tests/helper_gpu_runtime
