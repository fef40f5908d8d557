/* trilap-model solver: Pipe-PCG or Pipe-BiCGStab under trilap's schedules
 * on N GPUs of a platform: the real partition's rows, nonzeros and halo plan per rank,
 * kernel times from the one-GPU measurements scaled by bytes and by the
 * ratio of the platform's and the calibration GPU's nominal memory
 * bandwidths, NCCL costs from the calibration. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/cli.h"
#include "model/fit.h"
#include "model/partstats.h"
#include "runtime/results.h"
#include "solvers/dist/partition.h"
#include "solvers/matrix/binfmt.h"
#include "solvers/matrix/gen.h"

typedef struct solver_opts {
    const char *calib, *platform, *platform_file, *gpus, *schedules, *matrix, *results;
    int method;    /* METHOD_* */
    int partition; /* PART_* */
    int64_t iters;
    int gpu_of_file; /* --platform taken from the platform file's trilap_platform */
} solver_opts;

enum { PART_BLOCK, PART_METIS };
enum { METHOD_PIPECG, METHOD_PIPEBICGSTAB };
static const char *const method_names[] = {[METHOD_PIPECG] = "pipecg",
                                           [METHOD_PIPEBICGSTAB] = "pipebicgstab"};
static const char *const part_names[] = {[PART_BLOCK] = "block", [PART_METIS] = "metis"};

static const tl_option solver_options[] = {
    {.name = "calib", .type = TL_OPT_STRING, .offset = offsetof(solver_opts, calib),
     .def = "results/model/calib-h200.txt", .metavar = "FILE", .help = "calibration file (trilap-model calibrate)"},
    {.name = "method", .type = TL_OPT_ENUM, .offset = offsetof(solver_opts, method), .def = "pipecg",
     TL_OPT_CHOICES(method_names), .help = "the pipelined method whose iteration is simulated"},
    {.name = "platform", .type = TL_OPT_STRING, .offset = offsetof(solver_opts, platform), .def = "a100-hdr",
     .metavar = "NAME", .help = "built-in platform: h200-nvlink|a100-hdr|h100-ndr|rtx6000-pcie"},
    {.name = "platform-file", .type = TL_OPT_STRING, .offset = offsetof(solver_opts, platform_file),
     .metavar = "XML", .help = "a SimGrid platform file for the network (hosts gpu<R>, nccl<R>; model/README.md): "
                               "its links, and the NCCL rate beside compute of its nccl<R> hosts; --platform then "
                               "names only the GPU (its memory bandwidth)"},
    {.name = "gpus", .type = TL_OPT_STRING, .offset = offsetof(solver_opts, gpus), .def = "4,8,16,32,64",
     .metavar = "LIST",
     .help = "GPU counts, each once and 1-4096 on a built-in platform (minutes a schedule at 4,096; "
             "rtx6000-pcie, one node: 1-4)"},
    {.name = "schedules", .type = TL_OPT_STRING, .offset = offsetof(solver_opts, schedules),
     .def = "two-stream,three-naive,three-split", .metavar = "LIST", .help = "schedules (runtime/schedule.c)"},
    {.name = "matrix", .type = TL_OPT_STRING, .offset = offsetof(solver_opts, matrix), .def = "gen:poisson7:128",
     .metavar = "SPEC", .help = "gen:KIND:N[:PECLET] as trilap-solve takes it, or a file: A.mtx, A.mtx.gz, A.tlcsr"},
    {.name = "partition", .type = TL_OPT_ENUM, .offset = offsetof(solver_opts, partition), .def = "block",
     TL_OPT_CHOICES(part_names), .help = "row partition (metis needs the matrix in memory)"},
    {.name = "iters", .type = TL_OPT_INT, .offset = offsetof(solver_opts, iters), .def = "100", .metavar = "N",
     .help = "iterations simulated", .min = 1, .max = 1e6},
    {.name = "results", .type = TL_OPT_STRING, .offset = offsetof(solver_opts, results), .metavar = "CSV",
     .help = "also append the rows to CSV (header once; manifest.txt beside it)"},
};

static const char solver_header[] =
    "platform,method,matrix,partition,gpus,schedule,iter_us,compute_us,exposed_p2p_us,exposed_coll_us,"
    "speedup_vs_two_stream,max_neighbours,sim_wall_s";

