# Test binaries are declared by each folder's module.mk:
#   HOST_TESTS += test_trace     (tests/test_trace.c)   test_trace_DEPS := probes runtime
#   GPU_TESTS  += test_gpu_nccl  (tests/gpu/test_gpu_nccl.c or .cu)
#   TEST_HELPERS += helper_x     (programs tests spawn, built with the tests)
#   GPU_TEST_HELPERS += helper_y (the same, needing CUDA: built only with nvcc)
HOST_TESTS += test_error
test_error_DEPS := runtime
