/* Traces of programs trilap did not write, recorded by libtrilap-inject.so
 * on an H200 (results/foreign-h200: PyTorch and CuPy, unmodified), read by
 * every analysis command with readable names and library categories. */
#include <sys/stat.h>

#include "tl_test.h"
#include "tl_test_run.h"

/* the run folder results/foreign-h200/NAME, its trace gzipped (read as it is) */
static const char *committed(const char *name)
{
    static char dir[600];
    char gz[700];
    snprintf(dir, sizeof dir, "results/foreign-h200/%s", name);
    snprintf(gz, sizeof gz, "%s/trace.rank0.csv.gz", dir);
    struct stat sb;
    if (stat(gz, &sb) != 0) TL_SKIP("%s not there (run from the source tree)", gz);
    return dir;
}

/* a breakdown row "RUN RANK name CATEGORY NAME ..." */
static int has_row(const char *bd, const char *cat, const char *name)
{
    char *dup = strdup(bd), *save = NULL;
    int found = 0;
    for (char *l = strtok_r(dup, "\n", &save); l && !found; l = strtok_r(NULL, "\n", &save)) {
        char run[256], rank[32], level[32], c[64], n[256];
        if (sscanf(l, "%255s %31s %31s %63s %255s", run, rank, level, c, n) == 5)
            found = !strcmp(level, "name") && !strcmp(c, cat) && !strcmp(n, name);
    }
    free(dup);
    return found;
}

/* every command on run folder dir exits 0, its outputs in out; the breakdown's text in *bd */
static void all_commands(const char *dir, const char *out, char **bd)
{
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze breakdown %s --csv %s/bd.csv > %s/bd.txt 2>&1", tl_test_bin(), dir, out, out), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze overlap %s > %s/ov.txt 2>&1", tl_test_bin(), dir, out), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze diagnose %s > %s/dg.txt 2>&1", tl_test_bin(), dir, out), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze timeline %s -o %s/tl.csv > %s/tl.txt 2>&1", tl_test_bin(), dir, out, out), 0);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze perfetto %s -o %s/p.json > %s/pf.txt 2>&1", tl_test_bin(), dir, out, out), 0);
    char p[700];
    snprintf(p, sizeof p, "%s/bd.txt", out);
    *bd = tl_test_slurp(p);
    TL_ASSERT_MSG(!strstr(*bd, "_ZN") && !strstr(*bd, " _Z"), "mangled names in the breakdown:\n%s", *bd);
    /* no row wider than the capped columns allow */
    for (char *l = *bd, *e; (e = strchr(l, '\n')); l = e + 1) TL_ASSERT_MSG(e - l < 260, "%.*s", (int)(e - l), l);
}

TL_TEST(pytorch)
{
    const char *out = tl_test_tmpdir();
    char *bd = NULL;
    all_commands(committed("torch-inject-1"), out, &bd);
    TL_ASSERT_MSG(strstr(bd, "category gemm "), "%s", bd);
    TL_ASSERT_MSG(has_row(bd, "gemm", "Kernel2"), "%s", bd);
    TL_ASSERT_MSG(has_row(bd, "gemm", "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"), "%s", bd);
    TL_ASSERT_MSG(has_row(bd, "elementwise", "distribution_elementwise_grid_stride_kernel"), "%s", bd);
    TL_ASSERT_MSG(has_row(bd, "elementwise", "vectorized_elementwise_kernel"), "%s", bd);
    TL_ASSERT_MSG(has_row(bd, "reduction", "reduce_kernel"), "%s", bd);
    TL_ASSERT_MSG(has_row(bd, "reduction", "softmax_warp_forward"), "%s", bd);
    TL_ASSERT_MSG(!strstr(bd, "category dot") && !strstr(bd, "category other"), "%s", bd);
    free(bd);
    char p[700];
    snprintf(p, sizeof p, "%s/bd.csv", out);
    char *csv = tl_test_slurp(p);
    TL_ASSERT(strstr(csv, ",\"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float,"));
    free(csv);
    snprintf(p, sizeof p, "%s/tl.txt", out);
    char *tl = tl_test_slurp(p);
    TL_ASSERT_MSG(strstr(tl, "iterations: none recorded"), "%s", tl);
    free(tl);
}

