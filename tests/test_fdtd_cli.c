/* trilap-fdtd as users call it: help, bad arguments (one line, exit 2),
 * the CFL and blow-up errors, a run with its results, seismogram, energy
 * and slice files, and the verify tables' headers (CPU backend). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

static tl_test_output fdtd(const char *args)
{
    return tl_test_capture("OMP_NUM_THREADS=2 %s/trilap-fdtd %s", tl_test_bin(), args);
}

static int count_char(const char *s, char c)
{
    int n = 0;
    for (; *s && *s != '\n'; s++) n += *s == c;
    return n;
}

TL_TEST(help_and_bad_arguments)
{
    tl_test_output r = fdtd("--help");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT(strstr(r.out, "verify convergence|time|reflection|energy|decomp"));
    tl_test_output_free(&r);
    r = fdtd("run --help");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT(strstr(r.out, "--decomp") && strstr(r.out, "--strategy") && strstr(r.out, "[20]"));
    tl_test_output_free(&r);
    r = fdtd("run --grid 12x");
    TL_ASSERT_EQ(r.rc, 2);
    TL_ASSERT_STREQ(r.err, "trilap-fdtd: invalid --grid '12x': expected N or NXxNYxNZ (try --help)\n");
    tl_test_output_free(&r);
    r = fdtd("run --decomp 2x2");
    TL_ASSERT_EQ(r.rc, 2);
    TL_ASSERT_STREQ(r.err, "trilap-fdtd: invalid --decomp '2x2': expected PXxPYxPZ, slab-z, block-xy or pencil-yz (try --help)\n");
    tl_test_output_free(&r);
    r = fdtd("run --order 6");
    TL_ASSERT_EQ(r.rc, 2);
    TL_ASSERT_STREQ(r.err, "trilap-fdtd: invalid --order '6': must be 2, 4 or 8 (try --help)\n");
    tl_test_output_free(&r);
    r = fdtd("verify sideways");
    TL_ASSERT_EQ(r.rc, 2);
    TL_ASSERT(strstr(r.err, "invalid experiment 'sideways'"));
    tl_test_output_free(&r);
    r = fdtd("launch");
    TL_ASSERT_EQ(r.rc, 2);
    TL_ASSERT(strstr(r.err, "unknown command 'launch'"));
    tl_test_output_free(&r);
}

TL_TEST(cfl_and_blowup_errors)
{
    tl_test_output r = fdtd("run --grid 16 --cpml 0 --dt 0.5");
    TL_ASSERT_EQ(r.rc, 1);
    TL_ASSERT(strstr(r.err, "dt = 0.5 violates the CFL condition") && strstr(r.err, "dt must be <= 0.448842"));
    tl_test_output_free(&r);
    r = fdtd("run --grid 16 --cpml 0 --steps 40 --amp 1e8 --f0 0.2 --blowup 10 --check-every 5");
    TL_ASSERT_EQ(r.rc, 1);
    TL_ASSERT(strstr(r.err, "step 5: p = ") && strstr(r.err, "at (8, 8, 5) (subdomain 0) is beyond the blow-up limit"));
    tl_test_output_free(&r);
}

TL_TEST(run_writes_its_files)
{
    const char *dir = tl_test_tmpdir();
    char args[2048];
    snprintf(args, sizeof args,
             "run --grid 24x24x28 --cpml 4 --steps 30 --decomp 1x2x2 --receivers '12,12,14;3,4,5' --seismogram %s/s.csv "
             "--energy-every 10 --energy-out %s/e.csv --slice-every 15 --slice z=mid --slice-dir %s/slices "
             "--results %s/r/results.csv --label t1",
             dir, dir, dir, dir);
    tl_test_output r = fdtd(args);
    TL_ASSERT_EQ(r.rc, 0);
    const char *hdr = strstr(r.out, "label,backend,kernel,strategy,decomp,s,overlap,order,precision,nx,ny,nz,steps,cpml,dt,"
                                     "time_s,mpoints_s,gbs,min_bytes_per_point,mem_bytes,paper_mem_bytes,cpml_overhead\n");
    TL_ASSERT(hdr);
    const char *row = strstr(hdr, "\nt1,cpu,-,copy,1x2x2,1,0,8,single,24,24,28,30,4,");
    TL_ASSERT(row);
    TL_ASSERT_EQ(count_char(row + 1, ','), 21);
    tl_test_output_free(&r);
    char p[1024];
    snprintf(p, sizeof p, "%s/s.csv", dir);
    char *s = tl_test_read(p);
    TL_ASSERT(strncmp(s, "step,time_s,r0,r1\n1,", 20) == 0);
    int lines = 0;
    for (char *q = s; *q; q++) lines += *q == '\n';
    TL_ASSERT_EQ(lines, 31);
    free(s);
    snprintf(p, sizeof p, "%s/e.csv", dir);
    s = tl_test_read(p);
    TL_ASSERT(strncmp(s, "step,time_s,energy\n0,0,0\n10,", 28) == 0);
    free(s);
    snprintf(p, sizeof p, "%s/slices/p-000030.txt", dir);
    s = tl_test_read(p);
    TL_ASSERT(strncmp(s, "# p at step 30", 14) == 0);
    free(s);
    snprintf(p, sizeof p, "%s/r/manifest.txt", dir);
    s = tl_test_read(p);
    TL_ASSERT(strstr(s, "program: trilap-fdtd"));
    free(s);
    snprintf(p, sizeof p, "%s/r/results.csv", dir);
    s = tl_test_read(p);
    TL_ASSERT(strncmp(s, "label,backend,", 14) == 0 && strstr(s, "\nt1,cpu,"));
    free(s);
}

TL_TEST(compare_cpml_reports_overhead)
{
    tl_test_output r = fdtd("run --grid 24 --cpml 4 --steps 5 --compare-cpml");
    TL_ASSERT_EQ(r.rc, 0);
    const char *a = strstr(r.out, "\nrun,cpu,-,copy,1x1x1,1,0,8,single,24,24,24,5,0,");
    const char *b = strstr(r.out, "\nrun,cpu,-,copy,1x1x1,1,0,8,single,24,24,24,5,4,");
    TL_ASSERT(a && b && a < b);
    const char *end = strchr(b + 1, '\n');
    TL_ASSERT(end && end[-1] != ','); /* the CPML row has its overhead */
    tl_test_output_free(&r);
}

