MODULES += analysis
analysis_C := analysis/sweep.c analysis/names.c analysis/demangle.c analysis/input.c analysis/load.c \
  analysis/load_meta.c analysis/load_scan.c analysis/load_run_files.c analysis/iter_range.c \
  analysis/table.c analysis/run.c \
  analysis/cli.c analysis/results_csv.c analysis/cmd_overlap.c analysis/cmd_breakdown.c \
  analysis/cmd_diagnose.c analysis/diagnose_facts.c analysis/diagnose_evidence.c analysis/diagnose_verdicts.c \
  analysis/diagnose_rules.c analysis/diagnose_report.c analysis/cmd_timeline.c analysis/cmd_perfetto.c analysis/cmd_compare.c \
  analysis/cmd_sweep.c analysis/nsys.c analysis/nsys_path.c analysis/nsys_nccl.c analysis/nsys_lanes.c \
  analysis/nsys_nvtx.c analysis/nsys_query.c analysis/nsys_meta.c analysis/nsys_scan.c analysis/nsys_iters.c \
  analysis/sqlite_lib.c analysis/cmd_import.c analysis/match.c analysis/p2p_channels.c analysis/peers.c \
  analysis/json.c analysis/kineto.c analysis/kineto_args.c analysis/kineto_events.c analysis/kineto_files.c \
  analysis/kineto_records.c analysis/kineto_hta.c analysis/kineto_comm.c analysis/kineto_nsys.c analysis/clock_note.c analysis/iters.c analysis/window.c

PROGRAMS += trilap-analyze
trilap-analyze_C := analysis/main.c
trilap-analyze_DEPS := analysis probes runtime
# __cxa_demangle (analysis/demangle.c) is libstdc++'s; SQLite, which reads
# nsys exports, is loaded at run time (analysis/sqlite_lib.h: -ldl, no
# libsqlite3-dev needed to build); PyTorch profiler (Kineto) traces are
# read by a JSON reader of trilap's own (analysis/json.c): no library
TL_AN_LDLIBS := -lstdc++ -ldl
trilap-analyze_LDLIBS += $(TL_AN_LDLIBS)

HOST_TESTS += test_analysis test_analysis_cli test_plots test_multirank
TEST_HELPERS += helper_synth_trace
helper_synth_trace_DEPS := probes runtime
test_analysis_DEPS := analysis probes runtime
test_analysis_cli_DEPS := analysis probes runtime
test_plots_DEPS := analysis probes runtime
test_multirank_DEPS := analysis probes runtime
test_analysis_LDLIBS += $(TL_AN_LDLIBS)
test_analysis_cli_LDLIBS += $(TL_AN_LDLIBS)
test_plots_LDLIBS += $(TL_AN_LDLIBS)
test_multirank_LDLIBS += $(TL_AN_LDLIBS)

# `make demo`: the three-stream microbenchmark traced on every visible GPU
# (or the committed H200 traces without a GPU), analysed and plotted.
DEMO_OUT ?= demo-out
demo: $(BIN)/trilap-analyze $(BIN)/trilap-solve $(if $(filter trilap-bench,$(PROGRAMS)),$(BIN)/trilap-bench)
	TL_BIN=$(BIN) scripts/demo.sh --out $(DEMO_OUT)

# `make plots`: render the committed results under results/ into plots/out,
# the check runs' folders left out (wave3-checks-*, device-session-*,
# device-logs: render-plots.sh --help); PLOTS_ALL=1 renders them too.
PLOTS_OUT ?= plots/out
plots: $(BIN)/trilap-analyze
	TL_BIN=$(BIN) $(if $(filter 1,$(HAVE_GNUPLOT)),TL_GNUPLOT=$(GNUPLOT)) scripts/render-plots.sh --results results --out $(PLOTS_OUT)$(if $(filter 1,$(PLOTS_ALL)), --all)

# Nsight Systems exports: the kern_sum cross-check on real H200 exports
HOST_TESTS += test_nsys
test_nsys_DEPS := analysis probes runtime
test_nsys_LDLIBS += $(TL_AN_LDLIBS) $(SQLITE_LIBS)
$(BUILD)/tests/test_nsys: $(BIN)/trilap-analyze

