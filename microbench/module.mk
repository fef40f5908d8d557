MODULES += microbench
microbench_C := microbench/bench_opts.c microbench/sweep.c microbench/metrics.c \
  microbench/format.c microbench/stream_host.c microbench/preamble.c \
  microbench/tristream.c microbench/stream_gpu.c microbench/comm_bench.c microbench/nccl_ops.c
microbench_CU := microbench/bench_kernels.cu

PROGRAMS += trilap-bench
trilap-bench_C := microbench/main.c
trilap-bench_DEPS := microbench probes runtime

HOST_TESTS += test_bench test_bench_cli
test_bench_DEPS := microbench probes runtime
test_bench_cli_DEPS := runtime

GPU_TESTS += test_gpu_bench
test_gpu_bench_DEPS := microbench probes runtime
