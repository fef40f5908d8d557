/* stencil/ on GPUs, one subdomain per rank (strategy devcomm): thread
 * ranks and MPI ranks sharing one GPU over --device-comm host, and NCCL
 * between ranks where there is a GPU per rank, bit for bit the
 * single-domain CUDA run (verify decomp: slab-z, block-xy, pencil-yz,
 * s = 1, 2, with and without --overlap, zero / CPML / periodic faces; a
 * run's seismogram, energy and slice files byte for byte); the breakdown
 * summed over ranks counts what one process counts; the blow-up named
 * once; NCCL on ranks that share a GPU refused in one line, and
 * --device-comm on a run in one process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/gpu.h"
#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

static void need_gpu(void)
{
    if (tl_gpu_count() < 1) TL_SKIP("no GPU visible");
}

static tl_test_output fdtd(const char *pre, const char *args)
{
    return tl_test_capture("OMP_NUM_THREADS=1 %s %s/trilap-fdtd %s", pre, tl_test_bin(), args);
}

/* mpirun for 4 ranks on one host, as root too (the GPU machine runs as root). */
static const char *mpirun4(char *buf, size_t n)
{
    snprintf(buf, n, "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 %s -np 4 --oversubscribe",
             tl_test_mpirun());
    return buf;
}

/* verify decomp's devcomm rows: `rows` of them, every one max_abs_diff 0. */
static void check_devcomm_table(const tl_test_output *r, int rows)
{
    tl_test_decomp_identical(r, "devcomm", rows);
    TL_ASSERT(!strstr(r->out, "not run"));
}

/* 3 decompositions x s = 1, 2 x overlap 0, 1 x zero / CPML / periodic faces */
#define DECOMP4 "verify decomp --backend cuda --strategies devcomm --decomps slab-z,block-xy,pencil-yz --ss 1,2 --steps 8"

TL_TEST(gpu_ranks_threads_share_one_gpu)
{
    need_gpu();
    tl_test_output r = fdtd("", DECOMP4 " --launcher threads --ranks 4 --device-comm host");
    check_devcomm_table(&r, 36);
    tl_test_output_free(&r);
    /* single precision and the tiled kernels with their CPML boxes */
    r = fdtd("", "verify decomp --backend cuda --strategies devcomm --decomps pencil-yz --ss 1,2 --steps 8 "
                 "--precision single --kernel tiled --launcher threads --ranks 4 --device-comm host");
    check_devcomm_table(&r, 12);
    tl_test_output_free(&r);
}

TL_TEST(gpu_ranks_mpirun_share_one_gpu)
{
    need_gpu();
    char pre[512];
    tl_test_output r = fdtd(mpirun4(pre, sizeof pre), DECOMP4 " --device-comm host");
    check_devcomm_table(&r, 36);
    tl_test_output_free(&r);
}

/* NCCL between ranks needs a GPU each: two subdomains on two ranks (two
 * messages between the same two ranks in a phase when periodic). */
TL_TEST(gpu_ranks_nccl)
{
    if (tl_gpu_count() < 2) TL_SKIP("NCCL between ranks needs 2 GPUs (one per rank)");
    tl_test_output r = fdtd("", "verify decomp --backend cuda --strategies devcomm --decomps 1x1x2,1x2x1,2x1x1 "
                                "--ss 1,2 --steps 8 --launcher threads --ranks 2 --device-comm nccl");
    check_devcomm_table(&r, 36);
    tl_test_output_free(&r);
}

/* The count of operation `op` in a --breakdown file; -1: not there. */
static long breakdown_count(const char *path, const char *op)
{
    char *t = tl_test_read(path), key[64];
    snprintf(key, sizeof key, "\n%s,", op);
    const char *p = strstr(t, key);
    long n = p ? strtol(p + strlen(key), NULL, 10) : -1;
    free(t);
    return n;
}

