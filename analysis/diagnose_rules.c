/* trilap-analyze diagnose's rules: one row each (its name, what it
 * measures, its threshold's option, its verdict, its headline and the
 * remedy for each program that writes traces), and which remedy fits a
 * rank of a program. Rules and thresholds: analysis/README.md
 * ("Diagnosis rules"). */
#include <string.h>

#include "analysis/diagnose_impl.h"

prog_kind tl_diag_prog_of(const tl_an_meta *m)
{
    static const struct {
        const char *name;
        prog_kind kind;
    } known[] = {{"trilap-solve", PROG_SOLVE}, {"trilap-bench", PROG_BENCH}, {"trilap-fdtd", PROG_FDTD}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(m->program, known[i].name)) return known[i].kind;
    return strncmp(m->clock, "kineto-host", 11) ? PROG_OTHER : PROG_TORCH;
}

remedy_kind tl_diag_remedy_kind_of(const tl_an_rank_result *r)
{
    if (tl_an_rank_host_only(r)) return REM_HOST;
    return r->n_nccl == 0 && r->n_marks > 0 ? REM_STAGED : REM_GPU;
}

/* trilap-bench's host-staging and serialised-host-lane: tristream has no
 * host path to advise (it refuses ranks without a GPU) */
/* queued-communication's: PyTorch profiler traces carry the launches it
 * needs */
#define TORCH_QUEUED                                                                                               \
    "behind compute: the process group's NCCL stream waits for the compute it was made to depend on (or shares "  \
    "its stream): depend only on the tensors the collective reads (per-bucket events, DDP's gradient buckets). "   \
    "Behind another NCCL kernel: a process group runs its operations in order on one stream, so fewer, larger "    \
    "collectives (bucket_cap_mb) or a second process group for the independent traffic let it start at launch."

#define BENCH_NO_STAGING                                                                                           \
    "tristream moves every buffer with NCCL, one GPU per rank, and stages nothing through the host: host-carried " \
    "communication in its trace comes from outside the benchmark's loop (the host ranges the evidence names)."

