/* trilap-fdtd as users call it: help, bad arguments (one line, exit 2),
 * the CFL and blow-up errors, a run with its results, seismogram, energy
 * and slice files, the verify tables' headers (CPU backend), and one
 * subdomain per rank (strategy ranks) under the thread launcher and
 * mpirun: bit for bit the single domain, rank 0's output alone. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "stencil/fdtd.h"
#include "tests/tl_test.h"
#include "tests/tl_test_run.h"

static tl_test_output fdtd(const char *args)
{
    return tl_test_capture("OMP_NUM_THREADS=2 %s/trilap-fdtd %s", tl_test_bin(), args);
}

/* trilap-fdtd ARGS refused with exit rc, exactly the line err, nothing on
 * stdout (tl_test_refused_whole) */
static void refused_with(int rc, const char *args, const char *err)
{
    tl_test_refused_whole(rc, err, "OMP_NUM_THREADS=2 %s/trilap-fdtd %s", tl_test_bin(), args);
}

/* trilap-fdtd ARGS refused with exit rc, one line holding want (tl_test_refused) */
static void refused_saying(int rc, const char *args, const char *want)
{
    tl_test_refused(rc, want, "OMP_NUM_THREADS=2 %s/trilap-fdtd %s", tl_test_bin(), args);
}

/* a command line that cannot run: exit 2 */
static void usage_error(const char *args, const char *err) { refused_with(2, args, err); }

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
    TL_ASSERT(strstr(r.out, "devcomm") && strstr(r.out, "--device-comm"));
    /* --ranks N writes a trace per rank: the help named only rank 0's */
    TL_ASSERT_MSG(strstr(r.out, "trace.rank<R>.csv") && !strstr(r.out, "trace.rank0.csv"), "%s", r.out);
    tl_test_output_free(&r);
    usage_error("run --grid 12x",
                "trilap-fdtd: invalid --grid '12x': expected N or NXxNYxNZ (try --help)\n");
    /* past 2^63 - 1: named as typed (it was "grid size 9223372036854775807
     * along x", "source x = 9223372036854775807 outside the grid") */
    usage_error("run --grid 8x9223372036854775808x8",
                "trilap-fdtd: invalid --grid '8x9223372036854775808x8': expected N or NXxNYxNZ (try --help)\n");
    usage_error("run --grid 8 --source 99999999999999999999,1,1",
                "trilap-fdtd: invalid --source '99999999999999999999,1,1': expected center, none or I,J,K (try --help)\n");
    /* no receiver in the list: the run went ahead, exit 0, and wrote no
     * --seismogram at all */
    usage_error("run --grid 8 --receivers ';' --seismogram s.csv",
                "trilap-fdtd: invalid --receivers ';': no receiver; expected I,J,K[;I,J,K...] (try --help)\n");
    usage_error("run --grid 8 --receivers '' --seismogram s.csv",
                "trilap-fdtd: invalid --receivers '': no receiver; expected I,J,K[;I,J,K...] (try --help)\n");
    usage_error("run --decomp 2x2",
                "trilap-fdtd: invalid --decomp '2x2': expected PXxPYxPZ, slab-z, block-xy or pencil-yz (try --help)\n");
    usage_error("run --order 6",
                "trilap-fdtd: invalid --order '6': must be 2, 4 or 8 (try --help)\n");
    /* no step measured: it printed a row of 0 Mpoints/s and exited 0 */
    usage_error("run --steps 0 --grid 8",
                "trilap-fdtd: invalid --steps '0': out of range [1, 1000000000] (try --help)\n");
    r = fdtd("verify sideways");
    TL_ASSERT_EQ(r.rc, 2);
    TL_ASSERT(strstr(r.err, "invalid experiment 'sideways'"));
    tl_test_output_free(&r);
    /* an unknown word is one line, without the usage before it */
    usage_error("launch", "trilap-fdtd: unknown command 'launch' (try --help)\n");
    usage_error("--bogus", "trilap-fdtd: unknown option '--bogus' (try --help)\n");
    r = fdtd("");
    TL_ASSERT_EQ(r.rc, 2);
    TL_ASSERT(!strncmp(r.err, "usage: trilap-fdtd run", 22));
    tl_test_output_free(&r);
}

/* Each help claim checked against what the program does, where they
 * differed (before: --periodic "needs --cpml 0", which it never did;
 * verify --cfls "dt halves along the list", which only the default does,
 * the rate taken for any ratio; verify's --ranks "one subdomain each
 * (--decomp px*py*pz of them)", where --decomp's experiments run on one
 * rank and decomp's --decomps are spread; --slices without when; run's
 * --gpus on ranks, accepted and ignored). */
TL_TEST(help_says_what_the_program_does)
{
    tl_test_output r = fdtd("run --help");
    TL_ASSERT_MSG(!strstr(r.out, "needs --cpml 0") && strstr(r.out, "periodic in every axis, without a CPML") &&
                      strstr(r.out, "p-000010.txt") && strstr(r.out, "(--compare-cpml: two runs, two rows)") &&
                      strstr(r.out, "cuda, one process: GPUs to spread"),
                  "%s", r.out);
    tl_test_output_free(&r);
    r = fdtd("run --grid 8 --steps 2 --periodic");
    TL_ASSERT_MSG(r.rc == 0 && strstr(r.out, "# cpml: none; periodic in every axis\n"), "%s%s", r.out, r.err);
    tl_test_output_free(&r);
    refused_with(2, "run --grid 8 --steps 2 --periodic --cpml 2",
                 "trilap-fdtd: --periodic has no outer boundary for a CPML; drop --cpml 2 (or use --cpml 0)\n");
    r = fdtd("verify --help");
    TL_ASSERT_MSG(!strstr(r.out, "dt halves") && strstr(r.out, "whatever the ratio of their time steps") &&
                      strstr(r.out, "ranks, for verify decomp alone") && !strstr(r.out, "--decomp px*py*pz") &&
                      strstr(r.out, "slices every --every steps"),
                  "%s", r.out);
    tl_test_output_free(&r);
    /* dt / 3.75 (whole steps to t = 0.5): the rate is still the scheme's 2 */
    r = fdtd("verify time --grid 8 --cfls 0.8,0.2");
    double dt, l2, li, rate = 0;
    const char *row = strstr(r.out, "\n4.166667e-02,");
    row = row ? strchr(row + 1, '\n') : NULL;
    TL_ASSERT_MSG(r.rc == 0 && row && sscanf(row + 1, "%lf,%lf,%lf,%lf", &dt, &l2, &li, &rate) == 4 &&
                      fabs(rate - 2) < 0.05,
                  "%s", r.out);
    tl_test_output_free(&r);
    /* --gpus is one process's: on ranks it was accepted and did nothing */
    refused_with(2, "run --backend cuda --grid 16 --launcher threads --ranks 2 --device-comm host --decomp 1x1x2 "
                    "--gpus 2",
                 "trilap-fdtd: --gpus 2 spreads the subdomains of one process over GPUs; in a run of ranks each rank's "
                 "subdomain is on the GPU the launcher binds it to, its local rank % the host's GPUs (drop --gpus; "
                 "CUDA_VISIBLE_DEVICES sets the GPUs)\n");
    /* verify time on two ranks: refused, as the --ranks help says */
    refused_with(2, "verify time --grid 8 --launcher threads --ranks 2",
                 "trilap-fdtd: verify time runs on one rank; only verify decomp takes several (strategy ranks)\n");
    const char *dir = tl_test_tmpdir();
    char args[800];
    snprintf(args, sizeof args, "verify energy --grid 16 --cells 3 --steps 4 --every 2 --slices %s/s", dir);
    r = fdtd(args);
    TL_ASSERT_EQ(r.rc, 0);
    tl_test_output_free(&r);
    TL_ASSERT(tl_test_sh("test -s %s/s/cpml/p-000002.txt && test -s %s/s/none/p-000004.txt && "
                         "test ! -e %s/s/cpml/p-000001.txt && test ! -e %s/s/cpml/p-000003.txt",
                         dir, dir, dir, dir) == 0);
}

/* An empty entry in --receivers is refused as verify's lists refuse one
 * (up to c834e8e '1,2,3;;4,5,6' ran two receivers, '1,2,3;' one, exit 0) */
TL_TEST(receivers_empty_entry_refused)
{
    static const char *const lists[] = {"1,2,3;;4,5,6", "1,2,3;", ";1,2,3"};
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
        char cmd[256], want[512];
        snprintf(cmd, sizeof cmd, "run --grid 8 --steps 2 --receivers '%s' --seismogram s.csv", lists[i]);
        snprintf(want, sizeof want,
                 "trilap-fdtd: invalid --receivers '%s': an empty entry (two ';' together, or one at an end); "
                 "expected I,J,K[;I,J,K...] (try --help)\n",
                 lists[i]);
        usage_error(cmd, want);
    }
}

TL_TEST(cfl_and_blowup_errors)
{
    /* a --dt above the limit is the input's: refused before anything is printed */
    usage_error("run --grid 16 --cpml 0 --dt 0.5",
                "trilap-fdtd: dt = 0.5 violates the CFL condition: c_max dt sqrt(3) sum|c_m| / h = 1.114 > 1 "
                "(order 8, h = 1: dt must be <= 0.448842)\n");
    /* just past the limit: enough digits to show it (before: "= 1 > 1",
     * and 0.44884242 "must be <= 0.448842") */
    usage_error("run --grid 16 --cpml 0 --dt 0.4489",
                "trilap-fdtd: dt = 0.4489 violates the CFL condition: c_max dt sqrt(3) sum|c_m| / h = 1.0001 > 1 "
                "(order 8, h = 1: dt must be <= 0.448842)\n");
    usage_error("run --grid 16 --cpml 0 --dt 0.44884242",
                "trilap-fdtd: dt = 0.44884242 violates the CFL condition: c_max dt sqrt(3) sum|c_m| / h = "
                "1.00000002 > 1 (order 8, h = 1: dt must be <= 0.44884241)\n");
    tl_test_output r;
    r = fdtd("run --grid 16 --cpml 0 --steps 40 --amp 1e8 --f0 0.2 --blowup 10 --check-every 5");
    TL_ASSERT_EQ(r.rc, 1);
    TL_ASSERT(strstr(r.err, "step 5: p = ") && strstr(r.err, "at (8, 8, 5) (subdomain 0) is beyond the blow-up limit"));
    tl_test_output_free(&r);
    /* a limit of 0 stopped every run at its first check, called unstable */
    usage_error("run --grid 16 --steps 2 --blowup 0",
                "trilap-fdtd: invalid --blowup '0': out of range [1e-300, 1e+300] (try --help)\n");
}

/* A blow-up keeps the slices written before it (whole files: where it
 * began) and says which after its error line; the results file and its
 * manifest keep the earlier run alone, no row or block for the failed
 * one. Before (58a8851): the same files, unsaid. */