/* A run on 4 ranks (pre: mpirun, or post: the thread launcher's options)
 * writes what the one-process single domain writes, byte for byte, prints
 * its preamble and row once; its breakdown, summed over ranks, counts the
 * updates, packs and unpacks of the same decomposition in one process. */
static void ranks_run_matches(const char *pre, const char *post)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s", tl_test_tmpdir());
    /* the single domain exchanges nothing: --s 2 --overlap only in the decomposed runs (refused there) */
    const char *common = "run --backend cuda --kernel tiled --grid 24x32x40 --cpml 4 --steps 30 "
                         "--receivers '12,12,14;3,4,5;20,28,35' --energy-every 10 --slice-every 15 --check-every 5";
    char args[2048];
    snprintf(args, sizeof args, "%s --seismogram %s/s1.csv --energy-out %s/e1.csv --slice-dir %s/sl1", common, dir,
             dir, dir);
    tl_test_output a = fdtd("", args);
    TL_ASSERT_EQ(a.rc, 0);
    snprintf(args, sizeof args, "%s --decomp pencil-yz --s 2 --overlap --strategy host --breakdown %s/b1.csv", common,
             dir);
    tl_test_output c = fdtd("", args);
    TL_ASSERT_EQ(c.rc, 0);
    snprintf(args, sizeof args,
             "%s --decomp pencil-yz --s 2 --overlap %s --device-comm host --seismogram %s/s4.csv --energy-out %s/e4.csv "
             "--slice-dir %s/sl4 --breakdown %s/b4.csv --results %s/r4/r.csv",
             common, post, dir, dir, dir, dir, dir);
    tl_test_output b = fdtd(pre, args);
    TL_ASSERT_EQ(b.rc, 0);
    TL_ASSERT(strstr(b.out, "# ranks: 4, one subdomain each (strategy devcomm, host-staged device communication"));
    TL_ASSERT_EQ(tl_test_count(b.out, "\nrun,"), 1);
    TL_ASSERT_EQ(tl_test_count(b.out, "# trilap-fdtd "), 1);
    TL_ASSERT(strstr(b.out, "\nrun,cuda,tiled,devcomm,1x2x2,2,1,8,single,24,32,40,30,4,"));
    tl_test_same_run_files(dir);
    char b1[512], b4[512];
    snprintf(b1, sizeof b1, "%s/b1.csv", dir);
    snprintf(b4, sizeof b4, "%s/b4.csv", dir);
    static const char *const ops[] = {"update_v", "update_v_cpml", "update_p", "update_p_cpml", "pack", "unpack"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        long n1 = breakdown_count(b1, ops[i]), n4 = breakdown_count(b4, ops[i]);
        fprintf(stderr, "breakdown %s: one process %ld, 4 ranks %ld\n", ops[i], n1, n4);
        TL_ASSERT(n1 > 0);
        TL_ASSERT_EQ(n4, n1);
    }
    /* one exchange per phase and rank: 15 windows x 2 phases (y, z) x 4 ranks */
    TL_ASSERT_EQ(breakdown_count(b4, "copy"), 15 * 2 * 4);
    char mp[512];
    snprintf(mp, sizeof mp, "%s/r4/manifest.txt", dir);
    char *man = tl_test_slurp(mp);
    TL_ASSERT(strstr(man, "\nranks: 4\n"));
    free(man);
    snprintf(mp, sizeof mp, "%s/r4/r.csv", dir);
    char *res = tl_test_slurp(mp);
    TL_ASSERT_EQ(tl_test_count(res, "\n"), 2); /* header and rank 0's row */
    free(res);
    tl_test_output_free(&a);
    tl_test_output_free(&b);
    tl_test_output_free(&c);
}

TL_TEST(gpu_ranks_run_writes_what_one_process_writes)
{
    need_gpu();
    ranks_run_matches("", "--launcher threads --ranks 4");
}

TL_TEST(gpu_ranks_run_under_mpirun)
{
    need_gpu();
    char pre[512];
    ranks_run_matches(mpirun4(pre, sizeof pre), "");
}

