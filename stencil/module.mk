# stencil/: 3D FDTD acoustic solver with CPML (arXiv 2606.06910)
MODULES += stencil
stencil_C := stencil/model.c stencil/grid.c stencil/memneed.c stencil/fill.c stencil/cpu.c stencil/exchange.c \
  stencil/solver.c stencil/verify.c stencil/cuda.c stencil/cuda_exchange.c stencil/cuda_devcomm.c
stencil_CU := stencil/fdtd_kernels.cu
# the --kernel table and the CPML cut of its vector kernels; the z-column kernels
stencil_C += stencil/kernels.c stencil/cpml_cut.c
stencil_CU += stencil/fdtd_vec.cu stencil/fdtd_zcol.cu $(foreach t,f d,$(foreach n,8 16 32,stencil/fdtd_zcol_$(t)$(n).cu))

PROGRAMS += trilap-fdtd
trilap-fdtd_C := stencil/fdtd_main.c stencil/fdtd_verify_main.c stencil/fdtd_cli.c stencil/fdtd_run_checks.c
# run's parts (stencil/fdtd_run_impl.h)
trilap-fdtd_C += stencil/fdtd_run_config.c stencil/fdtd_run_refusals.c stencil/fdtd_run_outputs.c \
  stencil/fdtd_run_rank.c stencil/fdtd_run_one.c
# verify's parts (stencil/verify_impl.h)
trilap-fdtd_C += stencil/verify_opts.c stencil/verify_refusals.c stencil/verify_lists.c stencil/verify_report.c \
  stencil/verify_wave_steps.c stencil/verify_decomp.c stencil/verify_energy.c stencil/verify_reflection.c stencil/verify_time.c stencil/verify_convergence.c
trilap-fdtd_DEPS := stencil probes runtime

HOST_TESTS += test_fdtd test_fdtd_cli
test_fdtd_DEPS := stencil probes runtime
test_fdtd_cli_DEPS := stencil probes runtime

GPU_TESTS += test_gpu_fdtd test_gpu_fdtd_ranks
test_gpu_fdtd_DEPS := stencil probes runtime
test_gpu_fdtd_ranks_DEPS := runtime
# the GPU tests run the program too
$(BUILD)/tests/test_gpu_fdtd: $(BIN)/trilap-fdtd
$(BUILD)/tests/test_gpu_fdtd_ranks: $(BIN)/trilap-fdtd
$(BUILD)/tests/test_fdtd_cli: $(BIN)/trilap-fdtd