TL_TEST(verify_tables)
{
    tl_test_output r = fdtd("verify convergence --orders 4 --sizes 8,16");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT(strncmp(r.out, "order,n,l2,linf,rate_l2,rate_linf\n4,8,", 38) == 0);
    TL_ASSERT(strstr(r.out, "\n4,16,"));
    tl_test_output_free(&r);
    r = fdtd("verify time --cfls 0.4,0.2 --n 8");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT(strncmp(r.out, "dt,l2,linf,rate_l2,rate_linf\n", 29) == 0);
    tl_test_output_free(&r);
    r = fdtd("verify reflection --n-int 10 --f0 0.15 --cells 0,4 --decomps 1x1x1");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT(strncmp(r.out, "decomp,cells,ratio\n1x1x1,0,", 27) == 0 && strstr(r.out, "\n1x1x1,4,"));
    tl_test_output_free(&r);
    r = fdtd("verify decomp --n 20 --steps 4 --decomps 1x2x1 --ss 1");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT(strstr(r.out, "decomp,strategy,s,overlap,boundary,max_abs_diff,identical\n1x2x1,copy,1,0,zero,0.000e+00,yes\n"));
    TL_ASSERT(strstr(r.out, "# 3 rows, 0 not identical"));
    tl_test_output_free(&r);
}

TL_TEST_MAIN(help_and_bad_arguments, cfl_and_blowup_errors, run_writes_its_files, compare_cpml_reports_overhead,
             verify_tables)