typedef struct matrix_src {
    tl_gen gen;
    tl_csr csr;
    tl_mmatrix m;
} matrix_src;

/* 0 when loaded, else the exit status: 2 for a --matrix that names no
 * generator or has a zero on its diagonal, 1 for a file that cannot be
 * read (the reader's line). */
static int load_matrix(const char *spec, int need_csr, matrix_src *s)
{
    memset(s, 0, sizeof *s);
    if (strncmp(spec, "gen:", 4) == 0) {
        /* trilap-solve's specs, in its words: the model took fewer
         * (no hetero2d, no PECLET, N = 2..4096) and named them otherwise */
        tl_error_context k;
        tl_error_context_begin(&k, "--matrix");
        tl_status st = tl_gen_parse_spec(spec, &s->gen);
        tl_error_context_end(&k);
        if (st != TL_OK) return 2;
        if (need_csr) { /* its refusal named no input (trilap-solve's names the spec) */
            tl_error_context_begin(&k, spec);
            st = tl_gen_csr(&s->gen, &s->csr);
            tl_error_context_end(&k);
            if (st != TL_OK) return 1;
            s->m.csr = &s->csr;
        } else
            s->m.gen = &s->gen;
        return 0;
    }
    /* trilap-solve's reader: .tlcsr binary, else Matrix Market (.mtx, .mtx.gz) */
    if (tl_matrix_read(spec, 1, &s->csr) != TL_OK) return 1; /* the reader's line names it */
    s->m.csr = &s->csr;
    /* every iteration modelled applies Jacobi (jobs.c), which trilap-solve
     * refuses on a zero diagonal: before, such a matrix (even one of no
     * nonzeros) was predicted, exit 0, for a solve that cannot run */
    int64_t first = -1, zeros = tl_csr_zero_diagonal(&s->csr, &first);
    if (zeros) {
        tl_mcli_error("invalid --matrix '%s': %lld zero diagonal entr%s (the first in row %lld), but the modelled "
                      "iteration applies the Jacobi preconditioner, which divides by the diagonal (trilap-solve "
                      "refuses it too)",
                      spec, (long long)zeros, zeros == 1 ? "y" : "ies", (long long)first + 1);
        tl_csr_free(&s->csr);
        return 2;
    }
    return 0;
}

/* The job of one schedule on one GPU count's partition. */
static tl_status build_job(const solver_opts *o, const tl_schedule *sch, const tl_mpart *ps, const tl_mkcost *k,
                           const tl_mcalib *c, tl_mjob *j)
{
    return (o->method == METHOD_PIPEBICGSTAB ? tl_mjob_pipebicgstab : tl_mjob_pipecg)(j, sch, ps, k, c, (int)o->iters);
}

/* A user's platform file tried, before anything is printed, for each GPU
 * count's job (the first schedule's: every schedule sends the same
 * messages): SimGrid loads the file, the engine looks up every rank's
 * hosts and the routes of its messages and simulates nothing, so a file
 * it refuses is said in one line with stdout still empty: 0 when it will
 * do, else the exit status (2 for --gpus beyond the file's GPUs: the
 * command line's, as on a built-in platform). rate[0..1]: the lowest and
 * highest NCCL rate beside compute of the
 * nccl<R> hosts used, as SimGrid loaded them (the preamble's; it read
 * nccl0's speed="..." from the file's text, and nothing when the
 * attribute was on another line than id="nccl0"). */