const rule tl_diag_rules[] = {
    {.name = "serialised-communicators", .measure = "comm_comm %", .option = "serial-overlap",
     .thr = offsetof(diag_opts, serial_overlap), .verdict = tl_diag_verdict_serial,
     .headline = "P2P and collective kernels are issued in the same iterations but never run at the same time",
     .remedy = {[PROG_SOLVE] = {.gpu = "they share one NCCL communicator, and NCCL runs the operations of a "
                                       "communicator one after the other whatever the streams. Put the collective "
                                       "on its own communicator (ncclCommSplit(comm, 0, rank, &coll_comm, NULL)), "
                                       "as the three-split schedule does."},
                [PROG_OTHER] = {.gpu = "they share one NCCL communicator, and NCCL runs the operations of a "
                                       "communicator one after the other whatever the streams. Put the collective "
                                       "on its own communicator (ncclCommSplit(comm, 0, rank, &coll_comm, NULL)) or "
                                       "process group."},
                [PROG_TORCH] = {.gpu = "they share one process group, whose NCCL communicator runs its operations "
                                       "one after the other whatever the streams. Issue the collective on a process "
                                       "group of its own (dist.new_group(ranks), created once at start-up)."},
                [PROG_BENCH] = {.gpu = "they share one NCCL communicator, and NCCL runs the operations of a "
                                       "communicator one after the other whatever the streams: two-stream and "
                                       "three-naive put the allreduce and the ring on the world communicator, which "
                                       "is what they show. three-split puts the allreduce on a communicator of its "
                                       "own (ncclCommSplit); compare with it (--variants three-naive,three-split)."}},
     .ok = "no rank has substantial NCCL p2p and coll, issued together, overlapping less than the threshold"},
    {.name = "serialised-host-lane", .measure = "comm_comm %", .option = "serial-overlap",
     .thr = offsetof(diag_opts, serial_overlap), .verdict = tl_diag_verdict_serial_host,
     .headline = "P2P and collective communication are issued on two streams but one host thread carries both, one "
                 "after the other",
     .remedy = {[PROG_SOLVE] = {.gpu = "host-staged device communication (--device-comm host) waits for each stream "
                                       "and exchanges on the rank's one host thread, so the halo and the reduction "
                                       "cannot overlap whatever the schedule. With one GPU per rank use NCCL "
                                       "(--device-comm nccl) and the three-split schedule; on a shared GPU this is "
                                       "the price of staging."},
                [PROG_OTHER] = {.gpu = "device communication staged through the host waits for each stream and "
                                       "exchanges on the rank's one host thread, so the halo and the reduction "
                                       "cannot overlap whatever the streams. With one GPU per rank let NCCL or "
                                       "CUDA-aware MPI move the device buffers, the collective on its own "
                                       "communicator; on a shared GPU this is the price of staging."},
                [PROG_BENCH] = {.gpu = BENCH_NO_STAGING}},
     .ok = "no rank's host carries both p2p and coll communication one after the other"},
    {.name = "no-comm-compute-overlap", .measure = "hidden %", .option = "hidden-min",
     .thr = offsetof(diag_opts, hidden_min), .verdict = tl_diag_verdict_nohide,
     .headline = "communication never overlaps compute",
     .remedy = {[PROG_SOLVE] = {.gpu = "if the communication kernels share the compute stream, give them their own "
                                       "stream (the p2p/coll lanes); otherwise a cudaStreamWaitEvent makes compute "
                                       "wait for the whole communication (a missing or wrong event dependency): "
                                       "wait only for the data the kernel reads.",
                                .staged = "the host carries this rank's communication (--device-comm host: copies "
                                          "to the host, the exchange on its thread, copies back), so it overlaps "
                                          "only compute kernels launched before it: launch the kernels that do not "
                                          "need its data first (the interior rows of the SpMV while the halo "
                                          "moves, the pipelined methods' SpMV under the reduction) and post the "
                                          "exchange after them; with one GPU per rank, --device-comm nccl moves "
                                          "it on streams of its own."},
                [PROG_FDTD] = {.gpu = "without --overlap the exchange starts after the whole update and the next "
                                      "step waits for it: run with --overlap (the inner points of the last local "
                                      "step are updated while the ghosts move); with it, a compute kernel that "
                                      "waits for the exchange is a wrong event dependency."},
                [PROG_OTHER] = {.gpu = "if the communication kernels share the compute stream, give them their own "
                                       "stream; otherwise a cudaStreamWaitEvent makes compute wait for the whole "
                                       "communication (a missing or wrong event dependency): wait only for the "
                                       "data the kernel reads.",
                                .staged = "the host carries this rank's communication (copies to the host, an "
                                          "exchange on the CPU, copies back), so it overlaps only compute kernels "
                                          "launched before it: launch the kernels that do not need its data first "
                                          "and exchange after them; with one GPU per rank, let NCCL or CUDA-aware "
                                          "MPI move the device buffers on streams of their own."},
                [PROG_TORCH] = {.gpu = "PyTorch runs a process group's NCCL kernels on a stream of their own, so "
                                       "nothing overlaps when the program waits for each collective as soon as it "
                                       "is issued (a blocking call, work.wait() or torch.cuda.synchronize() next): "
                                       "issue it with async_op=True and wait just before its result is used. DDP "
                                       "and FSDP overlap gradient communication with the backward pass themselves "
                                       "(DDP's gradient buckets, bucket_cap_mb; FSDP's backward_prefetch)."},
                [PROG_BENCH] = {.gpu = "in two-stream the DAXPY follows the allreduce on one stream, so only the "
                                       "ring can hide under it; three-naive and three-split give the allreduce a "
                                       "stream of its own. Where these do not overlap either, the streams share a "
                                       "hardware queue: --hw-queues 8 or more (CUDA_DEVICE_MAX_CONNECTIONS; with 1 "
                                       "nothing overlaps)."}},
     .ok = "hidden communication at or above the threshold wherever communication and compute are substantial"},
    {.name = "exposed-communication", .measure = "exposed % of W", .option = "exposed-share",
     .thr = offsetof(diag_opts, exposed_share), .verdict = tl_diag_verdict_exposed,
     .headline = "communication takes a large share of the window with no compute to hide it",
     .remedy = {[PROG_SOLVE] = {.gpu = "overlap it with work that does not need its data (interior rows of the SpMV "
                                       "while the halo moves, the pipelined methods' SpMV under the reduction); "
                                       "where the host carries it (staging), see host-staging; where ranks wait "
                                       "for each other, see late-ranks.",
                                .host = "overlap it with work that does not need its data: post the halo exchange, "
                                        "compute the interior rows of the SpMV, then wait (the pipelined methods "
                                        "hide the reduction under the SpMV likewise); where ranks wait for each "
                                        "other, see late-ranks."},
                [PROG_FDTD] = {.gpu = "update the inner points while the ghosts move (--overlap) and exchange "
                                      "less often (--s S: ghosts 2 r S deep, one exchange every S steps); where the "
                                      "host carries it (staging), see host-staging; where ranks wait for each "
                                      "other, see late-ranks.",
                               .host = "a CPU rank's one thread updates and exchanges in turn, so nothing hides "
                                       "the exchange (--overlap only updates the inner points before it: overlap's "
                                       "hidden stays 0); exchange less often (--s S: ghosts 2 r S deep, one "
                                       "exchange every S steps) or cut the grid into fewer subdomains (less "
                                       "surface per point); where ranks wait for each other, see late-ranks."},
                [PROG_OTHER] = {.gpu = "overlap it with work that does not need its data (the interior of the "
                                       "domain while its halo moves, independent work under a reduction); where "
                                       "the host carries it (staging), see host-staging; where ranks wait for each "
                                       "other, see late-ranks.",
                                .host = "overlap it with work that does not need its data: post the exchange "
                                        "(nonblocking), compute what does not need it, then wait; where ranks "
                                        "wait for each other, see late-ranks."},
                [PROG_TORCH] = {.gpu = "overlap it with work that does not need its result: issue collectives with "
                                       "async_op=True and wait just before their output is used; DDP all-reduces "
                                       "gradient buckets during the backward pass (a smaller bucket_cap_mb starts "
                                       "the first one earlier), FSDP prefetches the next all-gather "
                                       "(forward_prefetch, backward_prefetch); where ranks wait for each other, "
                                       "see late-ranks."},
                [PROG_BENCH] = {.gpu = "the allreduce (--allreduce-count) and the ring (--ring-count) have only "
                                       "the DAXPY (--daxpy-count) to hide under: alone (allreduce-only, ring-only) "
                                       "they are all exposed by design, and in two-stream the allreduce runs before "
                                       "the DAXPY on its stream; three-split can hide both. Where it stays exposed, "
                                       "the DAXPY is shorter than the communication (a larger --daxpy-count), the "
                                       "kernels serialise (see serialised-communicators) or the ranks wait for "
                                       "each other (see late-ranks)."}},
     .ok = "exposed communication stays below the threshold"},
    {.name = "late-ranks", .measure = "waiting % of comm", .option = "wait-share",
     .thr = offsetof(diag_opts, wait_share), .verdict = tl_diag_verdict_late,
     .headline = "communication operations wait for a rank that arrives late",
     .evidence = "evidence (waiting = before the last rank of the same operation started it, on the clock the "
                 "'# clock:' line states; operations matched by the collective and process group the trace names, "
                 "n-th in the iteration, else by kernel name and order):",
     .remedy = {[PROG_SOLVE] = {.gpu = "the operation cannot move data before every rank has joined it. Compare the "
                                       "ranks' compute per iteration (overlap's U_compute): a rank with more rows "
                                       "or nonzeros arrives last, so balance the partition (METIS with weights); "
                                       "equal compute means host-side delays (launch latency, staging on a shared "
                                       "GPU, OS noise).",
                                .host = "the operation cannot move data before every rank has joined it. Compare "
                                        "the ranks' time outside communication per iteration (overlap's idle / "
                                        "iters, and U_compute where its host marks its compute as compute:* "
                                        "ranges): a rank with more rows or nonzeros arrives last, so balance the "
                                        "partition (METIS with weights); equal time means host-side delays (ranks "
                                        "sharing cores, OS noise)."},
                [PROG_FDTD] = {.gpu = "the exchange cannot complete before its neighbours join it. Compare the "
                                      "ranks' compute per step (overlap's U_compute / iters): a subdomain on an "
                                      "outer face also updates the CPML slabs there (--cpml cells deep), so with "
                                      "more than two subdomains along an axis the middle ones finish first and "
                                      "wait, and a grid the cut does not divide gives some ranks a plane more; cut "
                                      "each axis in two at most where you can (2x2x2 rather than 1x1x8) and choose "
                                      "a grid --decomp divides. Equal compute means host-side delays (launch "
                                      "latency, staging on a shared GPU, OS noise).",
                               .host = "the exchange cannot complete before its neighbours join it. Compare the "
                                       "ranks' compute per step (overlap's U_compute / iters, its host's compute:* "
                                       "ranges): a subdomain on an outer face also updates the CPML slabs there "
                                       "(--cpml cells deep), so with more than two subdomains along an axis the "
                                       "middle ones finish first and wait, and a grid the cut does not divide "
                                       "gives some ranks a plane more; cut each axis in two at most where you can "
                                       "(2x2x2 rather than 1x1x8) and choose a grid --decomp divides. Equal compute "
                                       "means host-side delays (ranks x OMP_NUM_THREADS above the cores, OS "
                                       "noise)."},
                [PROG_OTHER] = {.gpu = "the operation cannot move data before every rank has joined it. Compare the "
                                       "ranks' compute per iteration (overlap's U_compute): a rank with more work "
                                       "arrives last, so give the ranks equal work; equal compute means host-side "
                                       "delays (launch latency, OS noise).",
                                .host = "the operation cannot move data before every rank has joined it. Compare "
                                        "the ranks' time outside communication per iteration (overlap's idle / "
                                        "iters, and U_compute where the host marks its compute as compute:* "
                                        "ranges): a rank with more work arrives last, so give the ranks equal "
                                        "work; equal time means host-side delays (ranks sharing cores, OS "
                                        "noise)."},
                [PROG_BENCH] = {.gpu = "the operation cannot move data before every rank has joined it, and every "
                                       "rank runs the same sizes, so a late rank is slower, not given more: "
                                       "compare the ranks' compute per iteration (overlap's U_compute / iters). A "
                                       "longer DAXPY on one rank means a slower or shared GPU (another process, "
                                       "its clocks); equal compute means host-side delays (launch latency, OS "
                                       "noise)."}},
     .ok = "no rank's matched communication waits for others at or above the threshold"},
    {.name = "queued-communication", .measure = "queued % of W", .option = "queued-share",
     .thr = offsetof(diag_opts, queued_share), .verdict = tl_diag_verdict_queued,
     .headline = "communication kernels start long after their launch, queued behind earlier work on their stream",
     .evidence = "evidence (queued = from the launch call to the kernel's start while the stream still ran earlier "
                 "work; needs the launches, which PyTorch profiler traces carry):",
     .remedy = {[PROG_SOLVE] = {.gpu = TORCH_QUEUED}, [PROG_TORCH] = {.gpu = TORCH_QUEUED}},
     .ok = "communication starts at its launch, or the trace has no launches (-)"},
    {.name = "host-staging", .measure = "host comm % of W", .option = "staging-share",
     .thr = offsetof(diag_opts, staging_share), .verdict = tl_diag_verdict_staging,
     .headline = "communication is staged through the host",
     .remedy = {[PROG_SOLVE] = {.gpu = "device to host copies, an exchange on the host and copies back cost two "
                                       "PCIe or C2C crossings and a host wait per operation. With one GPU per rank "
                                       "use NCCL (--device-comm nccl), or CUDA-aware MPI; the host path exists so "
                                       "several ranks can share one GPU."},
                [PROG_OTHER] = {.gpu = "device to host copies, an exchange on the host and copies back cost two "
                                       "PCIe or C2C crossings and a host wait per operation. With one GPU per rank "
                                       "let NCCL or CUDA-aware MPI move the device buffers; staging pays only "
                                       "where ranks share one GPU."},
                [PROG_BENCH] = {.gpu = BENCH_NO_STAGING}},
     .ok = "the host carries communication less than the threshold"},
    {.name = "starved-communication", .measure = "overlapped/alone", .option = "starve-ratio",
     .thr = offsetof(diag_opts, starve_ratio), .verdict = tl_diag_verdict_starve,
     .headline = "communication kernels take far longer while compute runs than alone",
     .evidence = "evidence (working time = end - latest start of the same operation over the ranks, so waiting for "
                 "a late peer does not count):",
     .remedy = {[PROG_SOLVE] = {.gpu = "the compute kernels occupy the SMs and memory bandwidth NCCL needs. Create "
                                       "the communication streams with a higher priority "
                                       "(cudaStreamCreateWithPriority), bound the compute grid, or give NCCL its "
                                       "own CTAs (NCCL_MIN_CTAS/NCCL_MAX_CTAS or ncclConfig_t.minCTAs/maxCTAs on "
                                       "the split communicator)."},
                /* any NCCL program's own knobs (it fell back to trilap-solve's
                 * text, "on the split communicator" that program may not have) */
                [PROG_OTHER] = {.gpu = "the compute kernels occupy the SMs and memory bandwidth NCCL needs. Run the "
                                       "communication on a stream of higher priority "
                                       "(cudaStreamCreateWithPriority), bound the compute grid, or give NCCL CTAs "
                                       "of its own (NCCL_MIN_CTAS/NCCL_MAX_CTAS, or ncclConfig_t.minCTAs/maxCTAs "
                                       "in the config the communicator is created with)."},
                [PROG_TORCH] = {.gpu = "the compute kernels occupy the SMs and memory bandwidth NCCL needs. Give "
                                       "the process group's NCCL stream a higher priority "
                                       "(ProcessGroupNCCL.Options(is_high_priority_stream=True) as "
                                       "init_process_group's pg_options) or NCCL CTAs of its own "
                                       "(NCCL_MIN_CTAS/NCCL_MAX_CTAS, or the Options' config.min_ctas/max_ctas)."},
                /* trilap-fdtd has no split communicator and no option for
                 * its streams' priorities: its exchange streams already
                 * have the greatest (stencil/README.md) */
                [PROG_FDTD] = {.gpu = "the stencil kernels occupy the SMs and memory bandwidth the exchange needs; "
                                      "its streams already have the greatest priority. Give NCCL CTAs of its own "
                                      "(NCCL_MIN_CTAS/NCCL_MAX_CTAS in the environment, for --strategy nccl and "
                                      "devcomm over --device-comm nccl), move the messages with the copy engines "
                                      "(--strategy peer or host in one process), run the exchange alone "
                                      "(without --overlap), or exchange less often (--s S: ghosts 2 r S deep, one "
                                      "exchange every S steps)."},
                [PROG_BENCH] = {.gpu = "the DAXPY occupies the SMs and memory bandwidth NCCL needs. With stream "
                                       "priorities (--priorities on, the default) NCCL's pending blocks go before "
                                       "the DAXPY's; beyond that, leave SMs free with a bounded DAXPY grid "
                                       "(--daxpy-blocks N, 1-2 x the SM count), or give three-split's communicator "
                                       "its own CTAs (--split-min-ctas, --split-max-ctas)."}},
     .ok = "no communication kernel works that much longer with compute than alone (needs --min-samples of each)"},
    {.name = "launch-bound-compute", .measure = "gap share %", .option = "launch-share",
     .thr = offsetof(diag_opts, launch_share), .verdict = tl_diag_verdict_launch,
     .headline = "the compute stream waits on kernel launches between many short kernels",
     .remedy = {[PROG_SOLVE] = {.gpu = "fuse the short kernels (e.g. the vector updates of one iteration into one "
                                       "kernel) or capture the iteration into a CUDA graph and launch it once."},
                [PROG_OTHER] = {.gpu = "fuse the short kernels or capture the iteration into a CUDA graph and "
                                       "launch it once."},
                [PROG_TORCH] = {.gpu = "fuse the short kernels (torch.compile) or capture the step into a CUDA "
                                       "graph and replay it (torch.compile(mode=\"reduce-overhead\"), "
                                       "torch.cuda.CUDAGraph)."},
                [PROG_BENCH] = {.gpu = "the DAXPY is one kernel per iteration: a short one (a small --daxpy-count) "
                                       "leaves the stream waiting on its launches; time larger vectors "
                                       "(--daxpy-count), or count the launch as part of the figure."}},
     .ok = "compute-lane launch gaps stay below the threshold, or the kernels are long"},
};
const int tl_diag_nrules = sizeof tl_diag_rules / sizeof tl_diag_rules[0];

double tl_diag_threshold(const diag_opts *o, const rule *ru) { return *(const double *)((const char *)o + ru->thr); }

/* The rule's remedy for the program on a rank of kind k: the program's own
 * (a PyTorch program's: else the other programs'), else trilap-solve's; on
 * a host-only or host-staged rank its text for those, else its GPU one. */
const char *tl_diag_remedy_of(const rule *ru, prog_kind p, remedy_kind k)
{
    if (p == PROG_TORCH && !ru->remedy[p].gpu) p = PROG_OTHER;
    const remedy_text *own = &ru->remedy[p], *dflt = &ru->remedy[PROG_SOLVE];
    const char *gpu = own->gpu ? own->gpu : dflt->gpu;
    if (k == REM_GPU) return gpu;
    const char *mine = k == REM_HOST ? own->host : own->staged, *solve = k == REM_HOST ? dflt->host : dflt->staged;
    if (mine) return mine;
    return own->gpu || !solve ? gpu : solve;
}