# clock alignment across ranks (probes/clock_align.c): host-only ranks with
# an artificial skew, aligned back by trilap-analyze
HOST_TESTS += test_clock_align
test_clock_align_DEPS := analysis probes runtime
test_clock_align_LDLIBS += $(TL_AN_LDLIBS)
TEST_HELPERS += helper_clock_skew
helper_clock_skew_DEPS := probes runtime
$(BUILD)/tests/test_clock_align: $(BUILD)/tests/helper_clock_skew $(BIN)/trilap-analyze

# Perfetto export loaded back and every event checked
HOST_TESTS += test_perfetto
test_perfetto_DEPS := analysis probes runtime
test_perfetto_LDLIBS += $(TL_AN_LDLIBS)
$(BUILD)/tests/test_perfetto: $(BUILD)/tests/helper_clock_skew $(BIN)/trilap-analyze

# the GPU injection test runs trilap-analyze on what the injection wrote
$(BUILD)/tests/test_gpu_probes: $(BIN)/trilap-analyze

# the injection traces of PyTorch and CuPy (results/foreign-h200) analysed
HOST_TESTS += test_foreign
test_foreign_DEPS := runtime
$(BUILD)/tests/test_foreign: $(BIN)/trilap-analyze

# the JSON reader the Kineto reader parses with (analysis/json.c)
HOST_TESTS += test_json
test_json_DEPS := analysis

# PyTorch profiler (Kineto) traces: HTA's figures on ../shared/data/kineto,
# the records, bad traces refused
HOST_TESTS += test_kineto
test_kineto_DEPS := analysis probes runtime
test_kineto_LDLIBS += $(TL_AN_LDLIBS)
$(BUILD)/tests/test_kineto: $(BIN)/trilap-analyze

# libFuzzer build of the Kineto reader (the reader's files instrumented,
# the rest of trilap linked from its libraries); `make fuzz`, and built with
# the tests when available so test_fuzz_kineto can run it.
FUZZ_KINETO := $(BUILD)/fuzz/fuzz_kineto
FUZZ_KINETO_SRC := tests/fuzz_kineto.c analysis/json.c analysis/kineto.c analysis/kineto_args.c analysis/kineto_events.c \
  analysis/kineto_files.c analysis/kineto_records.c analysis/kineto_hta.c \
  analysis/kineto_comm.c analysis/p2p_channels.c analysis/clock_note.c
# (the libraries by path: MODULE_LIB is defined in mk/rules.mk, read after
# this fragment, and prerequisites expand as they are read)
$(FUZZ_KINETO): $(call fuzz_objs,$(FUZZ_KINETO_SRC)) \
  $(BUILD)/lib/libtl_analysis.a $(BUILD)/lib/libtl_probes.a $(BUILD)/lib/libtl_runtime.a
	$(say) FUZZ $@
	$(Q)$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $(filter %.o,$^) -Wl,--start-group $(call MODULE_LIB,analysis) \
	  $(call MODULE_LIB,probes) $(call MODULE_LIB,runtime) -Wl,--end-group $(TL_AN_LDLIBS) \
	  $(if $(filter 1,$(HAVE_ZLIB)),-lz) $(LDLIBS_OMP) -lpthread -lm -ldl
fuzz: $(FUZZ_KINETO)
ifeq ($(HAVE_FUZZ),1)
tests: $(FUZZ_KINETO)
endif
HOST_TESTS += test_fuzz_kineto
test_fuzz_kineto_DEPS := runtime

# a Kineto trace of any size from a shared one (scripts/bench-kineto.sh,
# test_kineto's bounded-memory test)
TEST_HELPERS += helper_kineto_big
helper_kineto_big_DEPS := analysis runtime
$(BUILD)/tests/test_kineto: $(BUILD)/tests/helper_kineto_big

# a PyTorch pipeline's sends and recvs paired with their other end
HOST_TESTS += test_kineto_p2p
test_kineto_p2p_DEPS := probes runtime
$(BUILD)/tests/test_kineto_p2p: $(BIN)/trilap-analyze

# a process group's operations paired on its ranks at a trace's sizes:
# groups of thousands of ranks, ranks in hundreds of groups, many steps
HOST_TESTS += test_kineto_groups
test_kineto_groups_DEPS := probes runtime
$(BUILD)/tests/test_kineto_groups: $(BIN)/trilap-analyze

# point-to-point operations paired with the rank's peers (the trace's
# peers.N metadata), and the peers trilap-solve and trilap-fdtd write
HOST_TESTS += test_peers
test_peers_DEPS := probes runtime