static int platform_file_usable(const solver_opts *o, const tl_schedule *sch, const tl_mpart *ps, int n,
                                const tl_mkcost *k, const tl_mcalib *c, double rate[2])
{
    tl_status st = TL_OK;
    tl_mresult r;
    rate[0] = INFINITY;
    rate[1] = 0;
    int i;
    for (i = 0; i < n && st == TL_OK; i++) {
        tl_mjob j;
        st = build_job(o, sch, &ps[i], k, c, &j);
        if (st != TL_OK) break;
        j.platform = o->platform_file;
        j.check_only = 1;
        st = tl_model_simulate(&j, &r);
        tl_mjob_free(&j);
        if (st != TL_OK) break;
        rate[0] = fmin(rate[0], r.nccl_rate_lo);
        rate[1] = fmax(rate[1], r.nccl_rate_hi);
    }
    if (st == TL_ERR_PARSE && r.gpus_held > 0) {
        /* before: "platform p.xml refused: no host 'gpu4'", exit 1, as if the file were broken */
        char hosts[48] = "host gpu0";
        if (r.gpus_held > 1) snprintf(hosts, sizeof hosts, "hosts gpu0 to gpu%d", r.gpus_held - 1);
        tl_mcli_error("invalid --gpus '%s': %s holds %d GPU%s (%s), fewer than %d: at most %d, or a platform file "
                      "with more",
                      o->gpus, o->platform_file, r.gpus_held, r.gpus_held == 1 ? "" : "s", hosts, ps[i].nranks,
                      r.gpus_held);
        return 2;
    }
    if (st == TL_ERR_PARSE)
        tl_mcli_error("platform %s refused: %s", o->platform_file, r.error);
    else if (st != TL_OK)
        tl_mcli_failed("trying platform %s failed", o->platform_file);
    return st != TL_OK;
}

/* A block partition of a generated matrix needs no row array: its
 * statistics come from the row ranges and the stencil (1024^3 rows: a
 * minute and 13 GB row by row). */
static int row_array_needed(const solver_opts *o, const matrix_src *ms)
{
    return o->partition != PART_BLOCK || !ms->m.gen;
}

/* The partition's statistics for `gpus` ranks; `part` (one int per row)
 * where row_array_needed. */
static tl_status partition_stats(const solver_opts *o, matrix_src *ms, int *part, int gpus, tl_mpart *ps)
{
    if (!row_array_needed(o, ms)) return tl_mpart_block_gen(ms->m.gen, gpus, ps);
    int64_t n = tl_mmatrix_nrows(&ms->m);
    TL_TRY(o->partition == PART_METIS ? tl_partition_metis(&ms->csr, gpus, 0, part)
                                      : tl_partition_block(n, gpus, part));
    return tl_mpart_compute(&ms->m, part, gpus, ps);
}

/* Every GPU count's partition statistics (ps[i] for gpus[i]), before
 * anything is printed: a platform file is tried on them. 0, said in one
 * line, when a partition fails. */
static int all_partitions(const solver_opts *o, matrix_src *ms, int *part, const int *gpus, int n, tl_mpart *ps)
{
    for (int i = 0; i < n; i++)
        if (partition_stats(o, ms, part, gpus[i], &ps[i]) != TL_OK) {
            tl_mcli_failed("partitioning %s into %d parts failed", o->matrix, gpus[i]);
            return 0;
        }
    return 1;
}

/* Each count's largest part against the GPU's memory: 2, said in one
 * line naming --gpus, when one cannot hold even its CSR block (12 B a
 * nonzero, 8 B a row) and two vectors with their ghosts; else 0. A lower
 * bound: the method's other vectors only add to it. The table's memory is
 * the vendors' "GB", which nvidia-smi shows to be GiB (an A100 64GB has
 * 65,536 MiB): before, bytes x 1e-9 were held against it, 7% short. */
static int part_beyond_memory(const solver_opts *o, const tl_mplatform *p, const tl_mrank_stats *s, int gpus)
{
    double gib = (12.0 * (double)(s->nnz_diag + s->nnz_offd) + 24.0 * (double)s->rows + 8.0 * (double)s->ghosts) /
                 (1024.0 * 1024.0 * 1024.0);
    if (gib <= p->mem_gb) return 0;
    tl_mcli_error("invalid --gpus %d: a part of %s (%lld rows) needs at least %.3g GiB, more than the %.0f GiB "
                  "of a GPU of --platform %s: more GPUs or a smaller matrix",
                  gpus, o->matrix, (long long)s->rows, gib, p->mem_gb, p->name);
    return 2;
}

/* A part trilap's CUDA backend cannot hold: its owned and ghost blocks
 * are uploaded with 32-bit indices, rows, columns and nonzeros each below
 * INT32_MAX (solvers/backends/cuda/spmv.c refuses the block). Before, such
 * a run was predicted, exit 0 (gen:poisson7:1024 on 2 GPUs: 3.75e9
 * nonzeros a part). */
