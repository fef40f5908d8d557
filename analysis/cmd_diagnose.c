/* trilap-analyze diagnose RUN_DIR: lost-overlap findings with evidence and
 * remedies. The rules are rows of one table (name, what is measured, the
 * threshold option, a verdict function that also writes the evidence, the
 * remedy); the report is written once over it. Rules and thresholds are
 * documented in analysis/README.md ("Diagnosis rules"). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cli.h"
#include "analysis/diagnose.h"
#include "commit.h" /* TL_GIT_COMMIT */
#include "config.h"

static prog_kind prog_of(const tl_an_meta *m)
{
    static const struct {
        const char *name;
        prog_kind kind;
    } known[] = {{"trilap-solve", PROG_SOLVE}, {"trilap-bench", PROG_BENCH}, {"trilap-fdtd", PROG_FDTD}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(m->program, known[i].name)) return known[i].kind;
    return strncmp(m->clock, "kineto-host", 11) ? PROG_OTHER : PROG_TORCH;
}

static remedy_kind remedy_kind_of(const tl_an_rank_result *r)
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

static const rule rules[] = {
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
enum { NRULES = sizeof rules / sizeof rules[0] };

static double threshold(const diag_opts *o, const rule *ru) { return *(const double *)((const char *)o + ru->thr); }

/* The rule's remedy for the program on a rank of kind k: the program's own
 * (a PyTorch program's: else the other programs'), else trilap-solve's; on
 * a host-only or host-staged rank its text for those, else its GPU one. */
static const char *remedy_of(const rule *ru, prog_kind p, remedy_kind k)
{
    if (p == PROG_TORCH && !ru->remedy[p].gpu) p = PROG_OTHER;
    const remedy_text *own = &ru->remedy[p], *dflt = &ru->remedy[PROG_SOLVE];
    const char *gpu = own->gpu ? own->gpu : dflt->gpu;
    if (k == REM_GPU) return gpu;
    const char *mine = k == REM_HOST ? own->host : own->staged, *solve = k == REM_HOST ? dflt->host : dflt->staged;
    if (mine) return mine;
    return own->gpu || !solve ? gpu : solve;
}

static void print_rank_summary(const tl_an_rank_result *res, size_t nr)
{
    for (size_t r = 0; r < nr; r++) {
        const tl_an_metrics *m = &res[r].whole;
        double w = m->w > 0 ? (double)m->w : 1;
        char hid[64], cc[64];
        double h = tl_an_m_hidden(m), c = tl_an_m_ccover(m);
        if (isfinite(h)) snprintf(hid, sizeof hid, "%.1f%%", 100 * h);
        else snprintf(hid, sizeof hid, "- (no communication)");
        if (isfinite(c)) snprintf(cc, sizeof cc, "%.1f%%", 100 * c);
        else snprintf(cc, sizeof cc, "- (no %s)", tl_an_m_union(m, TL_AN_C_P2P_ALL) ? "collective" : "p2p");
        /* a host-only rank's compute is its host's compute ranges; without
         * them "0.0%" would say its host did not compute */
        char cp[64];
        double ucp = 100.0 * (double)tl_an_m_union(m, TL_AN_C_COMPUTE) / w;
        int host = tl_an_rank_host_only(&res[r]);
        if (host && !res[r].n_host_compute) snprintf(cp, sizeof cp, "n/a (a host-only rank: no GPU compute)");
        else snprintf(cp, sizeof cp, "%.1f%%%s", ucp, host ? " (its host's compute ranges)" : "");
        char cut[256];
        tl_an_window_cut_say(&res[r].meta, cut, sizeof cut);
        printf("# rank %d: window %.1f us%s%s%s, %zu iterations; compute %s, p2p %.1f%%, coll %.1f%%, exposed "
               "communication %.1f%%, idle %.1f%% of the window; hidden %s, comm_comm %s, triple %.2f%%\n",
               res[r].meta.rank, US(m->w), cut[0] ? " (" : "", cut, cut[0] ? ")" : "", res[r].nslices, cp,
               100.0 * (double)tl_an_m_union(m, TL_AN_C_P2P_ALL) / w,
               100.0 * (double)tl_an_m_union(m, TL_AN_C_COLL_ALL) / w, 100.0 * (double)tl_an_m_exposed(m) / w,
               100.0 * (double)tl_an_m_idle(m) / w, hid, cc, 100 * tl_an_m_triple(m));
    }
}

/* Where the iteration numbers printed are not the program's (a rerun),
 * where the trace holds GPU rows no tracer records, and where the probes
 * guessed whose some records were. */
static void print_reruns(const tl_an_rank_result *res, size_t nr)
{
    char say[512];
    for (size_t r = 0; r < nr; r++) {
        if (tl_an_reruns_say(&res[r].meta, say, sizeof say)) printf("# iterations: %s\n", say);
        if (tl_an_odd_rows_say(&res[r].meta, say, sizeof say)) printf("# note: %s\n", say);
    }
    char guessed[1024];
    if (nr && tl_an_guessed_owners_say(&res[0].meta, nr, sizeof *res, guessed, sizeof guessed))
        printf("# note: %s\n", guessed);
}

/* What did overlap, and how long operations waited for their last rank
 * (and, once, where halo operations were paired across every rank for
 * want of peers in the trace). */
static void print_what_overlapped(const tl_an_rank_result *res, size_t nr, const tl_an_ops *ops,
                                  const tl_an_names *names)
{
    for (size_t r = 0; r < nr; r++) {
        const tl_an_metrics *m = &res[r].whole;
        if (!tl_an_m_union(m, TL_AN_C_COMM_ALL)) {
            printf("overlap rank %d: no communication in the window\n", res[r].meta.rank);
            continue;
        }
        char cc[48], hid[48];
        double ccv = tl_an_m_ccover(m), h = tl_an_m_hidden(m);
        if (isfinite(ccv)) snprintf(cc, sizeof cc, "%.1f%%", 100 * ccv);
        else snprintf(cc, sizeof cc, "- (no %s activity)", m->np2p > 0 ? "collective" : "p2p");
        if (isfinite(h)) snprintf(hid, sizeof hid, "%.1f%%", 100 * h);
        else snprintf(hid, sizeof hid, "- (it only waits)");
        printf("overlap rank %d: %s of communication transfer hidden under compute (%.1f%% counting its waits), p2p "
               "and coll overlap %s, all three lanes transferring/computing together %.2f%% of the window\n",
               res[r].meta.rank, hid, 100 * tl_an_m_hidden_all(m), cc, 100 * tl_an_m_triple(m));
    }
    for (size_t r = 0; r < nr && nr > 1; r++) {
        const tl_an_split *sp = &res[r].split;
        int64_t tot = sp->wait_ns + sp->transfer_ns;
        if (!sp->matched || !tot) continue;
        printf("peer wait rank %d: %zu communication operations spent %.1f of their %.1f us (%.0f%%, %.1f us each) "
               "waiting for the last rank to start the same operation; hidden and triple count only the rest\n",
               res[r].meta.rank, sp->matched, US(sp->wait_ns), US(tot), 100.0 * (double)sp->wait_ns / (double)tot,
               US(sp->wait_ns) / (double)sp->matched);
    }
    char note[512];
    if (tl_an_ops_pairing_say(ops, names, note, sizeof note)) printf("# note: %s\n", note);
}

/* The ranks a rule does not apply to, and why (the first rank's reason:
 * one rule has one). */
typedef struct not_applied {
    size_t n;
    char ranks[256]; /* "0, 2, 3" */
    int cut;         /* ranks ends in ", ...": no room for more */
    const char *why;
} not_applied;

static void na_add(not_applied *na, int rank, const char *why)
{
    char one[24];
    size_t len = strlen(na->ranks), k = (size_t)snprintf(one, sizeof one, "%s%d", len ? ", " : "", rank);
    /* a rank number is never cut: past the room, "..." once */
    if (!na->cut && len + k + sizeof ", ..." <= sizeof na->ranks) {
        memcpy(na->ranks + len, one, k + 1);
    } else if (!na->cut) {
        memcpy(na->ranks + len, ", ...", sizeof ", ...");
        na->cut = 1;
    }
    if (!na->why) na->why = why;
    na->n++;
}

/* A finding with the remedy of the ranks it fired on: a host-only or
 * host-staged rank's where it has its own (fired[k]: those ranks), the
 * rule's elsewhere (fired[REM_GPU]); the ranks named where two differ. */
static void print_finding(int nfind, const rule *ru, prog_kind prog, const evidence *ev, const not_applied *fired)
{
    static const char *const what[NREM] = {"", "host-only", "host-staged"};
    printf("FINDING %d [%s]: %s\n  %s\n%s", nfind, ru->name, ru->headline, ru->evidence ? ru->evidence : "evidence:",
           ev->text);
    int kinds = 0;
    for (int k = 0; k < NREM; k++) kinds += fired[k].n > 0;
    for (int k = 0; k < NREM; k++) {
        if (!fired[k].n) continue;
        if (k == REM_GPU || kinds == 1) printf("  remedy: %s\n", remedy_of(ru, prog, (remedy_kind)k));
        else
            printf("  remedy on %s rank%s %s: %s\n", what[k], fired[k].n > 1 ? "s" : "", fired[k].ranks,
                   remedy_of(ru, prog, (remedy_kind)k));
    }
    putchar('\n');
}

static tl_status report(const char *dir, const diag_opts *o, diag_state *s, size_t nr)
{
    tl_status st = TL_OK;
    tl_an_table *t = NULL;
    evidence *ev = malloc(sizeof *ev);
    TL_CHECK(ev, TL_ERR_NOMEM, "evidence");
    TL_TRYGOTO(tl_an_table_create(&t, "diagnosis rules"), st, fail);
    TL_TRYGOTO(tl_an_table_std_meta(t, "diagnose", dir), st, fail);
    char thr[1024];
    size_t len = 0;
    for (int i = 0; i < NRULES && len < sizeof thr; i++) {
        int dup = 0;
        for (int j = 0; j < i; j++) dup |= rules[j].thr == rules[i].thr;
        if (!dup)
            len += (size_t)snprintf(thr + len, sizeof thr - len, "%s%s %g", len ? ", " : "", rules[i].option,
                                    threshold(o, &rules[i]));
    }
    TL_TRYGOTO(tl_an_table_meta(t, "thresholds", "%s, min-comm-share %g, both-iters %g, starve-share %g, min-samples "
                                                 "%lld, short-kernel-us %g, launch-gap-us %g",
                                thr, o->min_comm_share, o->both_iters, o->starve_share, (long long)o->min_samples,
                                o->short_kernel_us, o->c.launch_gap_us),
               st, fail);
    static const struct {
        const char *name;
        int text;
    } cols[] = {{"rule", 1},      {"rank", 0},    {"verdict", 1},
                {"value", 0},     {"threshold", 0}, {"measure", 1},
                {"other_conditions", 1}};
    for (size_t j = 0; j < sizeof cols / sizeof cols[0]; j++)
        TL_TRYGOTO(tl_an_table_col(t, cols[j].name, "", cols[j].text), st, fail);
    char clock[512];
    tl_an_clock_say(&s->res[0].meta, nr, sizeof *s->res, clock, sizeof clock);
    TL_TRYGOTO(tl_an_table_meta(t, "clock", "%s", clock), st, fail);
    printf("# program: trilap-analyze diagnose %s (git %s)\n# input: %s\n# clock: %s\n", TL_VERSION, TL_GIT_COMMIT,
           dir, clock);
    char ranks[256];
    if (tl_an_ranks_subset(s->res, nr, ranks, sizeof ranks)) printf("# ranks: %s\n", ranks);
    print_rank_summary(s->res, nr);
    print_reruns(s->res, nr);
    putchar('\n');
    int nfind = 0;
    prog_kind prog = prog_of(&s->res[0].meta);
    for (int i = 0; i < NRULES; i++) {
        const rule *ru = &rules[i];
        ev->len = 0;
        ev->text[0] = '\0';
        int any = 0;
        not_applied na = {0}, fired[NREM] = {{0}};
        for (size_t r = 0; r < nr; r++) {
            measured mv = {.value = NAN, .also = "-"};
            int found = ru->verdict(s, r, &mv, ev);
            any |= found;
            remedy_kind k = remedy_kind_of(&s->res[r]);
            if (found) /* its own text, where the rule has one for its kind */
                na_add(&fired[remedy_of(ru, prog, k) != remedy_of(ru, prog, REM_GPU) ? k : REM_GPU], s->rd[r].rank,
                       NULL);
            if (mv.na) na_add(&na, s->rd[r].rank, mv.na);
            TL_TRYGOTO(tl_an_table_row(t), st, fail);
            TL_TRYGOTO(tl_an_table_str(t, ru->name), st, fail);
            TL_TRYGOTO(tl_an_table_int(t, s->rd[r].rank), st, fail);
            TL_TRYGOTO(tl_an_table_str(t, found ? "FINDING" : mv.na ? "n/a" : "ok"), st, fail);
            TL_TRYGOTO(tl_an_table_num(t, mv.value, 2), st, fail);
            TL_TRYGOTO(tl_an_table_num(t, threshold(o, ru), 2), st, fail);
            TL_TRYGOTO(tl_an_table_str(t, ru->measure), st, fail);
            TL_TRYGOTO(tl_an_table_str(t, mv.also), st, fail);
        }
        if (any)
            print_finding(++nfind, ru, prog, ev, fired);
        else if (na.n == nr)
            printf("n/a [%s]: does not apply: rank%s %s %s %s\n", ru->name, nr > 1 ? "s" : "", na.ranks,
                   nr > 1 ? "are" : "is", na.why);
        else if (na.n)
            printf("ok [%s]: %s (--%s %g); does not apply to rank%s %s, %s\n", ru->name, ru->ok, ru->option,
                   threshold(o, ru), na.n > 1 ? "s" : "", na.ranks, na.why);
        else
            printf("ok [%s]: %s (--%s %g)\n", ru->name, ru->ok, ru->option, threshold(o, ru));
    }
    putchar('\n');
    print_what_overlapped(s->res, nr, s->ops, s->names);
    putchar('\n');
    tl_an_table_print(t, stdout);
    printf("# -: the rule does not apply to that rank (no such activity), or has no other condition\n"
           "# n/a: the rule cannot be applied to that rank (a host-only rank: no GPU lanes; late-ranks: no "
           "operation paired across the ranks ran on them together)\n"
           "# other_conditions: the rule fires only when the value passes its threshold and these hold too\n");
    printf("# %d finding%s\n", nfind, nfind == 1 ? "" : "s");
    if (o->c.csv) TL_TRYGOTO(tl_an_write_csv(t, "--csv", o->c.csv), st, fail);
fail:
    free(ev);
    tl_an_table_destroy(&t);
    return st;
}

#define PCT_OPT(n, field, d, text)                                                                                \
    {.name = n, .type = TL_OPT_DOUBLE, .offset = offsetof(diag_opts, field), .def = d, .metavar = "PCT",         \
     .help = text, .min = 0, .max = 100}

int tl_an_cmd_diagnose(int argc, char **argv)
{
    diag_opts o;
    memset(&o, 0, sizeof o);
    const tl_option own[] = {
        PCT_OPT("min-comm-share", min_comm_share, "2", "communication counts as substantial from this % of the window"),
        PCT_OPT("serial-overlap", serial_overlap, "5", "p2p/coll overlap below this % means serialised"),
        PCT_OPT("both-iters", both_iters, "50", "p2p and coll issued together: both in this % of iterations"),
        PCT_OPT("hidden-min", hidden_min, "5", "hidden communication below this % means no comm/compute overlap"),
        {.name = "starve-ratio", .type = TL_OPT_DOUBLE, .offset = offsetof(diag_opts, starve_ratio), .def = "1.5",
         .metavar = "X", .help = "median overlapped / median alone duration that means starved", .min = 1,
         .max = 1e6},
        PCT_OPT("starve-share", starve_share, "2", "starved only if the extra working time is this % of the window"),
        {.name = "min-samples", .type = TL_OPT_INT, .offset = offsetof(diag_opts, min_samples), .def = "3",
         .metavar = "N", .help = "instances needed on each side for the starvation rule", .min = 1, .max = 1e9},
        PCT_OPT("launch-share", launch_share, "25", "compute-lane time in launch gaps that means launch-bound"),
        {.name = "short-kernel-us", .type = TL_OPT_DOUBLE, .offset = offsetof(diag_opts, short_kernel_us),
         .def = "20", .metavar = "US", .help = "launch-bound needs a median compute kernel at most this long",
         .min = 0, .max = 1e9},
        PCT_OPT("exposed-share", exposed_share, "10", "communication not under compute from this % of the window"),
        PCT_OPT("wait-share", wait_share, "30", "late ranks: this % of the matched operations' time spent waiting"),
        PCT_OPT("staging-share", staging_share, "5", "host-carried communication from this % of the window"),
        PCT_OPT("queued-share", queued_share, "5", "communication queued after its launch, this % of the window"),
    };
    const tl_optgroup groups[] = {
        {.title = "rules", .opts = own, .nopts = sizeof own / sizeof own[0], .dst = &o},
        {.title = "common", .opts = tl_an_common_opts, .nopts = tl_an_common_nopts, .dst = &o.c},
    };
    const tl_optspec spec = {.program = "trilap-analyze", .command = "diagnose", .usage = "[options] RUN_DIR",
                             .purpose = "Lost-overlap findings (serialised communicators or host lane, no "
                                        "comm/compute overlap, exposed communication, late ranks, queued "
                                        "communication, host staging, "
                                        "starved communication, launch-bound compute) with evidence and remedies.",
                             .groups = groups, .ngroups = 2, .min_positional = 1, .max_positional = 1};
    tl_optresult pr;
    int rc = tl_an_parse(&spec, argc, argv, &pr, &o.c);
    if (rc >= 0) return rc;
    tl_status st = TL_OK;
    tl_an_names *names = NULL;
    tl_an_rank_result *res = NULL;
    size_t nr = 0;
    tl_an_ops ops;
    memset(&ops, 0, sizeof ops);
    diag_state ds = {.o = &o, .ops = &ops};
    tl_an_overlap_opts oo = tl_an_overlap_opts_of(&o.c);
    oo.slices = 1;
    oo.ops_out = &ops;
    oo.match = 1;
    TL_TRYGOTO(tl_an_names_create(&names), st, fail);
    ds.names = names;
    TL_TRYGOTO(tl_an_run_overlap(pr.positional[0], &oo, names, tl_diag_rank_facts, &ds, &res, &nr), st, fail);
    ds.res = res;
    TL_TRYGOTO(report(pr.positional[0], &o, &ds, nr), st, fail);
fail:
    tl_diag_free(&ds);
    tl_an_ops_free(&ops);
    tl_an_rank_results_free(&res, nr);
    tl_an_names_destroy(&names);
    free(pr.positional);
    return st == TL_OK ? 0 : 1;
}