TL_TEST(cupy)
{
    char *bd = NULL;
    all_commands(committed("cupy-inject-1"), tl_test_tmpdir(), &bd);
    TL_ASSERT_MSG(has_row(bd, "gemm", "Kernel2"), "%s", bd);
    TL_ASSERT_MSG(has_row(bd, "compute", "scale_add"), "%s", bd);
    TL_ASSERT_MSG(has_row(bd, "compute", "squared_diff"), "%s", bd);
    TL_ASSERT_MSG(has_row(bd, "reduction", "DeviceReduceKernel"), "%s", bd);
    TL_ASSERT_MSG(has_row(bd, "compute", "gen_sequenced"), "%s", bd);
    free(bd);
}

/* the second H200 call's trace (results/foreign-h200/verify, 2000
 * iterations, NCCL's one-rank reduce classified coll): diagnose names it short */
TL_TEST(pytorch_diagnosed)
{
    const char *dir = committed("verify/torch-inject-1"), *out = tl_test_tmpdir();
    char *bd = NULL;
    all_commands(dir, out, &bd);
    TL_ASSERT_MSG(has_row(bd, "nccl-coll-other", "oneRankReduce"), "%s", bd);
    free(bd);
    char p[700];
    snprintf(p, sizeof p, "%s/dg.txt", out);
    char *dg = tl_test_slurp(p);
    TL_ASSERT_MSG(strstr(dg, "FINDING 1 [starved-communication]") && strstr(dg, "rank 0: oneRankReduce: median"), "%s",
                  dg);
    TL_ASSERT_MSG(!strstr(dg, "__nv_static") && !strstr(dg, "_ZN"), "%s", dg);
    free(dg);
    /* the lanes the injection inferred (probes/README.md): the pool's GEMM
     * and copy streams compute, the stream of NCCL's kernels coll, its
     * other kernels keeping cat compute */
    TL_ASSERT_EQ(tl_test_sh("gzip -dc %s/trace.rank0.csv.gz | grep -q '^# lanes=inferred$'", dir), 0);
    TL_ASSERT_EQ(tl_test_sh("test \"$(gzip -dc %s/trace.rank0.csv.gz | grep -v '^#' | awk -F, 'NR > 1 && $6 == \"kernel\" {print $3 \",\" $4 "
                    "\",\" $5}' | sort -u | tr '\\n' ' ')\" = '20,compute,compute 24,compute,compute 7,coll,coll "
                    "7,coll,compute '",
                    dir),
                 0);
}

/* the serialised-communicator rule on a trace without iterations, as the
 * injection writes them: p2p and coll kernels that never overlap */
TL_TEST(serialised_without_iterations)
{
    const char *dir = tl_test_tmpdir();
    char p[700];
    snprintf(p, sizeof p, "%s/trace.rank0.csv", dir);
    FILE *f = fopen(p, "w");
    TL_ASSERT(f);
    fputs("# format=trilap-trace\n# version=1\n# rank=0\n# nranks=1\n# device=all\n# lanes=inferred\n"
          "rank,device,stream,lane,cat,kind,name,start_ns,end_ns,corr,bytes,iter\n",
          f);
    for (int i = 0; i < 20; i++) {
        long s0 = i * 100000L;
        fprintf(f, "0,0,13,compute,compute,kernel,_Z6kernelv,%ld,%ld,%d,-1,-1\n", s0, s0 + 60000, 3 * i + 1);
        fprintf(f, "0,0,14,p2p,p2p,kernel,_Z22ncclDevKernel_SendRecv24ncclDevKernelArgsStorageILm4096EE,%ld,%ld,%d,-1,-1\n",
                s0 + 1000, s0 + 21000, 3 * i + 2);
        fprintf(f, "0,0,15,coll,coll,kernel,_Z31ncclDevKernel_AllReduce_Sum_f32v,%ld,%ld,%d,-1,-1\n", s0 + 21000,
                s0 + 41000, 3 * i + 3);
    }
    fclose(f);
    TL_ASSERT_EQ(tl_test_sh("%s/trilap-analyze diagnose %s > %s/dg.txt 2>&1", tl_test_bin(), dir, dir), 0);
    snprintf(p, sizeof p, "%s/dg.txt", dir);
    char *dg = tl_test_slurp(p);
    TL_ASSERT_MSG(strstr(dg, "FINDING 1 [serialised-communicators]") &&
                      strstr(dg, "no iterations marked, so over the whole window (comm_comm 0.00%)"),
                  "%s", dg);
    free(dg);
}

TL_TEST_MAIN(pytorch, cupy, pytorch_diagnosed, serialised_without_iterations)