static int part_beyond_int32(const solver_opts *o, const tl_mrank_stats *s, int gpus)
{
    if (s->rows < INT32_MAX && s->ghosts < INT32_MAX && s->nnz_diag < INT32_MAX && s->nnz_offd < INT32_MAX) return 0;
    tl_mcli_error("invalid --gpus %d: a part of %s (%lld rows, %lld nonzeros, %lld ghosts) exceeds the 32-bit "
                  "indices of trilap's CUDA backend (rows, columns and nonzeros of a GPU's block below 2^31 - 1 = "
                  "%d): more GPUs or a smaller matrix",
                  gpus, o->matrix, (long long)s->rows, (long long)(s->nnz_diag + s->nnz_offd), (long long)s->ghosts,
                  INT32_MAX);
    return 2;
}

static int parts_too_big(const solver_opts *o, const tl_mplatform *p, const tl_mpart *ps, const int *gpus, int n)
{
    for (int i = 0; i < n; i++)
        for (int r = 0; r < ps[i].nranks; r++) {
            int rc = part_beyond_memory(o, p, &ps[i].r[r], gpus[i]);
            if (!rc) rc = part_beyond_int32(o, &ps[i].r[r], gpus[i]);
            if (rc) return rc;
        }
    return 0;
}

/* Per GPU count: one simulation per schedule on its partition. */
static int run_count(const solver_opts *o, const tl_mcalib *c, const tl_mplatform *p, const tl_mkcost *k,
                     const tl_mpart *ps, const tl_schedule **sch, int nsch, tl_mcsv *w, tl_mcli *cli)
{
    int gpus = ps->nranks, maxnb = 0;
    for (int r = 0; r < gpus; r++) maxnb = ps->halo[r].n > maxnb ? ps->halo[r].n : maxnb;
    double two = 0;
    int ok = 1;
    for (int i = 0; i < nsch && ok; i++) {
        tl_mjob j;
        tl_mresult r;
        ok = build_job(o, sch[i], ps, k, c, &j) == TL_OK;
        if (ok) {
            j.label = sch[i]->name;
            tl_mplatform_params q = {.nccl_rate = c->nccl_rate, .port_lat_us = -1};
            tl_status sst;
            if (o->platform_file) {
                j.platform = o->platform_file;
                sst = tl_model_simulate(&j, &r);
            } else
                sst = tl_mfit_run(&j, p, &q, cli->workdir, &r);
            ok = sst == TL_OK;
            if (sst == TL_ERR_PARSE && o->platform_file)
                tl_mcli_error("platform %s refused: %s", o->platform_file, r.error);
            else if (!ok)
                tl_mcli_failed("simulating %s on %d GPUs of %s failed", sch[i]->name, gpus,
                               o->platform_file ? o->platform_file : p->name);
        }
        tl_mjob_free(&j);
        if (!ok) break;
        double us = 1e6 * r.iter_s;
        if (sch[i]->id == TL_SCHED_TWO_STREAM) two = us;
        /* against two-stream, which runs first when it is asked for
         * (two_stream_first); without it there is nothing to compare */
        /* an empty CSV field where there is none, as trilap-analyze and the
         * results files leave a missing figure (NaN before qa-model11) */
        char speedup[32] = "-", speedup_csv[32] = "";
        if (two > 0) {
            snprintf(speedup, sizeof speedup, "%.3f", two / us);
            snprintf(speedup_csv, sizeof speedup_csv, "%.4f", two / us);
        }
        printf(" %5d %12s %10.2f %9.2f %9.2f %9.2f %8s %6d %8.2f\n", gpus, sch[i]->name, us, 1e6 * r.compute_s,
               1e6 * r.exposed_p2p_s, 1e6 * r.exposed_coll_s, speedup, maxnb, r.wall_s);
        char plat[1024], mat[1024]; /* file names: quoted where a comma or a quote would split the row */
        ok = tl_mcsv_row(w, "%s,%s,%s,%s,%d,%s,%.3f,%.3f,%.3f,%.3f,%s,%d,%.3f",
                         tl_results_field(plat, sizeof plat, o->platform_file ? o->platform_file : p->name),
                         method_names[o->method], tl_results_field(mat, sizeof mat, o->matrix),
                         part_names[o->partition], gpus, sch[i]->name, us, 1e6 * r.compute_s, 1e6 * r.exposed_p2p_s,
                         1e6 * r.exposed_coll_s, speedup_csv, maxnb, r.wall_s) == TL_OK;
        fflush(stdout);
    }
    return ok;
}

