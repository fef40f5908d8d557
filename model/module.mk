# model/: trilap-model, predictions at scale on SimGrid (model/README.md).
# Layering: model/ reads runtime/ (schedules), solvers/ (matrices,
# partitions), probes/ (trace reader) and its own files; nothing below includes model/.
MODULES += model
model_C := model/job.c model/sim.c model/sim_actors.c model/sim_comm.c model/sim_platform.c \
  model/sim_reason.c model/simgrid_lib.c model/platform.c model/calib.c model/calib_trace.c model/calib_machine.c model/partstats.c model/partstats_block.c model/jobs.c \
  model/fit.c model/paper.c model/cli.c model/cmd_calibrate.c model/cmd_tristream.c model/cmd_solver.c \
  model/cmd_fdtd.c model/cmd_platform.c

PROGRAMS += trilap-model
trilap-model_C := model/main.c
trilap-model_DEPS := model solvers probes runtime
# SimGrid loaded when a subcommand simulates (model/simgrid_lib.h), not
# linked: its run path alone, where SIMGRID_HOME gives one
MODEL_SIMGRID_LDLIBS := $(filter-out -lsimgrid,$(SIMGRID_LIBS))
trilap-model_LDLIBS += $(MODEL_SIMGRID_LDLIBS)

# the engine's known answers, the schedules' order, invalid platforms
HOST_TESTS += test_model
test_model_DEPS := model solvers probes runtime
test_model_LDLIBS += $(MODEL_SIMGRID_LDLIBS)
$(BUILD)/tests/test_model: $(BIN)/trilap-model

# The scale benchmark: 256 ranks x 100 Pipe-PCG iterations per schedule;
# the `sim` column is the seconds each simulation took (reported, never
# asserted; the target is under 2 minutes on a 2-core machine).
bench-model: $(BIN)/trilap-model
	$(BIN)/trilap-model solver --platform a100-hdr --gpus 256 --matrix gen:poisson7:256 --iters 100
.PHONY: bench-model