TL_TEST(blowup_says_the_slices_it_kept)
{
    const char *dir = tl_test_tmpdir();
    const char *blow = "run --grid 16 --cpml 0 --steps 40 --amp 1e8 --f0 0.2 --blowup 10 --check-every 10";
    char args[2048], want[1024], p[1024], ls[256];
    snprintf(args, sizeof args, "run --grid 16 --cpml 0 --steps 4 --results %s/r.csv", dir);
    tl_test_output r = fdtd(args);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/r.csv", dir);
    char *rows = tl_test_read(p);
    snprintf(p, sizeof p, "%s/manifest.txt", dir);
    char *manifest = tl_test_read(p);
    snprintf(args, sizeof args, "%s --slice-every 3 --slice-dir %s/sl --results %s/r.csv", blow, dir, dir);
    r = fdtd(args);
    /* the slice folder made before the run, and said (test_results:output_folders_made_and_said) */
    char made[1200];
    snprintf(made, sizeof made, "trilap-fdtd: note: --slice-dir %s/sl: created folder %s/sl\n", dir, dir);
    snprintf(want, sizeof want,
             " is beyond the blow-up limit; the run is unstable (lower --dt or --cfl) or the source too strong\n"
             "trilap-fdtd: note: the 3 slices written before the failure stay in %s/sl: steps 3 to 9, every 3 "
             "(p-000003.txt to p-000009.txt)\n",
             dir);
    TL_ASSERT_MSG(r.rc == 1 && !strncmp(r.err, made, strlen(made)) &&
                      !strncmp(r.err + strlen(made), "trilap-fdtd: step 10: p = ", 26) && strstr(r.err, want) &&
                      tl_test_count(r.err, "\n") == 3,
                  "rc %d:\n%s", r.rc, r.err);
    tl_test_output_free(&r);
    TL_ASSERT_EQ(tl_test_sh_to(ls, sizeof ls, "ls %s/sl", dir), 0);
    TL_ASSERT_STREQ(ls, "p-000003.txt\np-000006.txt\np-000009.txt\n");
    char *manifest_after = tl_test_read(p);
    snprintf(p, sizeof p, "%s/r.csv", dir);
    char *rows_after = tl_test_read(p);
    TL_ASSERT_STREQ(rows_after, rows);
    TL_ASSERT_STREQ(manifest_after, manifest);
    free(rows), free(rows_after), free(manifest), free(manifest_after);
    /* one slice, on ranks: rank 0 wrote it and says so */
    snprintf(args, sizeof args, "%s --slice-every 7 --slice-dir %s/one --decomp 1x2x2 --launcher threads --ranks 4",
             blow, dir);
    r = fdtd(args);
    snprintf(want, sizeof want,
             "\ntrilap-fdtd: rank 0: note: the slice written before the failure stays: %s/one/p-000007.txt (step 7)\n",
             dir);
    snprintf(made, sizeof made, "trilap-fdtd: note: --slice-dir %s/one: created folder %s/one\n", dir, dir);
    TL_ASSERT_MSG(r.rc == 1 && strstr(r.err, want) && strstr(r.err, made) && tl_test_count(r.err, "\n") == 3,
                  "rc %d:\n%s", r.rc, r.err);
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

/* The numbers of a file after its first line (or lines starting with '#'
 * and the comma-separated header), in order, read with strtod; *n of them. */
static double *numbers_of(const char *path, int64_t *n)
{
    char *s = tl_test_read(path), *q = s;
    TL_ASSERT(s);
    size_t cap = strlen(s) / 2 + 1;
    double *v = malloc(cap * sizeof *v);
    TL_ASSERT(v);
    *n = 0;
    while (*q == '#' || (*q >= 'a' && *q <= 'z')) q = strchr(q, '\n') + 1; /* comments, the header row */
    while (*q) {
        char *end;
        v[(*n)++] = strtod(q, &end);
        TL_ASSERT_MSG(end != q, "%s: not a number at '%.20s'", path, q);
        q = end + strspn(end, ", \n");
    }
    free(s);
    return v;
}

/* read, a value read back from a file, is ran, a value of the run's
 * precision (in single: the float nearest the decimal, as strtof reads it) */
static int same(double read, double ran, int dbl) { return dbl ? read == ran : (float)read == (float)ran; }

/* The run `run --grid 16 --cpml 4 --steps 10 --receivers '8,8,3'
 * --energy-every 5` of precision dbl, in this process */
static tl_fdtd *files_reference(int dbl)
{
    static const int64_t rec[1][3] = {{8, 8, 3}};
    tl_fdtd_config c;
    tl_fdtd_config_defaults(&c);
    c.n[0] = c.n[1] = c.n[2] = 16;
    c.cpml = 4;
    c.steps = 10;
    c.dbl = dbl;
    c.source = 1;
    c.src[0] = c.src[1] = c.src[2] = 8;
    c.nrec = 1;
    c.rec = rec;
    c.energy_every = 5;
#ifdef _OPENMP
    omp_set_num_threads(2); /* as the program's (OMP_NUM_THREADS=2): the energy's sum in the same order */
#endif
    tl_fdtd *f = NULL;
    TL_ASSERT_OK(tl_fdtd_create(&f, &c));
    TL_ASSERT_OK(tl_fdtd_run(f, NULL));
    return f;
}

/* The seismogram, energy and slice files hold the run's values to the last
 * bit of its precision: 17 significant digits in double, 9 in single
 * (before: 9 in both for the seismogram and the energy, a double run's
 * values cut to about half their digits; 7 for slices in both). The energy
 * is summed in double either way; in single it is written to 9 digits. */
TL_TEST(files_read_back_exactly)
{
    const char *dir = tl_test_tmpdir();
    for (int dbl = 0; dbl < 2; dbl++) {
        char args[1024], p[1024];
        snprintf(args, sizeof args,
                 "run --grid 16 --cpml 4 --steps 10 --precision %s --receivers '8,8,3' --seismogram %s/s%d.csv "
                 "--energy-every 5 --energy-out %s/e%d.csv --slice-every 10 --slice-dir %s/sl%d",
                 dbl ? "double" : "single", dir, dbl, dir, dbl, dir, dbl);
        tl_test_output r = fdtd(args);
        TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
        tl_test_output_free(&r);
        tl_fdtd *f = files_reference(dbl);
        double dt = tl_fdtd_dt(f);
        int64_t n, ne;
        snprintf(p, sizeof p, "%s/s%d.csv", dir, dbl);
        double *v = numbers_of(p, &n); /* step, time, p */
        const double *tr = tl_fdtd_traces(f);
        TL_ASSERT_EQ(n, 30);
        for (int64_t i = 0; i < 10; i++)
            TL_ASSERT_MSG(same(v[3 * i + 2], tr[i], dbl) && (!dbl || v[3 * i + 1] == (double)(i + 1) * dt),
                          "%s, step %d: %.17g s, %.17g read back, %.17g s, %.17g ran", dbl ? "double" : "single",
                          (int)i + 1, v[3 * i + 1], v[3 * i + 2], (double)(i + 1) * dt, tr[i]);
        free(v);
        snprintf(p, sizeof p, "%s/e%d.csv", dir, dbl);
        v = numbers_of(p, &n); /* step, time, energy */
        const double *e = tl_fdtd_energy(f, &ne);
        TL_ASSERT_EQ(n, 3 * ne);
        for (int64_t i = 0; i < ne; i++)
            TL_ASSERT_MSG(dbl ? v[3 * i + 2] == e[2 * i + 1] : fabs(v[3 * i + 2] - e[2 * i + 1]) <= 1e-8 * e[2 * i + 1],
                          "%s, step %g: energy %.17g read back, %.17g ran", dbl ? "double" : "single", e[2 * i],
                          v[3 * i + 2], e[2 * i + 1]);
        free(v);
        double g[16 * 16 * 16];
        TL_ASSERT_OK(tl_fdtd_gather(f, TL_FDTD_P, g));
        snprintf(p, sizeof p, "%s/sl%d/p-000010.txt", dir, dbl);
        v = numbers_of(p, &n); /* plane z = 8: rows y, columns x */
        TL_ASSERT_EQ(n, 256);
        for (int64_t i = 0; i < 256; i++)
            TL_ASSERT_MSG(same(v[i], g[8 * 256 + i], dbl), "%s slice, point %d: %.17g read back, %.17g ran",
                          dbl ? "double" : "single", (int)i, v[i], g[8 * 256 + i]);
        free(v);
        tl_fdtd_destroy(&f);
    }
}

/* The preamble names the boundary the run had: without CPML it printed
 * "cpml: 0 cells, R = 1e-08, kappa_max = 5, ..." whether the faces were
 * zero or periodic. */
TL_TEST(preamble_names_the_boundary)
{
    static const struct {
        const char *args, *line;
    } cases[] = {
        {"run --grid 16 --steps 1 --cpml 0",
         "\n# cpml: none; p = v = 0 outside: low faces rigid, high faces pressure-release\n"},
        {"run --grid 16 --steps 1 --periodic", "\n# cpml: none; periodic in every axis\n"},
        {"run --grid 16 --steps 1 --cpml 4", "\n# cpml: 4 cells, R = 1e-08, kappa_max = 5, alpha_max = 0.05 sigma_max, "},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tl_test_output r = fdtd(cases[k].args);
        TL_ASSERT_MSG(r.rc == 0, "%s: exit %d: %s", cases[k].args, r.rc, r.err);
        TL_ASSERT_MSG(strstr(r.out, cases[k].line) != NULL, "%s: no line '%s' in\n%s", cases[k].args, cases[k].line + 1,
                      r.out);
        tl_test_output_free(&r);
    }
}

/* The label is free text: a comma in it split the results row (one field
 * more than the header, every later column shifted), and the preamble's
 * command line was the arguments joined unquoted (--receivers a;b cannot
 * be pasted into a shell). The label is now quoted as RFC 4180 has it,
 * the preamble quoted as the manifest quotes it, the two lines equal. */
TL_TEST(label_and_command_quoted)
{
    const char *dir = tl_test_tmpdir();
    char args[2048];
    snprintf(args, sizeof args,
             "run --grid 16 --cpml 0 --steps 2 --label 'x,\"y\"' --receivers '12,12,12;5,5,5' --seismogram %s/s.csv "
             "--results %s/r/r.csv",
             dir, dir);
    tl_test_output r = fdtd(args);
    TL_ASSERT_EQ(r.rc, 0);
    const char *cmd = strstr(r.out, "# command: ");
    TL_ASSERT(cmd);
    cmd += strlen("# command: ");
    TL_ASSERT_MSG(strstr(cmd, " --label 'x,\"y\"' --receivers '12,12,12;5,5,5' "), "%s", r.out);
    char p[1024];
    snprintf(p, sizeof p, "%s/r/manifest.txt", dir);
    char *m = tl_test_read(p);
    const char *mc = strstr(m, "\ncommand: ");
    TL_ASSERT(mc);
    mc += strlen("\ncommand: ");
    TL_ASSERT_MSG(strncmp(cmd, mc, (size_t)(strchr(mc, '\n') - mc + 1)) == 0, "preamble %.*s\nmanifest %.*s",
                  (int)(strchr(cmd, '\n') - cmd), cmd, (int)(strchr(mc, '\n') - mc), mc);
    free(m);
    /* the shell reads it back as the arguments given: 16 words, the label the 10th */
    char sh[4096], words[64];
    snprintf(sh, sizeof sh, "eval \"set -- $(sed -n 's/^command: //p' %s)\"; echo $#; printf '%%s\\n' \"${10}\"", p);
    TL_ASSERT_EQ(tl_test_sh_to(words, sizeof words, "%s", sh), 0);
    TL_ASSERT_STREQ(words, "16\nx,\"y\"\n");
    snprintf(p, sizeof p, "%s/r/r.csv", dir);
    char *csv = tl_test_read(p);
    const char *row = strchr(csv, '\n');
    TL_ASSERT_MSG(row && strncmp(row + 1, "\"x,\"\"y\"\"\",cpu,-,", 16) == 0, "%s", csv);
    TL_ASSERT_EQ(tl_test_csv_fields(row + 1), tl_test_csv_fields(csv));
    TL_ASSERT_EQ(tl_test_csv_fields(csv), 22);
    /* stdout's row is the file's */
    TL_ASSERT(strstr(r.out, row));
    free(csv);
    tl_test_output_free(&r);
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
    /* the files are the CPML run's, which its reference run does not write
     * (it wrote them first, the CPML run then over them) */
    const char *dir = tl_test_tmpdir();
    char args[2048], p[2][2][512];
    for (int k = 0; k < 2; k++) {
        snprintf(p[k][0], sizeof p[k][0], "%.400s/cmp%d-s.csv", dir, k);
        snprintf(p[k][1], sizeof p[k][1], "%.400s/cmp%d-e.csv", dir, k);
        snprintf(args, sizeof args,
                 "run --grid 24 --cpml 4 --steps 5 --receivers 12,12,5 --energy-every 1 --seismogram %.480s --energy-out "
                 "%.480s%s",
                 p[k][0], p[k][1], k ? " --compare-cpml" : "");
        r = fdtd(args);
        TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
        tl_test_output_free(&r);
    }
    for (int f = 0; f < 2; f++) {
        char *one = tl_test_read(p[0][f]), *two = tl_test_read(p[1][f]);
        TL_ASSERT_STREQ(two, one);
        free(one);
        free(two);
    }
    /* slices are written inside the timed steps: refused, not timed in
     * both runs (the reference's first, then over them) */
    snprintf(args, sizeof args, "run --grid 24 --cpml 4 --steps 5 --compare-cpml --slice-every 5 --slice-dir %.400s/cmp-sl",
             dir);
    usage_error(args, "trilap-fdtd: --compare-cpml times a run with CPML against one without, and --slice-every 5 "
                      "writes files inside the timed steps of both (take slices in a run of their own, or drop "
                      "--compare-cpml)\n");
    snprintf(p[0][0], sizeof p[0][0], "%.400s/cmp-sl", dir);
    TL_ASSERT(access(p[0][0], F_OK) != 0);
}

/* Two commands into one results file: each keeps its block in
 * manifest.txt, --compare-cpml's two rows in one (the manifest named only
 * the last command). */
TL_TEST(manifest_block_per_command)
{
    const char *dir = tl_test_tmpdir();
    char args[1024], p[1024];
    snprintf(args, sizeof args, "run --grid 24 --cpml 4 --steps 3 --compare-cpml --label a --results %s/r/f.csv", dir);
    tl_test_output r = fdtd(args);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    tl_test_output_free(&r);
    snprintf(args, sizeof args, "run --grid 16 --cpml 0 --steps 2 --label b --results %s/r/f.csv", dir);
    r = fdtd(args);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    tl_test_output_free(&r);
    snprintf(p, sizeof p, "%s/r/manifest.txt", dir);
    char *m = tl_test_read(p);
    const char *a = strstr(m, "--label a --results "), *b = strstr(m, "--label b --results ");
    TL_ASSERT_MSG(a && b && a < b, "%s", m);
    TL_ASSERT(strstr(a, "\nresults: f.csv\nresults_lines: 2-3\n") < b);
    TL_ASSERT(strstr(b, "\nresults: f.csv\nresults_lines: 4\n"));
    free(m);
    /* a results file of other rows: refused before the run (it was said
     * after the simulation, the row lost), stdout empty */
    snprintf(p, sizeof p, "%s/other.csv", dir);
    tl_test_write(p, "a,b\n1,2\n");
    snprintf(args, sizeof args, "run --grid 16 --cpml 0 --steps 2 --results %.900s", p);
    r = fdtd(args);
    TL_ASSERT_EQ(r.rc, 1);
    TL_ASSERT_MSG(!r.out[0] && strstr(r.err, "other.csv:1: header 'a,b' differs from this program's"), "%s%s", r.out, r.err);
    tl_test_output_free(&r);
    /* its own manifest's name: a name no file system can make results of,
     * exit 2 as in trilap-solve and trilap-bench (it was 1, a file error) */
    snprintf(args, sizeof args, "run --grid 16 --cpml 0 --steps 2 --results %s/manifest.txt", dir);
    r = fdtd(args);
    TL_ASSERT_MSG(r.rc == 2 && !r.out[0] && strstr(r.err, "manifest.txt': the manifest beside a results file is named so"),
                  "rc %d: %s%s", r.rc, r.out, r.err);
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

/* In single precision the order-8 error reaches the rounding floor by
 * n = 16 (8.3e-8; the floor u sqrt(steps), 3.6e-7 at its 36 steps): its
 * rates are left empty and a footer names the sizes (before: rates 8.070
 * and 0.645 printed as rates). Order 4, and order 8 in double, keep
 * theirs. */
/* 1: the table's row that starts with `start` ("order,n,", "dt,") has its
 * two rates (not empty) */
static int row_has_rates(const char *table, const char *start)
{
    char key[32];
    snprintf(key, sizeof key, "\n%s", start);
    const char *row = strstr(table, key), *end = row ? strchr(row + 1, '\n') : NULL;
    TL_ASSERT_MSG(end, "no row %s in\n%s", start, table);
    return !(end[-1] == ',' && end[-2] == ',');
}

/* the table's one footer, after a row without rates: rows `what` at the
 * single-precision floor, u sqrt(steps) = `floors` */
static void says_the_floor(const char *table, const char *what, const char *floors)
{
    char want[512];
    snprintf(want, sizeof want,
             ",,\n%s: l2 within 2x the rounding floor of single precision (u sqrt(steps) = %s, u = 5.96e-08, "
             "amplitude 1); the error stops falling there, so no rate is given (--precision double)\n",
             what, floors);
    TL_ASSERT_MSG(strstr(table, want), "no\n%s\nin\n%s", want, table);
    TL_ASSERT_EQ(tl_test_count(table, "#"), 1);
}

TL_TEST(verify_convergence_says_the_rounding_floor)
{
    tl_test_output r = fdtd("verify convergence --precision single --orders 4,8 --sizes 8,16,32");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT_MSG(row_has_rates(r.out, "4,16,") && row_has_rates(r.out, "4,32,"), "%s", r.out);
    TL_ASSERT_MSG(!row_has_rates(r.out, "8,16,") && !row_has_rates(r.out, "8,32,"), "%s", r.out);
    says_the_floor(r.out, "# order 8, n = 16, 32", "3.58e-07 to 5.06e-07");
    tl_test_output_free(&r);
    r = fdtd("verify convergence --precision double --orders 8 --sizes 8,16,32");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT_MSG(row_has_rates(r.out, "8,16,") && row_has_rates(r.out, "8,32,") && !strchr(r.out, '#'), "%s", r.out);
    tl_test_output_free(&r);
}

/* verify time in single at n = 8: 446 steps (CFL 0.02) give l2 9.0e-6,
 * above the floor (2 u sqrt(446) = 2.5e-6), 1783 steps (CFL 0.005)
 * 7.5e-7, within 2x its 2.5e-6, where double gives 5.6e-7 and rate
 * 2.001: up to ec69945 the rate between them was printed, 1.788 (verify
 * convergence's floor then, 10 u = 6.0e-7, would have missed it too); now
 * none, and the footer names the step. Double keeps its rates (the
 * convergence test above: the floor test is one). */
TL_TEST(verify_time_says_the_rounding_floor)
{
    tl_test_output r = fdtd("verify time --precision single --grid 8 --cfls 0.02,0.005");
    TL_ASSERT_EQ(r.rc, 0);
    static const char first[] = "dt,l2,linf,rate_l2,rate_linf\n1.121076e-03,8.98"; /* above the floor */
    TL_ASSERT_MSG(strncmp(r.out, first, strlen(first)) == 0, "%s", r.out);
    TL_ASSERT_MSG(!row_has_rates(r.out, "2.804262e-04,"), "%s", r.out);
    says_the_floor(r.out, "# dt = 2.80e-04", "2.52e-06");
    tl_test_output_free(&r);
}

/* a configuration that cannot run: exit 2 */
static void refused_before_printing(const char *args, const char *err) { refused_with(2, args, err); }

/* A new user's mistakes on the command line, each one line naming the
 * option, exit 2, nothing printed; what each did before is beside it. */
TL_TEST(command_line_mistakes_one_line)
{
    /* an option typed twice keeps its last value, as in every trilap
     * program (runtime/options.c), and says so (before: without a word;
     * test_options:repeats_noted has the forms) */
    tl_test_output r = fdtd("run --grid 6 --steps 1 --grid 8 --periodic --no-overlap --overlap");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT_MSG(strstr(r.err, "trilap-fdtd: note: --grid is given twice; the last one given is used\n") &&
                      strstr(r.err, "trilap-fdtd: note: --overlap (or --no-overlap) is given twice; the last one "
                                    "given is used\n") &&
                      strstr(r.out, "grid: 8x8x8"),
                  "%s\n%s", r.err, r.out);
    tl_test_output_free(&r);
    /* the solver's bound, said as the option typed (was "grid size
     * 1048577 along z: must be 2 to 2^20"; --grid 1: run_refuses_before_printing) */
    refused_before_printing("run --grid 8x8x1048577", "trilap-fdtd: invalid --grid '8x8x1048577': every axis needs 2 "
                                                      "to 2^20 points (try --help)\n");
    /* 0 stands for the default when not typed; typed, it ran the default
     * (verify time --grid 0 printed the 16^3 table, exit 0) */
    refused_before_printing("verify time --grid 0", "trilap-fdtd: invalid --grid '0': a grid needs points (leave "
                                                    "--grid out for the experiment's default) (try --help)\n");
    refused_before_printing("verify decomp --steps 0", "trilap-fdtd: invalid --steps '0': no step would run (leave "
                                                       "--steps out for the experiment's default) (try --help)\n");
    /* an energy period beyond the run: --energy-out held step 0's 0 alone, exit 0 */
    refused_before_printing("run --grid 8 --steps 2 --warmup 1 --energy-every 4 --energy-out e.csv",
                            "trilap-fdtd: --energy-every 4 beyond the run's 3 steps (--warmup and --steps): no "
                            "step's energy would be taken (give N <= 3)\n");
    /* was the solver's "the per-kernel breakdown times GPU work ...", naming no option */
    refused_before_printing("run --grid 8 --steps 2 --breakdown b.csv",
                            "trilap-fdtd: --breakdown b.csv times GPU kernels and copies with CUDA events; "
                            "--backend cpu has none (add --backend cuda, or drop --breakdown)\n");
    /* was "verify decomp, 1x1x1, copy, s = 0: s = 0: local steps between exchanges must be 1 to 64" */
    refused_before_printing("verify decomp --ss 1,0", "trilap-fdtd: invalid --ss '1,0': 0 is not 1 to 64 (try --help)\n");
    /* an empty label wrote a row whose first column named no run */
    refused_before_printing("run --grid 8 --steps 2 --label ''", "trilap-fdtd: invalid --label '': an empty label; the "
                                                                 "results row's first column names the run (try "
                                                                 "--help)\n");
    /* a folder for --results was "--results (its manifest) d/manifest.txt
     * lies under the file --results names", exit 2 */
    refused_with(1, "run --grid 8 --steps 2 --results /tmp/", "trilap-fdtd: --results: /tmp/: a folder; give a file "
                                                              "name\n");
    /* the row's label field was cut at 511 bytes without a word */
    char args[512];
    snprintf(args, sizeof args, "run --grid 8 --steps 2 --label %0201d", 0);
    refused_before_printing(args, "trilap-fdtd: --label is 201 characters long; the results row takes at most 200 "
                                  "(try --help)\n");
    /* a list ending in a comma was taken without its last entry */
    refused_before_printing("verify convergence --sizes 8,", "trilap-fdtd: invalid --sizes '8,': expected up to 16 "
                                                             "grid sizes, comma-separated (try --help)\n");
    refused_before_printing("verify time --cfls 0.4,", "trilap-fdtd: invalid --cfls '0.4,': expected up to 16 "
                                                       "positive CFL fractions, comma-separated (try --help)\n");
}

/* A grid the host cannot hold: said before verify's header, exit 1 (the
 * machine's lack, as run says it; before, the header was printed, and
 * verify reflection --cells 1000 ran its reference, 146^3 and 95 MiB
 * here, for 3 minutes before its 2040^3 run was refused) */
TL_TEST(verify_memory_checked_before_the_table)
{
    tl_test_refused_whole(1,
                          "trilap-fdtd: verify time, n = 64, CFL 0.8: the 64x64x64 grid (double) needs 8.0 MiB of "
                          "host memory; 976.6 KiB is available\n",
                          "TRILAP_TEST_HOST_MEM=1e6 %s/trilap-fdtd verify time --grid 64", tl_test_bin());
    tl_test_output r = tl_test_capture("TRILAP_TEST_HOST_MEM=2e9 %s/trilap-fdtd verify reflection --cells 1000", tl_test_bin());
    TL_ASSERT_EQ(r.rc, 1);
    TL_ASSERT_MSG(strstr(r.err, "trilap-fdtd: verify reflection, 1x1x1: the 2040x2040x2040 grid (double) needs ") &&
                      tl_test_count(r.err, "\n") == 1 && !r.out[0],
                  "%s", r.err);
    tl_test_output_free(&r);
}

/* A grid verify reflection derives from its options past verify's 4096
 * points per axis is the command line's fault: one line naming the option
 * (before: --cells 0,100000 was "the 200040x200040x200040 grid (double)
 * needs 238561658.9 GiB of host memory", exit 1; --f0 1e-6 "grid size
 * 2400098 along x: must be 2 to 2^20"); within it, a host too small is
 * the machine's lack, exit 1, naming the reference run. */
TL_TEST(verify_reflection_bounds_name_the_option)
{
    refused_before_printing("verify reflection --cells 0,100000",
                            "trilap-fdtd: invalid --cells '0,100000': 100000 cells on each side of the 40-point "
                            "interior make 200040 points per axis, and verify's grids stop at 4096: at most 2028 cells "
                            "with this --n-int (try --help)\n");
    refused_before_printing("verify reflection --n-int 4096",
                            "trilap-fdtd: invalid --n-int '4096': 24 cells on each side of the 4096-point interior make "
                            "4144 points per axis, and verify's grids stop at 4096: at most 4048 interior points with "
                            "--cells 0,8,12,16,24 (try --help)\n");
    refused_before_printing("verify reflection --f0 1e-6",
                            "trilap-fdtd: --n-int 40 with --f0 1e-06: the reference run (the interior in a grid where "
                            "nothing returns within the window) needs 2400098 points per axis, and verify's grids stop "
                            "at 4096 (give a smaller --n-int or a higher --f0)\n");
    tl_test_output r = tl_test_capture("TRILAP_TEST_HOST_MEM=2e9 %s/trilap-fdtd verify reflection --f0 1e-3",
                                       tl_test_bin());
    TL_ASSERT_EQ(r.rc, 1);
    TL_ASSERT_MSG(strstr(r.err, "trilap-fdtd: verify reflection, the reference run (--n-int 40 inside a grid where "
                                "nothing returns within the window, for --f0 0.001): the 2498x2498x2498 grid (double) "
                                "needs ") && tl_test_count(r.err, "\n") == 1 && !r.out[0],
                  "%s", r.err);
    tl_test_output_free(&r);
}

/* What the solver would refuse is refused before the preamble: one line,
 * exit 2, no note (the CPML's is said only when the run goes ahead), and
 * stdout empty (before: the preamble and the CSV header, then exit 1). */
TL_TEST(run_refuses_before_printing)
{
    const char *pre = "run --steps 5 --grid 32";
    char args[256];
    static const struct {
        const char *args, *err;
    } cases[] = {
        {"--decomp 64x1x1", "32 points along x cannot be cut into 64 subdomains"},
        {"--s 3 --decomp slab-z", "subdomain 0 has 8 points along z, fewer than the ghost depth g = 2 r s = 24 (order "
                                  "8, s = 3); use a grid of at least 96 points along z, at most 1 subdomain along z, "
                                  "order 2, or s = 1"},
        {"--dt 100", "dt = 100 violates the CFL condition: c_max dt sqrt(3) sum|c_m| / h = 222.8 > 1 (order 8, h = 1: "
                     "dt must be <= 0.448842)"},
        /* the option named (before: "source x = 100 ...", "receiver 1: ...") */
        {"--source 100,1,1", "--source: x = 100 outside the grid [0, 32)"},
        {"--receivers '1,1,1;3,40,2' --seismogram s.csv", "--receivers: receiver 1: y = 40 outside the grid [0, 32)"},
        {"--strategy peer", "invalid --strategy 'peer': expected a strategy of --backend cpu (cpu: copy|ranks; "
                            "cuda: host|peer|nccl|devcomm) (try --help)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[512];
        snprintf(args, sizeof args, "%s %s", pre, cases[i].args);
        snprintf(err, sizeof err, "trilap-fdtd: %s\n", cases[i].err);
        refused_before_printing(args, err);
    }
    /* a CPML the grid cannot hold, with advice it can follow: "an 8-cell"
     * (was "a 8-cell"); none fits: --cpml 0 (was "--cpml 0 or less"), and
     * in verify energy, which refuses --cells 0, a larger grid alone (was
     * "--cells 0 or less") */
    refused_before_printing("run --steps 5 --grid 16 --cpml 8",
                            "trilap-fdtd: --grid 16 is too small for an 8-cell CPML on each side (it needs 18 points "
                            "per axis); use --cpml 7 or less, or a grid of at least 18\n");
    refused_before_printing("run --steps 5 --grid 3 --cpml 1",
                            "trilap-fdtd: --grid 3 is too small for a 1-cell CPML on each side (it needs 4 points per "
                            "axis); use --cpml 0 (none), or a grid of at least 4\n");
    refused_before_printing("verify energy --grid 3 --cells 1",
                            "trilap-fdtd: --grid 3 is too small for a 1-cell CPML on each side (it needs 4 points per "
                            "axis); use a grid of at least 4\n");
    /* the solver's bound, said as the option typed (was "grid size 1 along x: must be 2 to 2^20") */
    refused_before_printing("run --steps 5 --grid 1",
                            "trilap-fdtd: invalid --grid '1': every axis needs 2 to 2^20 points (try --help)\n");
    /* an option that acts only with its partner: alone it was accepted
     * and wrote nothing (or computed a monitor nobody saw) */
    static const struct {
        const char *args, *err;
    } halves[] = {
        {"--energy-out e.csv", "--energy-out without --energy-every N: the energy monitor is off, nothing to write"},
        {"--energy-every 2", "--energy-every without --energy-out FILE: the energy series would go nowhere (to time "
                             "the monitor alone: --breakdown or --trace)"},
        {"--seismogram s.csv", "--seismogram without --receivers I,J,K: no receiver, nothing to write"},
        {"--receivers 1,1,1", "--receivers without --seismogram FILE: the receivers' traces would go nowhere (to "
                              "time them alone: --breakdown or --trace)"},
        {"--slice z=3", "--slice without --slice-every N: no slice is written"},
        {"--slice-dir sl", "--slice-dir without --slice-every N: no slice is written"},
    };
    for (size_t i = 0; i < sizeof halves / sizeof halves[0]; i++) {
        char err[512];
        snprintf(args, sizeof args, "%s %s", pre, halves[i].args);
        snprintf(err, sizeof err, "trilap-fdtd: %s\n", halves[i].err);
        refused_before_printing(args, err);
    }
    /* on 4 thread ranks: rank 0 says it, once */
    refused_before_printing("run --steps 5 --grid 32 --decomp slab-z --s 3 --launcher threads --ranks 4 --no-gpu",
                            "trilap-fdtd: rank 0: subdomain 0 has 8 points along z, fewer than the ghost depth g = 2 r s "
                            "= 24 (order 8, s = 3); use a grid of at least 96 points along z, at most 1 subdomain along "
                            "z, order 2, or s = 1\n");
}
/* A CFL fraction's step count is said before the work: --cfl 1e-6 (the
 * option's bound) ran verify convergence's 3.6e7 steps at order 8, n = 32
 * without a word; --cfls 1e-300 said "steps must be >= 0", naming no
 * option. Beyond 1e6 steps a run is refused with the fraction that fits;
 * a study of more than 10^4 steps in all says its count. */
TL_TEST(verify_says_its_step_count_first)
{
    refused_before_printing("verify convergence --cfl 1e-6",
                            "trilap-fdtd: invalid --cfl '1e-06': order 8, n = 32 would take 3.565e+07 time steps to t "
                            "= 0.5 at CFL 1e-06, beyond the 1000000 a run may take (give 3.57e-05 or more) (try "
                            "--help)\n");
    refused_before_printing("verify time --grid 8 --cfls 0.8,1e-300",
                            "trilap-fdtd: invalid --cfls '0.8,1e-300': order 8, n = 8 would take 8.912e+300 time steps "
                            "to t = 0.5 at CFL 1e-300, beyond the 1000000 a run may take (give 8.92e-06 or more) (try "
                            "--help)\n");
    tl_test_output r = fdtd("verify convergence --orders 2 --sizes 8 --cfl 0.0005");
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    TL_ASSERT_STREQ(r.err, "trilap-fdtd: note: --cfl 0.0005 makes verify convergence's 1 run take 13857 time steps to t "
                           "= 0.5 (the most, 13857, at order 2, n = 8, CFL 0.0005)\n");
    TL_ASSERT(!strncmp(r.out, "order,n,l2,linf,rate_l2,rate_linf\n2,8,", 37));
    tl_test_output_free(&r);
}

/* Every refused value of an enumerated option names the option and the
 * values it takes. --strategy was refused by the solver: "exchange strategy
 * 'bogus' is not one of the cpu backend's (...)", no option named, in
 * verify after the run's context ("verify convergence, order 2, n = 8: "). */
TL_TEST(enumerated_options_refused_by_name)
{
    static const char strat[] = "expected a strategy of --backend cpu (cpu: copy|ranks; cuda: host|peer|nccl|devcomm) "
                                "(try --help)\n";
    static const struct {
        const char *args, *err;
    } cases[] = {
        {"run --grid 16 --steps 2 --strategy bogus", "invalid --strategy 'bogus': %s"},
        {"verify convergence --sizes 8 --orders 2 --strategy bogus", "invalid --strategy 'bogus': %s"},
        {"verify reflection --n-int 8 --cells 0,4 --strategy nccl", "invalid --strategy 'nccl': %s"},
        {"verify time --grid 8 --strategy bogus", "invalid --strategy 'bogus': %s"},
        {"verify energy --grid 24 --cells 4 --steps 4 --strategy bogus", "invalid --strategy 'bogus': %s"},
        {"run --kernel bogus", "invalid --kernel 'bogus': expected one of tiled|naive|"},
        {"verify time --precision bogus", "invalid --precision 'bogus': expected one of single|double (try --help)\n"},
        {"run --backend bogus", "invalid --backend 'bogus': expected one of cpu|cuda (try --help)\n"},
        {"verify decomp --launcher bogus", "invalid --launcher 'bogus': expected one of auto|threads|mpi (try --help)\n"},
        {"run --device-comm bogus", "invalid --device-comm 'bogus': expected one of nccl|host (try --help)\n"},
        {"run --source bogus", "invalid --source 'bogus': expected center, none or I,J,K (try --help)\n"},
        {"run --decomp bogus", "invalid --decomp 'bogus': expected PXxPYxPZ, slab-z, block-xy or pencil-yz (try "
                               "--help)\n"},
        {"verify energy --decomp 2x", "invalid --decomp '2x': expected PXxPYxPZ, slab-z, block-xy or pencil-yz (try "
                                      "--help)\n"},
        {"verify reflection --decomps 1x1x1,bogus", "invalid --decomps '1x1x1,bogus': 'bogus' is not PXxPYxPZ, "
                                                    "slab-z, block-xy or pencil-yz (try --help)\n"},
        {"run --order 6", "invalid --order '6': must be 2, 4 or 8 (try --help)\n"},
        {"verify convergence --orders 2,6", "invalid --orders '2,6': 6 is not 2, 4 or 8 (try --help)\n"},
        {"run --slice-every 2 --slice w=1", "invalid --slice 'w=1': expected x=I, y=I or z=I (I a number or mid) (try "
                                            "--help)\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char want[512];
        snprintf(want, sizeof want, "trilap-fdtd: ");
        snprintf(want + strlen(want), sizeof want - strlen(want), cases[i].err, strat);
        tl_test_output r = fdtd(cases[i].args);
        TL_ASSERT_MSG(r.rc == 2, "%s: exit %d", cases[i].args, r.rc);
        /* one line, starting with the wanted one (--kernel's list is long) */
        TL_ASSERT_MSG(!strncmp(r.err, want, strlen(want)) && strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
                      "%s: %s", cases[i].args, r.err);
        TL_ASSERT_STREQ(r.out, "");
        tl_test_output_free(&r);
    }
}


/* Too thin for the ghosts: the line offers only what would mend it and
 * the user can change (before: "use fewer subdomains along x or a
 * smaller s" on one subdomain at s = 1, neither possible) */
TL_TEST(ghost_depth_advice_can_be_followed)
{
    static const struct {
        const char *args, *err;
    } cases[] = {
        {"run --grid 2 --periodic --steps 1", "the grid has 2 points along x, fewer than the ghost depth g = 2 r s = 8 "
                                             "(order 8, s = 1); use a grid of at least 8 points along x, y and z, or "
                                             "order 2"},
        {"run --grid 6x20x8 --periodic --decomp 2x3x1 --steps 1",
         "subdomain 0 has 3 points along x, fewer than the ghost depth g = 2 r s = 8 (order 8, s = 1); use a grid of "
         "at least 16 points along x and 24 along y, or order 2"},
        {"run --grid 12 --periodic --decomp 2x1x1 --order 4 --s 2 --steps 1",
         "subdomain 0 has 6 points along x, fewer than the ghost depth g = 2 r s = 8 (order 4, s = 2); use a grid of "
         "at least 16 points along x, at most 1 subdomain along x, order 2, or s = 1"},
        /* the thinnest subdomain is named, the cut's last ones (up to
         * 58a8851 the first too thin: "subdomain 0 has 5 points") */
        {"run --grid 9x16x16 --periodic --decomp 2x1x1 --steps 1",
         "subdomain 1 has 4 points along x, fewer than the ghost depth g = 2 r s = 8 (order 8, s = 1); use a grid of "
         "at least 16 points along x, at most 1 subdomain along x, or order 4 or lower"},
        {"run --grid 23x16x16 --cpml 0 --decomp 3x1x1 --steps 1",
         "subdomain 2 has 7 points along x, fewer than the ghost depth g = 2 r s = 8 (order 8, s = 1); use a grid of "
         "at least 24 points along x, at most 2 subdomains along x, or order 4 or lower"},
        {"run --grid 4 --periodic --order 2 --steps 1", NULL}, /* g = 2 fits: runs */
        /* an experiment without --orders advises no order (up to e2e0d87 "or order 2") */
        {"verify time --grid 3", "verify time, n = 3, CFL 0.8: the grid has 3 points along x, fewer than the ghost "
                                 "depth g = 2 r s = 8 (order 8, s = 1); use --grid 8 or more"},
        /* an experiment's grid is named by its option: convergence takes
         * --sizes, and said "a grid of at least 4 points along x, y and z" */
        {"verify convergence --sizes 2,8 --orders 2,4", "verify convergence, order 4, n = 2: the grid has 2 points "
                                                       "along x, fewer than the ghost depth g = 2 r s = 4 (order 4, s "
                                                       "= 1); use --sizes 4 or more, or order 2"},
        {"verify convergence --decomp 1x1x2 --s 4 --sizes 8,16",
         "verify convergence, order 2, n = 8: subdomain 0 has 4 points along z, fewer than the ghost depth g = 2 r s = "
         "8 (order 2, s = 4); use --sizes 16 or more, at most 1 subdomain along z, or s = 2 or less"},
        /* reflection takes --n-int, not --grid (it said "a grid of at least
         * 64 points along z"), and the thinnest CPML's run is checked first,
         * so the --n-int named mends every --cells entry */
        {"verify reflection --decomps slab-z --s 2",
         "verify reflection, slab-z: subdomain 0 has 10 points along z, fewer than the ghost depth g = 2 r s = 16 "
         "(order 8, s = 2); use --n-int 64 or more, at most 2 subdomains along z, or s = 1"},
        {"verify reflection --decomps slab-z --s 2 --cells 24,8",
         "verify reflection, slab-z: subdomain 0 has 14 points along z, fewer than the ghost depth g = 2 r s = 16 "
         "(order 8, s = 2); use --n-int 48 or more, at most 3 subdomains along z, or s = 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!cases[i].err) {
            tl_test_output r = fdtd(cases[i].args);
            TL_ASSERT_MSG(r.rc == 0, "%s: rc %d: %s", cases[i].args, r.rc, r.err);
            tl_test_output_free(&r);
            continue;
        }
        char err[512];
        snprintf(err, sizeof err, "trilap-fdtd: %s\n", cases[i].err);
        refused_before_printing(cases[i].args, err);
    }
}

/* An entry given twice is refused (before: --sizes 8,8 and --cfls 0.8,0.8
 * printed a rate of -nan against the row before, exit 0; other lists ran
 * a row twice) */
TL_TEST(verify_refuses_repeated_list_entries)
{
    static const struct {
        const char *args, *err;
    } cases[] = {
        {"verify convergence --sizes 8,8 --orders 2", "invalid --sizes '8,8': 8 is given twice"},
        {"verify convergence --sizes 8,16,8 --orders 2", "invalid --sizes '8,16,8': 8 is given twice"},
        {"verify convergence --sizes 8 --orders 2,4,2", "invalid --orders '2,4,2': 2 is given twice"},
        {"verify time --cfls 0.8,0.8 --grid 8", "invalid --cfls '0.8,0.8': 0.8 is given twice"},
        {"verify time --cfls 0.8,0.79", "invalid --cfls '0.8,0.79': 0.8 and 0.79 give one time step at n = 16 (23 "
                                        "steps to t = 0.5), so no rate between them"},
        {"verify reflection --n-int 8 --cells 0,8,8", "invalid --cells '0,8,8': 8 is given twice"},
        {"verify reflection --n-int 8 --decomps slab-z,1x1x4",
         "invalid --decomps 'slab-z,1x1x4': 'slab-z' and '1x1x4' are one decomposition, 1x1x4"},
        {"verify decomp --grid 16 --decomps 1x1x2,1x1x2", "invalid --decomps '1x1x2,1x1x2': '1x1x2' is given twice"},
        {"verify decomp --grid 16 --strategies copy,copy", "invalid --strategies 'copy,copy': 'copy' is given twice"},
        {"verify decomp --grid 16 --ss 1,1", "invalid --ss '1,1': 1 is given twice"},
        /* past 2^63 - 1: it ran as 9223372036854775807, refused deep in the
         * run as "verify convergence, order 2, n = 9223372: grid size ..." */
        {"verify convergence --sizes 8,99999999999999999999 --orders 2",
         "invalid --sizes '8,99999999999999999999': expected up to 16 grid sizes, comma-separated"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[512];
        snprintf(err, sizeof err, "trilap-fdtd: %s (try --help)\n", cases[i].err);
        refused_before_printing(cases[i].args, err);
    }
    /* distinct entries in either order still give finite rates */
    tl_test_output r = fdtd("verify convergence --sizes 16,8 --orders 2");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT_MSG(!tl_test_says_nan(r.out) && tl_test_count(r.out, "\n") == 3, "%s", r.out);
    tl_test_output_free(&r);
}

/* An option that contradicts another or sets what the run does not have
 * is refused where typed (before: accepted, and the run went on without
 * it, the preamble still printing its value); a default never is. */
TL_TEST(run_refuses_options_without_effect)
{
    const char *pre = "run --grid 24 --steps 2";
    char args[512], err[512];
    static const struct {
        const char *args, *err;
    } cases[] = {
        {"--dt 0.1 --cfl 0.9", "--dt 0.1 and --cfl 0.9 both set the time step (--dt would win); give one of them"},
        {"--cpml 0 --cpml-r 1e-2 --kappa-max 1 --alpha-frac 0.5",
         "--cpml-r, --kappa-max and --alpha-frac with --cpml 0: there is no CPML to shape (give --cpml N, or drop "
         "--cpml-r, --kappa-max and --alpha-frac)"},
        {"--periodic --kappa-max 2", "--kappa-max with --periodic: there is no CPML to shape (drop --kappa-max)"},
        {"--cpml 0 --compare-cpml",
         "--compare-cpml needs a CPML: --cpml 0 has none (give --cpml N, or drop --compare-cpml)"},
        /* it ran with zero fields and a preamble that named the source */
        {"--amp 0", "invalid --amp '0': a source of amplitude 0 adds nothing (for a run without one: --source none) "
                    "(try --help)"},
        {"--periodic --compare-cpml", "--compare-cpml needs a CPML: --periodic has none (drop --compare-cpml)"},
        {"--layer-k 0 --K2 9 --rho2 5", "--K2 and --rho2 with --layer-k 0: there is no lower layer to set (give "
                                        "--layer-k K, or drop --K2 and --rho2)"},
        {"--rho2 5", "--rho2 without --layer-k K: there is no lower layer to set (give --layer-k K, or drop --rho2)"},
        {"--layer-k 24 --K2 9", "--layer-k 24 lies beyond the grid's 24 points along z (k = 0 to 23): the lower layer "
                                "would be empty (give K below 24, or drop --layer-k)"},
        {"--source none --f0 0.2 --amp 100", "--f0 and --amp with --source none: there is no source to shape (give "
                                             "--source center or I,J,K, or drop --f0 and --amp)"},
        /* every trace, energy and slice was 0, exit 0 */
        {"--source none --receivers 3,3,3 --seismogram s.csv --energy-every 1 --energy-out e.csv",
         "--seismogram and --energy-out with --source none: the run starts from zero fields and, without a source, "
         "what it records would be 0 throughout (give --source center or I,J,K, or drop --seismogram and "
         "--energy-out)"},
        {"--source none --slice-every 1 --slice-dir sl", "--slice-every with --source none: the run starts from zero "
                                                         "fields and, without a source, what it records would be 0 "
                                                         "throughout (give --source center or I,J,K, or drop "
                                                         "--slice-every)"},
        {"--gpus 7", "--gpus 7 spreads the subdomains over GPUs; --backend cpu runs on the host (add --backend cuda, "
                     "or drop --gpus)"},
        {"--device-comm host", "--device-comm host moves GPU buffers between ranks; --backend cpu ranks exchange host "
                               "messages (add --backend cuda, or drop --device-comm)"},
        {"--slice-every 3 --warmup 0", "--slice-every 3 beyond the run's 2 steps (--warmup and --steps): no slice would be "
                                       "written (give N <= 2)"},
        /* one subdomain, no periodic faces: no ghost exchange (before: accepted, the
         * preamble saying "s: 2  ghost: 16", the same memory and result) */
        {"--s 2", "--s 2 with one subdomain (--decomp 1x1x1) and no --periodic: there is no ghost exchange to space "
                  "out (give --decomp PXxPYxPZ or --periodic, or drop --s 2)"},
        {"--overlap --decomp 1x1x1", "--overlap with one subdomain (--decomp 1x1x1) and no --periodic: there is no "
                                     "ghost exchange to overlap (give --decomp PXxPYxPZ or --periodic, or drop "
                                     "--overlap)"},
        /* a pulse the run cannot hear: it added 1.8e-5 of --amp a step, or
         * nothing (a seismogram of zeros), or at 1e300 a NaN blamed on dt */
        {"--f0 1e-300", "--f0 1e-300 puts the Ricker pulse's peak at step 5.35e+300 (delay 1.2 / f0 = 1.2e+300 s, dt "
                        "= 0.224421 s); below 0.1% of its peak until step 8.91e+299, it would add next to nothing in "
                        "the run's 2 steps (--warmup and --steps) (give --f0 0.595 or more, or more --steps)"},
        {"--f0 100", "--f0 100 is above 1 / (2 dt) = 2.23 Hz, the highest frequency time steps of 0.224421 s sample: "
                     "the Ricker pulse would fall between the steps (give --f0 2.22 or less, or a smaller --dt or "
                     "--cfl)"},
        /* a coefficient the precision cannot hold: every p NaN at the first
         * check, "the run is unstable (lower --dt or --cfl)", exit 1 */
        {"--K 1e80 --source none", "--K 1e+80, --rho 1 and --h 1 make the update's K dt = 2.24e+39 (dt = 2.24e-41 s), "
                                   "beyond single precision's 3.4e+38: the fields would be NaN (give --precision "
                                   "double, or a medium and spacing nearer 1)"},
        {"--layer-k 8 --K2 1e80 --source none",
         "--K 1, --rho 1, --K2 1e+80, --rho2 1 and --h 1 make the update's K dt (upper layer) = 2.24e-41 (dt = 2.24e-41 "
         "s), below single precision's 1.18e-38: the fields would be updated with lost digits (give --precision double, "
         "or a medium and spacing nearer 1)"},
        {"--s 3 --overlap --order 2", "--s 3 and --overlap with one subdomain (--decomp 1x1x1) and no --periodic: "
                                      "there is no ghost exchange to space out or overlap (give --decomp PXxPYxPZ or "
                                      "--periodic, or drop --s 3 and --overlap)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(args, sizeof args, "%s %s", pre, cases[i].args);
        snprintf(err, sizeof err, "trilap-fdtd: %s\n", cases[i].err);
        refused_before_printing(args, err);
    }
    /* the CPML a small grid gets by default is 0 on 3 points: nothing to compare */
    refused_before_printing("run --grid 3 --steps 2 --compare-cpml",
                            "trilap-fdtd: --compare-cpml needs a CPML: --grid 3 has no room for one (give a larger "
                            "--grid, or drop --compare-cpml)\n");
    /* where each has its effect, or is a default, it runs */
    static const char *const accepted[] = {"--dt 0.1", "--cfl 0.9", "--dt 0 --cfl 0.9",
                                           "--cpml 4 --kappa-max 3 --compare-cpml", "--periodic",
                                           "--layer-k 5 --K2 9 --rho2 5", "--layer-k 23", "--source none",
                                           "--source 6,6,6 --f0 0.6 --amp 3",
                                           "--f0 0.595", "--f0 2.22", /* the bounds the lines above give */
                                           "--K 1e70 --source none", "--K 1e80 --precision double --source none",
                                           "--source none --energy-every 1 --receivers 3,3,3 --trace SLICES",
                                           "--slice-every 3 --warmup 1 --slice-dir SLICES", "--s 1",
                                           "--s 2 --overlap --order 2 --decomp 1x1x2", "--s 2 --overlap --periodic"};
    const char *t = tl_test_tmpdir();
    for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++) {
        snprintf(args, sizeof args, "%s %s", pre, accepted[i]);
        char *dir = strstr(args, "SLICES");
        if (dir) snprintf(dir, sizeof args - (size_t)(dir - args), "%s/slices", t);
        tl_test_output r = fdtd(args);
        TL_ASSERT_MSG(r.rc == 0, "%s: %s", args, r.err);
        tl_test_output_free(&r);
        if (dir && strstr(accepted[i], "--slice-dir")) TL_ASSERT(tl_test_sh("test -s %s/slices/p-000003.txt", t) == 0);
    }
}

/* A valid run whose source or receivers the run can hardly hear says so,
 * a note each before the header (before: without a word); a receiver
 * typed twice, or two planes for --slice, is refused. */
TL_TEST(run_notes_what_its_source_and_receivers_miss)
{
    const char *t = tl_test_tmpdir();
    char args[1024];
    /* 16^3 gets a 4-cell CPML: points 0-3 and 12-15 of each axis are in it */
    snprintf(args, sizeof args, "run --grid 16 --cpml 4 --steps 20 --source 2,8,8 --receivers '8,8,8;8,13,8;1,1,1' "
             "--seismogram %s/s.csv", t);
    tl_test_output r = fdtd(args);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    TL_ASSERT_STREQ(r.err, "trilap-fdtd: note: the source at (2, 8, 8) lies in the 4-cell CPML along x (its pressure "
                           "points 0 to 3 and 12 to 15): the layer absorbs what it adds\n"
                           "trilap-fdtd: note: receiver 1 at (8, 13, 8) (and 1 more) lies in the 4-cell CPML along y "
                           "(its pressure points 0 to 3 and 12 to 15): it records the field the layer damps, not the "
                           "medium's\n");
    tl_test_output_free(&r);
    /* the range of each axis, the high face's from n - L (up to ea800d8
     * "above n - 5 along an axis", whatever the axis): p at n - 1 - L = 15
     * along y has depth 0 and gets no note, the CPML's ψ slab starting there
     * for the v above it */
    snprintf(args, sizeof args, "run --grid 16x20x16 --cpml 4 --steps 20 --source 8,15,8 --receivers '8,16,8' "
             "--seismogram %s/s1.csv", t);
    r = fdtd(args);
    TL_ASSERT_MSG(r.rc == 0, "%s", r.err);
    TL_ASSERT_STREQ(r.err, "trilap-fdtd: note: receiver 0 at (8, 16, 8) lies in the 4-cell CPML along y (its pressure "
                           "points 0 to 3 and 16 to 19): it records the field the layer damps, not the medium's\n");
    tl_test_output_free(&r);
    /* the default pulse in a run too short to hear it: a note (a run that
     * times the kernels needs no pulse; a typed --f0 is refused) */
    r = fdtd("run --grid 16 --cpml 4 --steps 4");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT_STREQ(r.err, "trilap-fdtd: note: the default --f0 0.05 puts the Ricker pulse's peak at step 107 (delay "
                           "1.2 / f0 = 24 s, dt = 0.224421 s); below 0.1% of its peak until step 17.8, it would add "
                           "next to nothing in the run's 4 steps (--warmup and --steps) (give --f0 0.255 or more, or "
                           "more --steps)\n");
    tl_test_output_free(&r);
    /* inside the CPML's inner edge, and a pulse that starts by the last step: no note */
    snprintf(args, sizeof args, "run --grid 16 --cpml 4 --steps 19 --source 4,11,8 --receivers 11,4,4 --seismogram "
             "%s/s2.csv", t);
    r = fdtd(args);
    TL_ASSERT_MSG(r.rc == 0 && !r.err[0], "%s", r.err);
    tl_test_output_free(&r);
    refused_before_printing("run --grid 16 --steps 20 --receivers '8,8,8;9,9,9;8,8,8' --seismogram s.csv",
                            "trilap-fdtd: invalid --receivers '8,8,8;9,9,9;8,8,8': receiver 2 repeats receiver 0, (8, "
                            "8, 8): its trace would be a second copy (try --help)\n");
    /* it said "index outside the grid" */
    refused_before_printing("run --grid 16 --steps 20 --slice-every 2 --slice z=mid,x=1 --slice-dir sl",
                            "trilap-fdtd: invalid --slice 'z=mid,x=1': expected one plane, x=I, y=I or z=I (I a number "
                            "or mid) (try --help)\n");
}

/* Each verify experiment takes the options it reads: another one typed is
 * refused, naming the ones it takes (before: accepted and ignored, even
 * an invalid value; verify reflection --decomp 2x1x1 printed rows of
 * 1x1x1, verify energy --cells 4,8,0 ran --cells 4). */
TL_TEST(verify_refuses_options_of_other_experiments)
{
    static const struct {
        const char *args, *err;
    } cases[] = {
        {"verify convergence --orders 2 --sizes 8,16 --grid 99 --steps 5 --cells 3 --n-int 9 --f0 0.3 --cfls 0.3 "
         "--decomps 2x2x2 --strategies bogus --ss 9 --slices /nonexistent/x --every 7",
         "trilap-fdtd: --decomps, --strategies, --ss, --cfls, --grid, --cells, --n-int, --f0, --steps, --every and "
         "--slices are not options of verify convergence (it takes --orders, --sizes, --cfl, --decomp, --strategy and "
         "--s)"},
        {"verify time --cfls 0.8,0.4 --grid 8 --orders 4 --sizes 99 --cfl 0.1",
         "trilap-fdtd: --orders, --sizes and --cfl are not options of verify time (it takes --cfls, --grid, --decomp, "
         "--strategy and --s)"},
        /* an old name is refused as typed, after the note that names its new one */
        {"verify convergence --sizes 8 --n 8",
         "trilap-fdtd: note: --n is now --grid; the old name will be removed in the next release\n"
         "trilap-fdtd: --n is not an option of verify convergence (it takes --orders, --sizes, --cfl, --decomp, "
         "--strategy and --s)"},
        {"verify time --grid 8 --progress", "trilap-fdtd: --progress is not an option of verify time (it takes "
                                            "--cfls, --grid, --decomp, --strategy and --s)"},
        {"verify decomp --grid 40 --steps 4 --decomps slab-z --ss 1 --strategy bogus --decomp 9x9x9 --s 64",
         "trilap-fdtd: --decomp, --strategy and --s are not options of verify decomp (it takes --decomps, "
         "--strategies, --ss, --grid, --steps and --progress)"},
        {"verify reflection --n-int 8 --cells 0,4 --decomp 2x1x1",
         "trilap-fdtd: --decomp is not an option of verify reflection (it takes --n-int, --f0, --cells, --decomps, "
         "--strategy, --s and --progress)"},
        {"verify energy --grid 24 --cells 4 --steps 40 --f0 0.3",
         "trilap-fdtd: --f0 is not an option of verify energy (it takes --grid, --cells, --steps, --every, --slices, "
         "--decomp, --strategy, --s and --progress)"},
        /* one column with CPML: a list ran its first non-zero entry alone */
        {"verify energy --grid 24 --cells 4,8,0 --steps 40",
         "trilap-fdtd: invalid --cells '4,8,0': verify energy runs one CPML thickness, above 0, against none (try "
         "--help)"},
        {"verify energy --grid 48 --cells 0 --steps 4", /* ran the default 20 */
         "trilap-fdtd: invalid --cells '0': verify energy runs one CPML thickness, above 0, against none (try --help)"},
        /* CUDA's alone, as in run */
        {"verify convergence --sizes 8 --kernel naive",
         "trilap-fdtd: --kernel naive is a CUDA kernel; --backend cpu runs its one reference kernel (add --backend "
         "cuda, or drop --kernel)"},
        {"verify decomp --grid 24 --decomps 1x1x1 --ss 1 --gpus 2",
         "trilap-fdtd: --gpus 2 spreads the subdomains over GPUs; --backend cpu runs on the host (add --backend "
         "cuda, or drop --gpus)"},
        {"verify decomp --grid 24 --decomps 1x1x1 --ss 1 --device-comm host",
         "trilap-fdtd: --device-comm host moves GPU buffers between ranks; --backend cpu ranks exchange host "
         "messages (add --backend cuda, or drop --device-comm)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[1024];
        snprintf(err, sizeof err, "%s\n", cases[i].err);
        refused_before_printing(cases[i].args, err);
    }
}

/* verify's lists and each run they make are checked before the table's
 * first line (before: convergence printed its header and the order-2 rows,
 * then the order-3 error, exit 1) */
TL_TEST(verify_refuses_before_printing)
{
    refused_before_printing("verify convergence --orders 2,3 --sizes 8,16",
                            "trilap-fdtd: invalid --orders '2,3': 3 is not 2, 4 or 8 (try --help)\n");
    refused_before_printing("verify convergence --orders 2,8 --sizes 4,8",
                            "trilap-fdtd: verify convergence, order 8, n = 4: the grid has 4 points along x, fewer than "
                            "the ghost depth g = 2 r s = 8 (order 8, s = 1); use --sizes 8 or more, or order 4 or "
                            "lower\n");
    /* a size outside --grid's bounds: the solver's "grid size 1 along x",
     * or the host's lack of 29801428.3 GiB for 99999, exit 1 */
    refused_before_printing("verify convergence --orders 2 --sizes 8,1",
                            "trilap-fdtd: invalid --sizes '8,1': 1 is not 2 to 4096 (try --help)\n");
    refused_before_printing("verify convergence --orders 2 --sizes 99999",
                            "trilap-fdtd: invalid --sizes '99999': 99999 is not 2 to 4096 (try --help)\n");
    refused_before_printing("verify time --cfls 0.8,0.4,2 --grid 8",
                            "trilap-fdtd: invalid --cfls '0.8,0.4,2': 2 is above 1, the stability limit (try --help)\n");
    refused_before_printing("verify reflection --n-int 8 --cells 0,4 --decomps 1x1x1,64x1x1",
                            "trilap-fdtd: verify reflection, 64x1x1: 8 points along x cannot be cut into 64 "
                            "subdomains\n");
    refused_before_printing("verify decomp --grid 20 --steps 2 --decomps 1x2x1 --ss 1,3",
                            "trilap-fdtd: verify decomp, 1x2x1, copy, s = 3: subdomain 0 has 10 points along y, fewer "
                            "than the ghost depth g = 2 r s = 24 (order 8, s = 3); use --grid 48 or more, at most 1 "
                            "subdomain along y, or s = 1\n");
    refused_before_printing("verify decomp --grid 16 --strategies copy,peer",
                            "trilap-fdtd: invalid --strategies 'copy,peer': 'peer' is not a strategy of --backend cpu "
                            "(cpu: copy|ranks; cuda: host|peer|nccl|devcomm) (try --help)\n");
    /* verify decomp's CPML runs on a grid without room: the solver's line, naming no option */
    refused_before_printing("verify decomp --grid 16 --ss 1 --decomps 1x1x1",
                            "trilap-fdtd: invalid --grid '16': each shape also runs with a CPML of 8 cells on each "
                            "side, which needs 18 points per axis (try --help)\n");
    /* --s on runs that exchange nothing: the table of s = 1, exit 0 */
    refused_before_printing("verify reflection --n-int 8 --cells 0,4 --s 2",
                            "trilap-fdtd: invalid --s '2': verify reflection on one subdomain (--decomps 1x1x1) "
                            "exchanges no ghosts to space out (give --decomps PXxPYxPZ, or drop --s) (try --help)\n");
    refused_before_printing("verify energy --grid 24 --cells 4 --steps 4 --s 3",
                            "trilap-fdtd: invalid --s '3': verify energy on one subdomain (--decomp 1x1x1) exchanges "
                            "no ghosts to space out (give --decomp PXxPYxPZ, or drop --s) (try --help)\n");
    /* one subdomain per rank on the one rank of every experiment but decomp:
     * the header, then "strategy 'ranks' needs a rank context", exit 1 */
    refused_before_printing("verify time --grid 8 --cfls 0.4,0.2 --strategy ranks",
                            "trilap-fdtd: --strategy ranks puts one subdomain on each rank, and verify time runs on "
                            "one (verify decomp takes several: --strategies ranks with --ranks N or mpirun -np N; or "
                            "drop --strategy)\n");
    refused_before_printing("verify convergence --sizes 16 --orders 2 --decomp 1x1x2 --strategy ranks",
                            "trilap-fdtd: --strategy ranks puts one subdomain on each rank, and verify convergence "
                            "runs on one (verify decomp takes several: --strategies ranks with --ranks N or mpirun -np "
                            "N; or drop --strategy)\n");
    /* a sampling period beyond the run: the table held step 0's zeros alone, exit 0 */
    refused_before_printing("verify energy --grid 24 --cells 4 --steps 10 --every 20",
                            "trilap-fdtd: invalid --every '20': beyond the run's 10 steps: no step after 0 would be "
                            "sampled (give N <= 10) (try --help)\n");
    /* a list longer than the table holds is refused, not cut short */
    refused_before_printing("verify convergence --orders 2,2,2,2,2,2,2,2,2",
                            "trilap-fdtd: invalid --orders '2,2,2,2,2,2,2,2,2': expected up to 8 of 2, 4, 8, "
                            "comma-separated (try --help)\n");
}

/* Every output is checked before the run: one line naming the option and
 * the path, nothing printed or written (before: "afile is not a folder"
 * after the run, with r.csv, manifest.txt and the row already written). */
TL_TEST(outputs_checked_before_the_run)
{
    const char *dir = tl_test_tmpdir();
    char afile[512], args[2048], err[4096];
    snprintf(afile, sizeof afile, "%s/afile", dir);
    tl_test_write(afile, "a regular file\n");
    static const struct {
        const char *opt, *args, *path, *under;
    } cases[] = {
        {"--energy-out", "--energy-every 2 --energy-out", "e.csv", NULL},
        {"--seismogram", "--receivers 1,1,1 --seismogram", "s.csv", NULL},
        {"--results", "--results", "r.csv", NULL},
        {"--slice-dir", "--slice-every 2 --slice-dir", "sl", "p-000002.txt"},
        {"--trace", "--trace", "tr", "trace.rank0.csv"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* a file that could be written, beside the one that cannot (not a
         * second --results: an option given twice keeps its last value) */
        int results = !strcmp(cases[i].opt, "--results");
        snprintf(args, sizeof args, "run --grid 16 --steps 4 %s %s/ok/%s %s %s/%s",
                 results ? "--energy-every 2 --energy-out" : "--results", dir, results ? "e.csv" : "r.csv",
                 cases[i].args, afile, cases[i].path);
        if (cases[i].under)
            snprintf(err, sizeof err, "trilap-fdtd: %s: %s/%s/%s: cannot write there: %s is not a folder\n",
                     cases[i].opt, afile, cases[i].path, cases[i].under, afile);
        else
            snprintf(err, sizeof err, "trilap-fdtd: %s: %s/%s: cannot write there: %s is not a folder\n", cases[i].opt,
                     afile, cases[i].path, afile);
        refused_with(1, args, err); /* a file error, as in every program */
        char ok[600];
        snprintf(ok, sizeof ok, "%s/ok", dir);
        TL_ASSERT_MSG(access(ok, F_OK) != 0, "%s: %s written", cases[i].opt, ok);
    }
    snprintf(args, sizeof args, "verify energy --grid 16 --cells 3 --steps 4 --every 2 --slices %s", afile);
    snprintf(err, sizeof err, "trilap-fdtd: --slices: %s/cpml/p-000002.txt: cannot write there: %s is not a folder\n",
             afile, afile);
    refused_with(1, args, err);
    /* two outputs at one path: the second replaced the first without a
     * word (the seismogram lost under the energy table, exit 0); then
     * exit 1, as if the file system had refused; now 2, the command
     * line's (as tl_opts_outputs_refused says it in every program). A
     * folder on a file output: the preamble was printed, the results file
     * written, then "x is not a folder", exit 1. */
    static const struct {
        const char *args, *first, *second, *at; /* args: two %s, the test's folder */
    } clashes[] = {
        {"--energy-every 1 --energy-out %s/ok/s.csv --receivers 8,8,8 --seismogram %s/ok/./s.csv", "--seismogram",
         "--energy-out", "s.csv"},
        {"--results %s/ok/r.csv --receivers 8,8,8 --seismogram %s/ok/manifest.txt", "--results (its manifest)",
         "--seismogram", "manifest.txt"},
        {"--results %s/ok/r.csv --trace %s/ok/r.csv", "--results", "--trace", "r.csv"},
        {"--results %s/ok/r.csv --slice-every 2 --slice-dir %s/ok/manifest.txt", "--results (its manifest)",
         "--slice-dir", "manifest.txt"},
    };
    for (size_t i = 0; i < sizeof clashes / sizeof clashes[0]; i++) {
        char opts[1024];
        snprintf(opts, sizeof opts, clashes[i].args, dir, dir);
        snprintf(args, sizeof args, "run --grid 16 --steps 4 %s", opts);
        snprintf(err, sizeof err, "trilap-fdtd: %s and %s both name %s/ok/%s: give each a file of its own\n",
                 clashes[i].first, clashes[i].second, dir, clashes[i].at);
        refused_with(2, args, err);
    }
    char ok[600];
    snprintf(ok, sizeof ok, "%s/ok", dir);
    TL_ASSERT_MSG(access(ok, F_OK) != 0, "%s written", ok);
}

/* An output on, or under, a file the slice or trace folder writes, or a
 * file under another file: the command line's fault, one line naming
 * both options, exit 2, nothing written. Before (CPU, 16^3, 20 steps):
 * --seismogram d/p-000010.txt --slice-dir d, spelled so, as
 * d/x/../p-000020.txt or through a link, replaced the slice of step 10
 * with the seismogram after the run, exit 0; --seismogram tr/trace.rank0.csv
 * --trace tr replaced rank 0's trace, exit 0; --results on a slice failed
 * after the run ("header '# p at step 10 ...' differs"), exit 1; --trace
 * on a slice and --results r.csv --seismogram r.csv/s.csv after the run
 * too ("a folder; give a file name", "r.csv is not a folder"), exit 1. */
TL_TEST(outputs_on_a_folders_files_refused)
{
    const char *dir = tl_test_tmpdir();
    char path[600], target[600];
    /* the slice of step 10 through a link made before the slice is (it
     * dangles), and a file link; a folder reached through a link */
    snprintf(path, sizeof path, "%s/link.csv", dir);
    TL_ASSERT(symlink("d/p-000010.txt", path) == 0);
    snprintf(path, sizeof path, "%s/l2.csv", dir);
    TL_ASSERT(symlink("d/e.csv", path) == 0);
    snprintf(target, sizeof target, "%s/real", dir);
    snprintf(path, sizeof path, "%s/rl", dir);
    TL_ASSERT(mkdir(target, 0755) == 0 && symlink("real", path) == 0);
    static const struct {
        const char *args, *err; /* each %s: the test's folder */
    } cases[] = {
        {"--receivers 8,8,8 --seismogram %s/d/p-000010.txt --slice-every 10 --slice-dir %s/d",
         "--slice-dir (its slice of step 10) and --seismogram both name %s/d/p-000010.txt: give each a file of its own"},
        {"--receivers 8,8,8 --seismogram %s/d/x/../p-000020.txt --slice-every 10 --slice-dir %s/./d",
         "--slice-dir (its slice of step 20) and --seismogram both name %s/d/x/../p-000020.txt: give each a file of "
         "its own"},
        {"--receivers 8,8,8 --seismogram %s/link.csv --slice-every 10 --slice-dir %s/d",
         "--slice-dir (its slice of step 10) and --seismogram (a link to it) both name %s/d/p-000010.txt: give each "
         "a file of its own"},
        {"--receivers 8,8,8 --seismogram %s/rl/p-000010.txt --slice-every 10 --slice-dir %s/real",
         "--slice-dir (its slice of step 10) and --seismogram both name %s/rl/p-000010.txt: give each a file of its "
         "own"},
        {"--results %s/d/p-000010.txt --slice-every 5 --slice-dir %s/d",
         "--slice-dir (its slice of step 10) and --results both name %s/d/p-000010.txt: give each a file of its own"},
        /* warm-up steps write slices too */
        {"--warmup 10 --energy-every 5 --energy-out %s/d/p-000030.txt --slice-every 10 --slice-dir %s/d",
         "--slice-dir (its slice of step 30) and --energy-out both name %s/d/p-000030.txt: give each a file of its own"},
        {"--backend cuda --breakdown %s/d/p-000010.txt --slice-every 10 --slice-dir %s/d",
         "--slice-dir (its slice of step 10) and --breakdown both name %s/d/p-000010.txt: give each a file of its own"},
        {"--trace %s/d/p-000010.txt --slice-every 10 --slice-dir %s/d",
         "--slice-dir (its slice of step 10) and --trace both name %s/d/p-000010.txt: give each a file of its own"},
        {"--trace %s/d/p-000010.txt/tr --slice-every 10 --slice-dir %s/d",
         "--trace %s/d/p-000010.txt/tr lies under the file --slice-dir (its slice of step 10) names: give each a "
         "place of its own"},
        {"--receivers 8,8,8 --seismogram %s/tr/trace.rank0.csv --trace %s/tr",
         "--trace (the trace of rank 0) and --seismogram both name %s/tr/trace.rank0.csv: give each a file of its own"},
        {"--slice-every 10 --slice-dir %s/tr/trace.rank0.csv --trace %s/tr",
         "--trace (the trace of rank 0) and --slice-dir both name %s/tr/trace.rank0.csv: give each a file of its own"},
        {"--results %s/r.csv --receivers 8,8,8 --seismogram %s/r.csv/s.csv",
         "--seismogram %s/r.csv/s.csv lies under the file --results names: give each a place of its own"},
        {"--energy-every 5 --energy-out %s/e.csv --receivers 8,8,8 --seismogram %s/e.csv/s.csv",
         "--seismogram %s/e.csv/s.csv lies under the file --energy-out names: give each a place of its own"},
        {"--receivers 8,8,8 --seismogram %s/l2.csv --energy-every 5 --energy-out %s/d/e.csv",
         "--seismogram (a link to it) and --energy-out both name %s/d/e.csv: give each a file of its own"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char opts[1024], args[1200], err[1200], line[1100];
        snprintf(opts, sizeof opts, cases[i].args, dir, dir);
        snprintf(args, sizeof args, "run --grid 16 --steps 20 --cpml 4 %s", opts);
        snprintf(line, sizeof line, cases[i].err, dir);
        snprintf(err, sizeof err, "trilap-fdtd: %s\n", line);
        refused_with(2, args, err);
    }
    static const char *const unwritten[] = {"d", "tr", "r.csv", "e.csv", "real/p-000010.txt"};
    for (size_t i = 0; i < sizeof unwritten / sizeof unwritten[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, unwritten[i]);
        TL_ASSERT_MSG(access(path, F_OK) != 0, "%s written", path);
    }
    /* what is no clash runs: a name the slices do not take (step 15 of
     * every 10), the slices and the trace in one folder */
    char args[1200];
    snprintf(args, sizeof args, "run --grid 16 --steps 20 --cpml 4 --receivers 8,8,8 --seismogram %s/d/p-000015.txt "
             "--slice-every 10 --slice-dir %s/d --trace %s/d", dir, dir, dir);
    tl_test_output r = fdtd(args);
    char made[1200]; /* the trace folder made before the run, and said */
    snprintf(made, sizeof made, "trilap-fdtd: note: --trace %s/d: created folder %s/d\n", dir, dir);
    TL_ASSERT_MSG(r.rc == 0 && !strcmp(r.err, made), "%s", r.err);
    tl_test_output_free(&r);
    snprintf(path, sizeof path, "%s/d/p-000010.txt", dir);
    char *slice = tl_test_read(path);
    snprintf(path, sizeof path, "%s/d/p-000015.txt", dir);
    char *seis = tl_test_read(path);
    snprintf(path, sizeof path, "%s/d/trace.rank0.csv", dir);
    TL_ASSERT_MSG(!strncmp(slice, "# p at step 10,", 15) && !strncmp(seis, "step,time_s,r0\n", 15) &&
                      access(path, F_OK) == 0, "%.40s / %.40s", slice, seis);
    free(slice);
    free(seis);
}

/* Every line trilap-fdtd writes to stderr begins "trilap-fdtd: " (then
 * "rank R: " where one of several ranks speaks for itself), whichever
 * command and layer says it, as in trilap-solve and trilap-bench: a job
 * log's are one grep. Before, the option parser's lines, run's own
 * refusals and notes and verify's began "trilap-fdtd run: ",
 * "trilap-fdtd verify: " or "trilap-fdtd verify reflection: ", the
 * solver's, the file checks' and the launcher's "trilap-fdtd: ". */
TL_TEST(every_message_one_prefix)
{
    static const struct {
        const char *args;
        int rc;
    } cases[] = {
        {"run --steps x", 2},                                 /* the option parser */
        {"verify time --cfls x,y --foo", 2},
        {"run --grid 8 --grid 6 --steps 1 --progress", 0},    /* its note, the shrunk CPML's, the progress line */
        {"verify --n 8", 2},                                  /* the old name's note; no experiment */
        {"verify time --orders 2", 2},                        /* another experiment's option */
        {"run --kernel naive", 2},                            /* CUDA's alone */
        {"run --backend cuda --no-gpu --grid 8 --steps 1", 1}, /* no GPU: the machine's */
        {"verify time --backend cuda --no-gpu --grid 8", 1},
        {"run --grid 8 --steps 2 --cpml 20", 2},              /* run's refusals */
        {"run --grid 8 --steps 2 --energy-every 1 --energy-out e.csv --receivers 1,1,1 --seismogram ./e.csv", 2},
        {"run --grid 12x", 2},
        {"run --grid 32 --decomp 64x1x1", 2},                  /* the solver's check */
        {"run --grid 16 --launcher threads --ranks 3 --decomp 1x2x2", 2}, /* the ranks' */
        {"verify energy --grid 8 --cells 20", 2},
        {"verify energy --grid 16 --cells 3 --steps 4 --every 2", 0}, /* its closing figure */
        {"bogus", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tl_test_output r = fdtd(cases[i].args);
        TL_ASSERT_MSG(r.rc == cases[i].rc && r.err[0], "%s: exit %d, stderr '%s'", cases[i].args, r.rc, r.err);
        for (const char *line = r.err; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "")
            TL_ASSERT_MSG(!strncmp(line, "trilap-fdtd: ", 13), "%s: a line without the prefix: %.200s", cases[i].args,
                          line);
        tl_test_output_free(&r);
    }
}

/* An empty output name: refused before the run, the command line's fault
 * (exit 2; it was exit 1, "--seismogram: an output file name is empty",
 * and --results '' a clash with its own manifest; before that, a folder's
 * passed as "/" + the file name, then the preamble was printed and the
 * first write failed with "folder name empty or too long" naming no
 * option, or --trace's "the folder name is too long"). */
TL_TEST(empty_output_folder_refused_before_the_run)
{
    refused_with(2, "run --grid 16 --steps 4 --slice-every 2 --slice-dir ''",
                 "trilap-fdtd: invalid --slice-dir '': an empty folder name (try --help)\n");
    refused_with(2, "run --grid 16 --steps 4 --trace ''",
                 "trilap-fdtd: invalid --trace '': an empty folder name (try --help)\n");
    refused_with(2, "verify energy --grid 16 --cells 3 --steps 4 --every 2 --slices ''",
                 "trilap-fdtd: invalid --slices '': an empty folder name (try --help)\n");
    refused_with(2, "run --grid 16 --steps 4 --results ''",
                 "trilap-fdtd: invalid --results '': an empty file name (try --help)\n");
    refused_with(2, "run --grid 16 --steps 4 --receivers 3,3,3 --seismogram ''",
                 "trilap-fdtd: invalid --seismogram '': an empty file name (try --help)\n");
    refused_with(2, "run --grid 16 --steps 4 --energy-every 2 --energy-out ''",
                 "trilap-fdtd: invalid --energy-out '': an empty file name (try --help)\n");
}

/* verify energy's table ends at the step its closing line's "at the end"
 * figures are of, whatever --every (up to c834e8e --steps 35 --every 10
 * ended at step 30, 2.021e-01, beside "1.000e+00 with CPML" at step 35). */
TL_TEST(verify_energy_table_ends_at_the_last_step)
{
    tl_test_output r = fdtd("verify energy --grid 24 --cells 4 --steps 35 --every 10");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT_EQ(tl_test_count(r.out, "\n"), 2 + 5); /* steps 0, 10, 20, 30 and 35 */
    const char *last = strstr(r.out, "\n35,");
    double t, cpml, none;
    TL_ASSERT(last && sscanf(last + 1, "35,%lf,%lf,%lf", &t, &cpml, &none) == 3);
    char want[128];
    snprintf(want, sizeof want, "energy at the end / maximum: %.3e with CPML, %.3e without", cpml, none);
    TL_ASSERT_MSG(strstr(r.err, want), "stderr %s lacks %s", r.err, want);
    tl_test_output_free(&r);
}

/* verify energy normalises by the maximum over every step: the sampling
 * period thins the table and changes no figure (sampled every 50 steps the
 * maximum missed the peak: 7.5e-01 at the end without CPML, 4.5e-01 when
 * sampled every step). */
TL_TEST(verify_energy_independent_of_every)
{
    const char *args = "verify energy --grid 24 --cells 4 --steps 150";
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%s --every 1", args);
    tl_test_output a = fdtd(cmd);
    snprintf(cmd, sizeof cmd, "%s --every 50", args);
    tl_test_output b = fdtd(cmd);
    TL_ASSERT_EQ(a.rc, 0);
    TL_ASSERT_EQ(b.rc, 0);
    TL_ASSERT(strstr(a.err, "energy at the end / maximum: "));
    TL_ASSERT_STREQ(a.err, b.err);
    TL_ASSERT_EQ(tl_test_count(a.out, "\n"), 2 + 151);
    TL_ASSERT_EQ(tl_test_count(b.out, "\n"), 2 + 4);
    /* each row sampled every 50 steps is the row of that step sampled every step */
    const char *row = strstr(b.out, "\n0,0,");
    TL_ASSERT(row);
    for (; row && row[1]; row = strchr(row + 1, '\n')) {
        size_t len = (size_t)(strchr(row + 1, '\n') - row) + 1;
        char want[128];
        TL_ASSERT(len < sizeof want);
        snprintf(want, len + 1, "%s", row);
        TL_ASSERT_MSG(strstr(a.out, want), "row %s not in the table sampled every step", want + 1);
    }
    tl_test_output_free(&a);
    tl_test_output_free(&b);
    /* the default period (10) beyond a shorter run samples its last step
     * (a typed one is refused: verify_refuses_before_printing); before,
     * the table held step 0 alone */
    a = fdtd("verify energy --grid 24 --cells 4 --steps 4");
    TL_ASSERT_EQ(a.rc, 0);
    TL_ASSERT_MSG(tl_test_count(a.out, "\n") == 2 + 2 && strstr(a.out, "\n4,"), "%s", a.out);
    tl_test_output_free(&a);
}

/* The source's end as the run has it (before: "source stops near t =
 * 48.0" after any --steps, and a run that ended at t = 11.2 reported its
 * energy at the end / maximum, 1.000e+00, with no word that the source
 * was still on) */
TL_TEST(verify_energy_says_when_the_source_stops)
{
    tl_test_output r = fdtd("verify energy --grid 24 --cells 4 --steps 50 --every 50");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT_MSG(strstr(r.out, "; source still on at the last step (t = 11.2; it stops near t = 48.0, step 214)\n"),
                  "%s", r.out);
    TL_ASSERT_MSG(strstr(r.err, " (the source is still on: --steps 214 or more to see the CPML absorb)\n"), "%s",
                  r.err);
    tl_test_output_free(&r);
    r = fdtd("verify energy --grid 24 --cells 4 --steps 214 --every 107");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT_MSG(strstr(r.out, "; source stops near t = 48.0 (step 214)\n") && !strstr(r.err, "still on"), "%s%s",
                  r.out, r.err);
    tl_test_output_free(&r);
}

/* --launcher mpi without mpirun is one MPI rank, a valid run, and says so
 * (before: nothing) */
TL_TEST(launcher_mpi_alone_says_one_rank)
{
    const char *m = tl_test_mpirun(); /* skips without MPI */
    tl_test_output r = fdtd("run --launcher mpi --grid 16 --cpml 4 --steps 2 --source none");
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT_STREQ(r.err, "trilap-fdtd: note: --launcher mpi outside mpirun or srun: one rank (mpirun -np N "
                           "trilap-fdtd ... for N ranks, or --launcher threads --ranks N)\n");
    tl_test_output_free(&r);
    r = tl_test_capture("OMP_NUM_THREADS=2 %s -np 1 %s/trilap-fdtd run --launcher mpi --grid 16 --cpml 4 --steps 2 --source none", m,
                        tl_test_bin());
    TL_ASSERT_EQ(r.rc, 0);
    TL_ASSERT_MSG(!strstr(r.err, "note"), "%s", r.err); /* mpirun -np 1 asked for one */
    tl_test_output_free(&r);
}

#define RANKS_DECOMP "verify decomp --strategies ranks --decomps slab-z,block-xy,pencil-yz --ss 1,2 --steps 8"

TL_TEST(ranks_threads_equal_single_domain)
{
    /* slab-z, block-xy, pencil-yz x s = 1, 2 x zero / CPML / periodic faces,
     * fields and receivers against one domain: max_abs_diff 0 */
    tl_test_output r = fdtd(RANKS_DECOMP " --launcher threads --ranks 4 --no-gpu");
    tl_test_decomp_identical(&r, "ranks", 18);
    TL_ASSERT(!strstr(r.out, "not run"));
    tl_test_output_free(&r);
    /* a decomposition of another size is named, not run (on 32^3, where
     * 1x2x1's halves are still twice the ghost depth: 64^3, the default,
     * was 1.2 s of CPU for this line, 32^3 0.25 s) */
    r = fdtd("verify decomp --strategies ranks --decomps 1x2x1,2x2x1 --ss 1 --steps 4 --launcher threads --ranks 2 --no-gpu "
             "--grid 32");
    TL_ASSERT(strstr(r.out, "# 2x2x1,ranks: 4 subdomains, 2 ranks: not run (run with --ranks 4 or mpirun -np 4)\n"));
    tl_test_decomp_identical(&r, "ranks", 3);
    tl_test_output_free(&r);
}

TL_TEST(ranks_mpirun_equal_single_domain)
{
    const char *m = tl_test_mpirun();
    tl_test_output r = tl_test_capture("OMP_NUM_THREADS=1 %s -np 4 --oversubscribe %s/trilap-fdtd " RANKS_DECOMP, m,
                                       tl_test_bin());
    tl_test_decomp_identical(&r, "ranks", 18);
    tl_test_output_free(&r);
}

/* A run on 4 ranks (pre: mpirun, or post: the thread launcher's options)
 * writes what one process writes, byte for byte (single precision: %.9g
 * is exact), and prints its preamble and row once. */
static void ranks_run_matches(const char *pre, const char *post)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s", tl_test_tmpdir());
    const char *common = "--grid 24x24x28 --cpml 4 --steps 30 --receivers '12,12,14;3,4,5;20,20,25' --energy-every 10 "
                         "--slice-every 15 --check-every 5";
    tl_test_output a = tl_test_capture("OMP_NUM_THREADS=1 %s/trilap-fdtd run %s --seismogram %s/s1.csv --energy-out %s/e1.csv "
                                       "--slice-dir %s/sl1", tl_test_bin(), common, dir, dir, dir);
    TL_ASSERT_EQ(a.rc, 0);
    tl_test_output b = tl_test_capture("OMP_NUM_THREADS=1 %s %s/trilap-fdtd run %s --decomp pencil-yz %s --seismogram %s/s4.csv "
                                       "--energy-out %s/e4.csv --slice-dir %s/sl4 --results %s/r4/r.csv",
                                       pre, tl_test_bin(), common, post, dir, dir, dir, dir);
    TL_ASSERT_EQ(b.rc, 0);
    TL_ASSERT(strstr(b.out, "# ranks: 4, one subdomain each (strategy ranks, host messages)\n"));
    TL_ASSERT_EQ(tl_test_count(b.out, "\nrun,"), 1);
    TL_ASSERT_EQ(tl_test_count(b.out, "# trilap-fdtd "), 1);
    TL_ASSERT(strstr(b.out, "\nrun,cpu,-,ranks,1x2x2,1,0,8,single,24,24,28,30,4,"));
    tl_test_same_run_files(dir);
    char mp[512];
    snprintf(mp, sizeof mp, "%s/r4/manifest.txt", dir);
    char *man = tl_test_slurp(mp), *res = NULL;
    TL_ASSERT(strstr(man, "\nranks: 4\n"));
    snprintf(mp, sizeof mp, "%s/r4/r.csv", dir);
    res = tl_test_slurp(mp);
    TL_ASSERT_EQ(tl_test_count(res, "\n"), 2); /* header and rank 0's row */
    free(man);
    free(res);
    tl_test_output_free(&a);
    tl_test_output_free(&b);
}

TL_TEST(ranks_run_writes_what_one_process_writes)
{
    ranks_run_matches("", "--launcher threads --ranks 4 --no-gpu");
}

TL_TEST(ranks_run_under_mpirun)
{
    char pre[512];
    snprintf(pre, sizeof pre, "%s -np 4 --oversubscribe", tl_test_mpirun());
    ranks_run_matches(pre, "");
}

/* The NaN / blow-up check over ranks stops every rank at the same step and
 * names the point one process names, once. */
TL_TEST(ranks_blowup_named_once)
{
    const char *args = "run --grid 16 --cpml 0 --steps 40 --amp 1e8 --f0 0.2 --blowup 10 --check-every 5 --decomp 1x2x2";
    tl_test_output a = fdtd(args);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --launcher threads --ranks 4 --no-gpu", args);
    tl_test_output b = fdtd(cmd);
    TL_ASSERT_EQ(a.rc, 1);
    TL_ASSERT_EQ(b.rc, 1);
    const char *key = "step 5: p = ";
    const char *pa = strstr(a.err, key), *pb = strstr(b.err, key);
    TL_ASSERT(pa && pb && strstr(pa, ") (subdomain 1) is beyond the blow-up limit"));
    TL_ASSERT(!strncmp(pa, pb, (size_t)(strchr(pa, '\n') - pa)));
    TL_ASSERT(!strstr(pb + 1, key)); /* one rank says it */
    tl_test_output_free(&a);
    tl_test_output_free(&b);
}

/* The blow-up line names the point one domain names, the first in the
 * grid's order, whatever the decomposition (up to c834e8e the lowest
 * subdomain's first: 3x3x3 and one domain agreed on (12, 12, 10), 1x2x2
 * and 2x1x1 named (11, 11, 11), its value another). */
TL_TEST(blowup_point_same_in_every_decomposition)
{
    static const char *const decomps[] = {"1x1x1", "1x2x2", "2x1x1", "3x3x3",
                                          "1x2x2 --launcher threads --ranks 4 --no-gpu"};
    char want[256] = "";
    for (size_t d = 0; d < sizeof decomps / sizeof *decomps; d++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd,
                 "run --grid 24 --steps 40 --f0 0.5 --blowup 1e-3 --cpml 3 --check-every 10 --decomp %s", decomps[d]);
        tl_test_output r = fdtd(cmd);
        TL_ASSERT_EQ(r.rc, 1);
        const char *p = strstr(r.err, "step 10: p = "), *end = p ? strstr(p, " (subdomain") : NULL;
        TL_ASSERT(end != NULL);
        if (d == 0) {
            snprintf(want, sizeof want, "%.*s", (int)(end - p), p);
            TL_ASSERT_STREQ(want, "step 10: p = -0.00134716 at (12, 12, 10)");
        } else TL_ASSERT(!strncmp(p, want, strlen(want)) && p + strlen(want) == end);
        tl_test_output_free(&r);
    }
}

/* Under mpirun a refusal is one line and every rank exits by itself
 * (before: after the line, mpirun's SIGTERM reached ranks a few ms from
 * their own exit, each adding "terminated (SIGTERM); temporary outputs
 * removed", two at once garbled into one line). The race is a matter of
 * milliseconds: several tries. */
TL_TEST(mpirun_refusal_one_line)
{
    const char *m = tl_test_mpirun();
    static const char *const args[2] = {"run --grid 32 --steps 30 --cpml 6",
                                        "verify decomp --decomps slab-z --ss 3 --grid 20"};
    /* refused before the launch, by every process: said by local rank 0
     * alone (before: once per rank) */
    static const char *const before[2] = {"run --grid 16 --energy-out e.csv", "verify decomp --bogus"};
    for (int k = 0; k < 2; k++) {
        tl_test_output r = tl_test_capture("%s -np 3 --oversubscribe %s/trilap-fdtd %s", m, tl_test_bin(), before[k]);
        TL_ASSERT_EQ(r.rc, 2);
        TL_ASSERT_MSG(tl_test_count(r.err, "trilap-fdtd") == 1, "%s: %s", before[k], r.err);
        tl_test_output_free(&r);
    }
    for (int k = 0; k < 6; k++) {
        tl_test_output r = tl_test_capture("OMP_NUM_THREADS=1 %s -np 4 --oversubscribe %s/trilap-fdtd %s", m,
                                           tl_test_bin(), args[k % 2]);
        TL_ASSERT_EQ(r.rc, 2);
        TL_ASSERT_MSG(tl_test_count(r.err, "trilap-fdtd") == 1 && !strstr(r.err, "SIGTERM"), "try %d: %s", k, r.err);
        TL_ASSERT_STREQ(r.out, "");
        tl_test_output_free(&r);
    }
}

/* Ranks at odds with the decomposition, the backend or the strategy: one
 * line, exit 2, nothing run. */
TL_TEST(ranks_mismatch_is_one_line_exit_2)
{
    /* nothing on stdout (it checked for no row) */
    usage_error("run --grid 24 --cpml 4 --steps 4 --decomp 1x2x2 --launcher threads --ranks 3 --no-gpu",
                "trilap-fdtd: 3 ranks for --decomp 1x2x2: one subdomain per rank needs px*py*pz = 4 ranks "
                "(--ranks 4, or mpirun -np 4)\n");
    usage_error("run --grid 24 --cpml 4 --steps 4 --strategy ranks --decomp 1x2x2",
                "trilap-fdtd: 1 rank for --decomp 1x2x2: one subdomain per rank needs px*py*pz = 4 ranks "
                "(--ranks 4, or mpirun -np 4)\n");
    refused_saying(2, "run --grid 24 --cpml 4 --steps 4 --strategy copy --decomp 1x2x2 --launcher threads --ranks 4 --no-gpu",
                   "4 ranks with --strategy copy");
    /* cuda on several ranks (strategy devcomm) needs a GPU bound to every
     * rank; without one the machine is short, not the command line: exit 1,
     * as trilap-solve and trilap-bench (it was 2) */
    refused_with(1, "run --backend cuda --grid 24 --cpml 4 --steps 4 --decomp 1x2x1 --launcher threads --ranks 2 --no-gpu",
                 "trilap-fdtd: 2 ranks with --backend cuda and no GPU (--no-gpu, or none visible): one "
                 "subdomain per rank needs a GPU bound to every rank (ranks share one with --device-comm "
                 "host)\n");
    /* peer copies between ranks would need CUDA IPC: refused, named */
    refused_saying(2, "run --backend cuda --strategy peer --grid 24 --steps 4 --decomp 1x2x1 --launcher threads --ranks 2 "
                      "--device-comm host",
                   "2 ranks with --strategy peer: cudaMemcpyPeerAsync needs every subdomain in one process (CUDA IPC "
                   "between ranks is not implemented); several ranks use --strategy devcomm");
    refused_saying(2, "run --backend cuda --strategy nccl --grid 24 --steps 4 --decomp 1x2x1 --launcher threads --ranks 2 "
                      "--device-comm host",
                   "2 ranks with --strategy nccl: that strategy moves ghosts inside one process; several ranks use "
                   "--strategy devcomm");
    /* each backend's per-rank strategy is its own: refused as any
     * strategy of the other backend (up to ea800d8 "2 ranks with
     * --strategy ranks: not a strategy of --backend cuda; ...") */
    usage_error("run --backend cuda --strategy ranks --grid 24 --steps 4 --decomp 1x2x1 --launcher threads --ranks 2",
                "trilap-fdtd: invalid --strategy 'ranks': expected a strategy of --backend cuda (cpu: copy|ranks; "
                "cuda: host|peer|nccl|devcomm) (try --help)\n");
    usage_error("run --strategy devcomm --grid 24 --steps 4 --decomp 1x2x1 --launcher threads --ranks 2 --no-gpu",
                "trilap-fdtd: invalid --strategy 'devcomm': expected a strategy of --backend cpu (cpu: copy|ranks; "
                "cuda: host|peer|nccl|devcomm) (try --help)\n");
    usage_error("run --backend cuda --grid 24 --cpml 4 --steps 4 --decomp 1x2x2 --launcher threads --ranks 2 "
                "--device-comm host",
                "trilap-fdtd: 2 ranks for --decomp 1x2x2: one subdomain per rank needs px*py*pz = 4 ranks "
                "(--ranks 4, or mpirun -np 4)\n");
    static const char *const one_rank[] = {"run --backend cuda --grid 24 --steps 4 --no-gpu",
                                           "verify energy --backend cuda --no-gpu"};
    for (size_t i = 0; i < sizeof one_rank / sizeof one_rank[0]; i++) {
        tl_test_output r = fdtd(one_rank[i]);
        TL_ASSERT_MSG(r.rc == 1 && tl_test_count(r.err, "\n") == 1 && strstr(r.err, ": --backend cuda ") &&
                          !r.out[0],
                      "%s: exit %d: %s", one_rank[i], r.rc, r.err);
        tl_test_output_free(&r);
    }
    refused_with(1, "verify decomp --backend cuda --decomps 1x2x1 --launcher threads --ranks 2 --no-gpu",
                 "trilap-fdtd: 2 ranks with --backend cuda and no GPU (--no-gpu, or none visible): one "
                 "subdomain per rank needs a GPU bound to every rank (ranks share one with --device-comm "
                 "host)\n");
    usage_error("verify energy --launcher threads --ranks 2 --no-gpu",
                "trilap-fdtd: verify energy runs on one rank; only verify decomp takes several (strategy ranks)\n");
    /* a per-rank strategy's subdomain is on its rank's GPU: --gpus did
     * nothing there (accepted, exit 0); a command-line mistake, exit 2 on
     * a machine without a GPU too (the plan is checked before the GPU) */
    usage_error("verify decomp --backend cuda --grid 24 --decomps 1x2x1 --ss 1 --strategies host,devcomm --gpus 2 "
                "--no-gpu",
                "trilap-fdtd: --gpus 2 spreads the subdomains of one process over GPUs; --strategies host,devcomm: "
                "devcomm runs each subdomain on its rank's GPU, the one the launcher binds it to (drop --gpus, or "
                "'devcomm' from the list; CUDA_VISIBLE_DEVICES sets the GPUs)\n");
    usage_error("verify decomp --backend cuda --grid 24 --decomps 1x2x1 --ss 1 --launcher threads --ranks 2 --gpus 1 "
                "--no-gpu",
                "trilap-fdtd: --gpus 1 spreads the subdomains of one process over GPUs; 2 ranks run strategy devcomm "
                "(their default), each subdomain on its rank's GPU, the one the launcher binds it to (drop --gpus; "
                "CUDA_VISIBLE_DEVICES sets the GPUs)\n");
    usage_error("verify decomp --backend cuda --grid 24 --decomps 1x2x1 --ss 1 --strategies bogus --no-gpu",
                "trilap-fdtd: invalid --strategies 'bogus': 'bogus' is not a strategy of --backend cuda (cpu: "
                "copy|ranks; cuda: host|peer|nccl|devcomm) (try --help)\n");
}

TL_TEST_MAIN(help_and_bad_arguments, help_says_what_the_program_does, receivers_empty_entry_refused, cfl_and_blowup_errors, blowup_says_the_slices_it_kept, run_writes_its_files, files_read_back_exactly,
             preamble_names_the_boundary, label_and_command_quoted,
             compare_cpml_reports_overhead, manifest_block_per_command,
             verify_tables, verify_convergence_says_the_rounding_floor, verify_time_says_the_rounding_floor, command_line_mistakes_one_line, verify_memory_checked_before_the_table, run_refuses_before_printing, enumerated_options_refused_by_name, verify_says_its_step_count_first, ghost_depth_advice_can_be_followed, run_refuses_options_without_effect, run_notes_what_its_source_and_receivers_miss,
             verify_refuses_options_of_other_experiments, verify_refuses_before_printing, verify_refuses_repeated_list_entries,
             outputs_checked_before_the_run, outputs_on_a_folders_files_refused, every_message_one_prefix,
             empty_output_folder_refused_before_the_run,
             verify_energy_independent_of_every, verify_energy_table_ends_at_the_last_step, mpirun_refusal_one_line, ranks_threads_equal_single_domain, ranks_mpirun_equal_single_domain,
             ranks_run_writes_what_one_process_writes, ranks_run_under_mpirun, ranks_blowup_named_once, blowup_point_same_in_every_decomposition,
             ranks_mismatch_is_one_line_exit_2, verify_reflection_bounds_name_the_option,
             verify_energy_says_when_the_source_stops, launcher_mpi_alone_says_one_rank)