/* "two-stream,three-split" -> schedules, two-stream first when listed (the
 * others' speedups are against it); 0, said in one line, on an unknown,
 * repeated or empty entry. */
static int schedule_list(const char *text, const tl_schedule *sch[TL_SCHED_COUNT])
{
    int n = 0;
    const char *p = text;
    for (;;) {
        size_t len = strcspn(p, ",");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), p);
        const tl_schedule *s = tl_schedule_find(name);
        for (int i = 0; s && i < n; i++)
            if (sch[i] == s) s = NULL;
        if (!s || n == TL_SCHED_COUNT) {
            tl_mcli_error("invalid --schedules entry '%s' in '%s' (%s, each once)", name, text, tl_schedule_choices());
            return 0;
        }
        sch[n++] = s;
        if (!p[len]) break;
        p += len + 1;
    }
    for (int i = 1; i < n; i++)
        if (sch[i]->id == TL_SCHED_TWO_STREAM) {
            const tl_schedule *two = sch[i];
            memmove(&sch[1], &sch[0], (size_t)i * sizeof sch[0]);
            sch[0] = two;
        }
    return n;
}

/* The kernels' line of the preamble: the triad scaled from the
 * calibration's GPU to p's (target: what the line says of p), and where
 * the calibration GPU's nominal figure comes from. */
static void print_kernels(const tl_mcalib *c, const tl_mplatform *p, const tl_mkcost *k, const char *target)
{
    printf("# kernels: %.2f us fixed each + bytes at %.0f GB/s (%.3f x triad %.0f measured on %s, %.0f GB/s nominal: "
           "%s; x %.0f/%.0f GB/s nominal%s)\n",
           1e6 * k->fixed_s, k->gbs, c->pcg_bw_frac, c->triad_gbs, k->calib_gpu, k->calib_nominal_gbs,
           c->gpu_mem_gbs > 0 ? "the calibration's gpu_mem_gbs"
           : c->gpu[0]        ? "model/platform.c's"
                              : "taken as an H200's: the calibration names no GPU",
           p->mem_gbs, k->calib_nominal_gbs, target);
}

/* The `# key: value` preamble and the table's two header rows. */
static void print_preamble(const solver_opts *o, const tl_mcli *cli, const tl_mcalib *c, const tl_mplatform *p,
                           const tl_mkcost *k, int64_t nrows, const double rate[2])
{
    tl_mcli_preamble(stdout, cli, "solver", c, o->calib);
    if (o->platform_file) {
        char r[64];
        if (rate[0] == rate[1]) snprintf(r, sizeof r, "%.4g of their speed alone", rate[0]);
        else snprintf(r, sizeof r, "%.4g to %.4g of their speed alone, by host", rate[0], rate[1]);
        printf("# platform: %s (a SimGrid platform file): its hosts and network as written; NCCL beside a compute "
               "kernel at the rate of its nccl<R> hosts' second power state (%s), not the calibration's nccl_rate "
               "%.4g\n",
               o->platform_file, r, c->nccl_rate);
        char target[512];
        snprintf(target, sizeof target, ": the GPU of %s, %s%s; its network is not simulated, the file's is",
                 p->name, p->gpu, o->gpu_of_file ? ", as the file names it (" TL_MPLATFORM_GPU_PROP ")" : ", --platform");
        print_kernels(c, p, k, target);
    } else {
        printf("# platform: %s: %s; %s; %d GPUs per node\n", p->name, p->gpu, p->network, p->gpus_per_node);
        print_kernels(c, p, k, "");
    }
    int bicg = o->method == METHOD_PIPEBICGSTAB;
    printf("# method: %s (%s)\n", method_names[o->method],
           bicg ? "two SpMVs with halo, two allreduces (16 and 40 B), 9 kernels per iteration"
                : "one SpMV with halo, one allreduce (24 B), 4 kernels per iteration");
    printf("# matrix: %s, %lld rows, partition %s; allreduce: binomial tree\n", o->matrix,
           (long long)nrows, part_names[o->partition]);
    printf("#%5s %12s %10s %9s %9s %9s %8s %6s %8s\n", "gpus", "schedule", "iter", "compute", "exp.p2p", "exp.coll",
           "speedup", "neigh", "sim");
    printf("#%5s %12s %10s %9s %9s %9s %8s %6s %8s\n", "", "", "(us)", "(us)", "(us)", "(us)", "(x 2s)", "(max)",
           "(s)");
}