/* The blow-up check over GPU ranks stops every rank at the same step and
 * names the point the one-process run names, once. */
TL_TEST(gpu_ranks_blowup_named_once)
{
    need_gpu();
    const char *args = "run --backend cuda --grid 16 --cpml 0 --steps 40 --amp 1e8 --f0 0.2 --blowup 10 "
                       "--check-every 5 --decomp 1x2x2";
    tl_test_output a = fdtd("", args);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --launcher threads --ranks 4 --device-comm host", args);
    tl_test_output b = fdtd("", cmd);
    TL_ASSERT_EQ(a.rc, 1);
    TL_ASSERT_EQ(b.rc, 1);
    const char *key = "step 5: p = ";
    const char *pa = strstr(a.err, key), *pb = strstr(b.err, key);
    TL_ASSERT(pa && pb && strstr(pa, ") (subdomain ") && strstr(pa, " is beyond the blow-up limit"));
    TL_ASSERT(!strncmp(pa, pb, (size_t)(strchr(pa, '\n') - pa)));
    TL_ASSERT(!strstr(pb + 1, key)); /* one rank says it */
    tl_test_output_free(&a);
    tl_test_output_free(&b);
}

/* NCCL refuses ranks that share a GPU; the launcher says so in one line
 * before any rank starts, naming --device-comm host. */
TL_TEST(gpu_ranks_nccl_sharing_refused)
{
    need_gpu();
    if (tl_gpu_count() >= 4) TL_SKIP("4 GPUs visible: 4 ranks share none");
    tl_test_output r = fdtd("", "run --backend cuda --grid 24 --steps 2 --decomp pencil-yz --launcher threads "
                                "--ranks 4 --device-comm nccl");
    TL_ASSERT_EQ(r.rc, 2);
    TL_ASSERT_EQ(tl_test_count(r.err, "\n"), 1);
    TL_ASSERT(strstr(r.err, "4 ranks in this process but only") && strstr(r.err, "--device-comm host"));
    TL_ASSERT(!strstr(r.out, "run,cuda"));
    tl_test_output_free(&r);
}

/* --device-comm on a run in one process (the default peer strategy of
 * one rank, or a strategy that moves ghosts inside the process) is
 * refused in one line before the preamble: its exchange never uses the
 * device communicator (before: accepted and ignored). */
TL_TEST(gpu_ranks_device_comm_in_one_process_refused)
{
    need_gpu();
    static const struct {
        const char *args, *err;
    } cases[] = {
        {"--device-comm host", "--device-comm host moves ghosts between ranks; this run is one process (--strategy "
                               "peer) (run px*py*pz ranks with --strategy devcomm, or drop --device-comm)\n"},
        {"--strategy host --decomp 1x1x2 --device-comm nccl", "--device-comm nccl moves ghosts between ranks; this run "
                                                              "is one process (--strategy host) (run px*py*pz ranks "
                                                              "with --strategy devcomm, or drop --device-comm)\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char args[512];
        snprintf(args, sizeof args, "run --backend cuda --grid 24 --steps 2 %s", cases[i].args);
        tl_test_output r = fdtd("", args);
        TL_ASSERT_EQ(r.rc, 2);
        TL_ASSERT_MSG(tl_test_count(r.err, "\n") == 1 && strstr(r.err, cases[i].err), "%s: %s", args, r.err);
        TL_ASSERT_MSG(!r.out[0], "%s printed before refusing:\n%s", args, r.out);
        tl_test_output_free(&r);
    }
}

TL_TEST_MAIN(gpu_ranks_threads_share_one_gpu, gpu_ranks_mpirun_share_one_gpu, gpu_ranks_nccl,
             gpu_ranks_run_writes_what_one_process_writes, gpu_ranks_run_under_mpirun, gpu_ranks_blowup_named_once,
             gpu_ranks_nccl_sharing_refused, gpu_ranks_device_comm_in_one_process_refused)