/* --results begun (runtime/results.h): the manifest's block names what the
 * rows rest on. */
static tl_status begin_results(const solver_opts *o, const tl_mcli *cli, const tl_mplatform *p, tl_mcsv *w)
{
    char plat[4200], extra[16384];
    if (o->platform_file)
        snprintf(plat, sizeof plat, "%s (a SimGrid platform file; kernels: the GPU of %s%s)", o->platform_file,
                 o->gpu_of_file ? "" : "--platform ", p->name);
    else
        snprintf(plat, sizeof plat, "%s", p->name);
    snprintf(extra, sizeof extra,
             "model: solver (PREDICTED: SimGrid, not measured)\ncalibration: %s\nplatform: %s\nmethod: %s\n"
             "matrix: %s\npartition: %s\ngpus: %s\nschedules: %s\niters: %lld\n",
             o->calib, plat, method_names[o->method], o->matrix, part_names[o->partition], o->gpus, o->schedules,
             (long long)o->iters);
    return tl_mcsv_begin(w, cli, o->results, solver_header, extra);
}

/* Every count's partition, the platform file tried on them, then the
 * preamble and the rows: the exit status. */
static int predict(const solver_opts *o, tl_mcli *cli, const tl_mcalib *c, const tl_mplatform *p, const tl_mkcost *k,
                   matrix_src *ms, int *part, const int *gpus, int ngpus, const tl_schedule **sch, int nsch)
{
    tl_mpart *ps = calloc((size_t)ngpus, sizeof *ps);
    if (!ps) {
        tl_mcli_error("out of memory for the partitions of %s", o->matrix);
        return 1;
    }
    int rc = 1, ok = all_partitions(o, ms, part, gpus, ngpus, ps);
    if (ok && (rc = parts_too_big(o, p, ps, gpus, ngpus))) goto done;
    rc = 1;
    double rate[2] = {0, 0};
    if (ok && o->platform_file && (rc = platform_file_usable(o, sch[0], ps, ngpus, k, c, rate))) goto done;
    rc = 1;
    tl_mcsv w;
    if (!ok || begin_results(o, cli, p, &w) != TL_OK) goto done;
    print_preamble(o, cli, c, p, k, tl_mmatrix_nrows(&ms->m), rate);
    for (int i = 0; i < ngpus && ok; i++) ok = run_count(o, c, p, k, &ps[i], sch, nsch, &w, cli);
    if (ok) printf("# %d rows (predicted)\n", ngpus * nsch);
    rc = tl_mcsv_end(&w, ok) != TL_OK || !ok;
done:
    for (int i = 0; i < ngpus; i++) tl_mpart_free(&ps[i]);
    free(ps);
    return rc;
}

int tl_mcmd_solver(int argc, char **argv, tl_mcli *cli)
{
    solver_opts o;
    tl_optgroup g = {"Solver", solver_options, sizeof solver_options / sizeof solver_options[0], &o};
    tl_optspec spec = {.program = "trilap-model", .command = "solver", .usage = "[options]",
                       .purpose = "Predicts a Pipe-PCG or Pipe-BiCGStab iteration under trilap's schedules on N "
                                  "GPUs of a platform.",
                       .groups = &g, .ngroups = 1};
    int rc = tl_mcli_parse(cli, &spec, argc, argv);
    if (rc >= 0) return rc;
    /* with a platform file, --platform names the GPU alone: the file is the network */
    const tl_mplatform *p = tl_mplatform_find(o.platform);
    if (!p) {
        tl_mcli_error("invalid --platform '%s' (%s)", o.platform, tl_mplatform_choices());
        return 2;
    }
    int gpus[64];
    char why[160];
    /* a file of the user's may route more compactly than the built-in ones */
    int ngpus = tl_mcli_int_list(o.gpus, gpus, 64, o.platform_file ? 1 << 20 : TL_MPLATFORM_MAX_GPUS, why, sizeof why);
    if (!ngpus) {
        int too_many = strstr(why, "out of range") && strtol(why, NULL, 10) > TL_MPLATFORM_MAX_GPUS;
        const char *hint = too_many && !o.platform_file
                               ? "a built-in platform is simulated up to 4,096 GPUs, minutes a schedule there"
                               : "a list such as 4,8,64";
        tl_mcli_error("invalid --gpus '%s': %s (%s)", o.gpus, why, hint);
        return 2;
    }
    if (!o.platform_file && (rc = tl_mplatform_gpus_refused(p, gpus, ngpus, o.gpus)) != 0) return rc;
    const tl_schedule *sch[TL_SCHED_COUNT];
    int nsch = schedule_list(o.schedules, sch);
    if (!nsch) return 2;
    struct stat sb;
    /* an input that is not there is the machine's lack, exit 1, as trilap-solve says a missing matrix or
     * --partition file (before: "invalid --platform-file 'p.xml': No such file or directory", exit 2) */
    if (o.platform_file && (access(o.platform_file, R_OK) != 0 || stat(o.platform_file, &sb) != 0)) {
        tl_mcli_error("--platform-file: %s: cannot open: %s", o.platform_file, strerror(errno));
        return 1;
    }
    if (o.platform_file && S_ISDIR(sb.st_mode)) {
        tl_mcli_error("--platform-file: %s: a folder, where a file is read", o.platform_file);
        return 1;
    }
    /* the GPU the file was exported for, unless --platform names one */
    o.gpu_of_file = 0;
    if (o.platform_file && !tl_mcli_given(cli, &o.platform)) {
        const tl_mplatform *named;
        if (tl_mplatform_named_by(o.platform_file, &named) != TL_OK) return 1; /* its line names the file */
        if (named) {
            p = named;
            o.platform = named->name;
            o.gpu_of_file = 1;
        }
    }
    tl_mcalib c;
    char calib[4096];
    o.calib = tl_mcli_tree_path(o.calib, tl_mcli_given(cli, &o.calib), calib, sizeof calib);
    const char *inputs[] = {o.calib, strncmp(o.matrix, "gen:", 4) ? o.matrix : NULL, o.platform_file};
    int refused = tl_mcli_outputs_refused(cli, solver_header, inputs, sizeof inputs / sizeof inputs[0]);
    if (refused) return refused;
    if (tl_mcalib_load(&c, o.calib) != TL_OK) return 1; /* the reader's line names it */
    tl_mkcost k;
    if (tl_mkcost_for(&c, o.calib, p, &k) != TL_OK) return 2; /* its line names the GPU and the key */
    matrix_src ms;
    rc = load_matrix(o.matrix, o.partition == PART_METIS, &ms);
    if (rc) return rc;
    if (tl_mmatrix_nrows(&ms.m) == 0) { /* before: "has 0 rows, fewer than the parts asked" */
        tl_mcli_error("invalid --matrix '%s': the matrix has no rows", o.matrix);
        tl_csr_free(&ms.csr);
        return 2;
    }
    for (int i = 0; i < ngpus; i++)
        if (gpus[i] > tl_mmatrix_nrows(&ms.m)) {
            tl_mcli_error("invalid --gpus %d: %s has %lld row%s, fewer than the parts asked", gpus[i], o.matrix,
                          (long long)tl_mmatrix_nrows(&ms.m), tl_mmatrix_nrows(&ms.m) == 1 ? "" : "s");
            tl_csr_free(&ms.csr);
            return 2;
        }
    /* before the preamble: a matrix too large for this machine is one line */
    int64_t nrows = tl_mmatrix_nrows(&ms.m);
    int *part = NULL;
    if (row_array_needed(&o, &ms))
        part = (uint64_t)nrows <= SIZE_MAX / sizeof *part ? malloc((size_t)nrows * sizeof *part) : NULL;
    if (row_array_needed(&o, &ms) && !part) {
        tl_mcli_error("out of memory for the partition of %s (%lld rows, %.1f GB)", o.matrix, (long long)nrows,
                      4e-9 * (double)nrows);
        tl_csr_free(&ms.csr);
        return 1;
    }
    rc = tl_model_engine_load() == TL_OK ? predict(&o, cli, &c, p, &k, &ms, part, gpus, ngpus, sch, nsch) : 1;
    free(part);
    tl_csr_free(&ms.csr);
    return rc;
}
