/* Inputs checked against what they declare (issue 32, families 2-5, 7, 8),
 * each with inputs made here: a reader refuses in one line naming the input
 * and the true reason, exits non-zero and writes nothing; what it accepts
 * it reads whole.
 *   matrices: sizes against the available memory, hexadecimal values,
 *             bytes after the gzip data
 *   FDTD:     a grid the host cannot hold; verify decomp without a row
 *             before a failure
 *   traces:   records=N against the rows, CR LF, NUL, invalid UTF-8, times
 *             near the ends of int64, the rank set of a run folder, a file
 *             gzipped twice, a window of years (diagnose's shares)
 *   Nsight Systems exports: impossible rows, NULL and text times, int64
 *             ends, names missing from StringIds, a missing kernel table, a
 *             damaged file, a text file named .sqlite */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "tests/tl_test.h"
#include "tests/tl_test_run.h"
#if TL_HAVE_SQLITE
#include <sqlite3.h>
#endif

/* ---- helpers ---------------------------------------------------------------- */

static void write_to(const char *dir, const char *name, const char *text)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    tl_test_write(p, text);
}

/* The refusal every bad input gets: exit `rc`, `needle` on stderr naming
 * `input`, and nothing on stdout. */
static void refused(tl_test_output *o, int rc, const char *input, const char *needle)
{
    TL_ASSERT_MSG(o->rc == rc, "exit %d, expected %d:\n%s", o->rc, rc, o->err);
    TL_ASSERT_MSG(strstr(o->err, input), "the refusal does not name %s:\n%s", input, o->err);
    TL_ASSERT_MSG(strstr(o->err, needle), "the refusal lacks '%s':\n%s", needle, o->err);
    TL_ASSERT_MSG(o->out[0] == '\0', "output before the refusal:\n%s", o->out);
    tl_test_output_free(o);
}

/* ---- matrices ------------------------------------------------------------- */

TL_TEST(matrix_size_beyond_memory)
{
    const char *t = tl_test_tmpdir();
    /* 2e9 rows and one entry: 30 GB to read, refused before allocating */
    write_to(t, "huge.mtx", "%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 1\n1 1 1.0\n");
    tl_test_output o = tl_test_capture("%s/trilap-matgen info %s/huge.mtx", tl_test_bin(), t);
    refused(&o, 1, "huge.mtx:2:", "of host memory;");
    /* the same check on a small machine (TRILAP_TEST_HOST_MEM): 1000 rows
     * need about 24 kB; refused with 10 kB, read with 1 MB */
    FILE *f;
    char p[1024];
    snprintf(p, sizeof p, "%s/small.mtx", t);
    TL_ASSERT((f = fopen(p, "w")));
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n1000 1000 1000\n");
    for (int i = 1; i <= 1000; i++) fprintf(f, "%d %d 2\n", i, i);
    TL_ASSERT(fclose(f) == 0);
    o = tl_test_capture("TRILAP_TEST_HOST_MEM=10000 %s/trilap-matgen info %s", tl_test_bin(), p);
    refused(&o, 1, "small.mtx:2:", "needs");
    o = tl_test_capture("TRILAP_TEST_HOST_MEM=1000000 %s/trilap-matgen info %s", tl_test_bin(), p);
    TL_ASSERT_EQ(o.rc, 0);
    TL_ASSERT_MSG(strstr(o.out, "nonzeros: 1000\n"), "%s", o.out);
    tl_test_output_free(&o);
    /* a generated matrix the solver assembles */
    o = tl_test_capture("TRILAP_TEST_HOST_MEM=10000 %s/trilap-solve gen:poisson7:64 --warmup 0 --repeat 1", tl_test_bin());
    TL_ASSERT_EQ(o.rc, 1);
    /* named as a file is (it was "a generated matrix of 262144 rows needs ...") */
    TL_ASSERT_MSG(tl_test_one_line(o.err, "trilap-solve: gen:poisson7:64: a generated matrix of 262144 rows needs") &&
                      strstr(o.err, "KiB is available"),
                  "%s", o.err);
    TL_ASSERT_MSG(!strstr(o.out, "converged"), "%s", o.out);
    tl_test_output_free(&o);
}

TL_TEST(matrix_hex_value_refused)
{
    const char *t = tl_test_tmpdir();
    write_to(t, "hex.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 0x10\n2 2 1\n");
    tl_test_output o = tl_test_capture("%s/trilap-matgen info %s/hex.mtx", tl_test_bin(), t);
    refused(&o, 1, "hex.mtx:3:", "value not a number");
    /* decimal forms stay accepted */
    write_to(t, "dec.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.6e1\n2 2 -.5E+0\n");
    o = tl_test_capture("%s/trilap-matgen info %s/dec.mtx", tl_test_bin(), t);
    TL_ASSERT_EQ(o.rc, 0);
    tl_test_output_free(&o);
}

TL_TEST(matrix_gzip_trailing_bytes)
{
    const char *t = tl_test_tmpdir();
    const char *mm = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 4\n2 2 5\n";
    write_to(t, "a.mtx", mm);
    TL_ASSERT_EQ(tl_test_sh("cd %s && gzip -c a.mtx > ok.mtx.gz && cp ok.mtx.gz tail.mtx.gz && "
                            "printf 'junk' >> tail.mtx.gz && head -c 20 ok.mtx.gz > cut.mtx.gz && "
                            "printf '%%%%%%%%MatrixMarket matrix coordinate real general\\n2 2 2\\n' | gzip -c > two.mtx.gz && "
                            "printf '1 1 4\\n2 2 5\\n' | gzip -c >> two.mtx.gz",
                            t),
                 0);
    tl_test_output o = tl_test_capture("%s/trilap-matgen info %s/tail.mtx.gz", tl_test_bin(), t);
    refused(&o, 1, "tail.mtx.gz", "after the end of the gzip data");
    o = tl_test_capture("%s/trilap-matgen info %s/cut.mtx.gz", tl_test_bin(), t);
    refused(&o, 1, "cut.mtx.gz", "truncated or corrupt");
    /* gzip members one after another (pigz, bgzip) are one file */
    const char *good[] = {"ok.mtx.gz", "two.mtx.gz"};
    for (int k = 0; k < 2; k++) {
        o = tl_test_capture("%s/trilap-matgen info %s/%s", tl_test_bin(), t, good[k]);
        TL_ASSERT_EQ(o.rc, 0);
        TL_ASSERT_MSG(strstr(o.out, "nonzeros: 2\n"), "%s", o.out);
        tl_test_output_free(&o);
    }
}

/* A matrix gzipped twice (gzip run on a .mtx.gz) is said as such by the
 * Matrix Market reader too, in the words the trace and Kineto readers say
 * (runtime/gzin.c refuses it for all of them); before, trilap-matgen and
 * trilap-solve read its inner gzip as text: "bad banner". Mended as said,
 * it reads. */
TL_TEST(matrix_gzipped_twice)
{
    if (strcmp(tl_test_env("TL_HAVE_ZLIB", "1"), "1") != 0) TL_SKIP("built without zlib");
    const char *t = tl_test_tmpdir();
    write_to(t, "a.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 4\n2 2 5\n");
    TL_ASSERT_EQ(tl_test_sh("cd %s && gzip -c a.mtx | gzip -c > twice.mtx.gz && cp twice.mtx.gz m.mtx.gz.gz", t), 0);
    static const char *const cmds[] = {"trilap-matgen info", "trilap-solve"};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        char p[700], want[4096];
        snprintf(p, sizeof p, "%s/twice.mtx.gz", t);
        snprintf(want, sizeof want,
                 "%s: gzip data inside gzip data (the file gzipped twice): gunzip it once, keeping its name (gunzip -c "
                 "%s > %s.once && mv %s.once %s)\n",
                 p, p, p, p, p);
        tl_test_output o = tl_test_capture("%s/%s %s", tl_test_bin(), cmds[k], p);
        TL_ASSERT_MSG(tl_test_count(o.err, "\n") == 1, "%s:\n%s", cmds[k], o.err);
        refused(&o, 1, p, want);
        snprintf(p, sizeof p, "%s/m.mtx.gz.gz", t);
        snprintf(want, sizeof want,
                 "%s: gzip data inside gzip data (the file gzipped twice): gunzip it once (gunzip -c %s > "
                 "%s/m.mtx.gz)\n",
                 p, p, t);
        o = tl_test_capture("%s/%s %s", tl_test_bin(), cmds[k], p);
        refused(&o, 1, p, want);
    }
    TL_ASSERT_EQ(tl_test_sh("gunzip -c %s/twice.mtx.gz > %s/twice.mtx.gz.once && mv %s/twice.mtx.gz.once "
                            "%s/twice.mtx.gz && gunzip -c %s/m.mtx.gz.gz > %s/m.mtx.gz",
                            t, t, t, t, t, t),
                 0);
    static const char *const mended[] = {"twice.mtx.gz", "m.mtx.gz"};
    for (int k = 0; k < 2; k++) {
        tl_test_output o = tl_test_capture("%s/trilap-matgen info %s/%s", tl_test_bin(), t, mended[k]);
        TL_ASSERT_MSG(o.rc == 0 && strstr(o.out, "nonzeros: 2\n"), "%s: exit %d\n%s", mended[k], o.rc, o.err);
        tl_test_output_free(&o);
    }
}

/* An empty file under a .gz name is a gzip file cut short to every reader
 * that reads through runtime/gzin.c, each saying so in the same words
 * after its own place in the file: a matrix, a trace rank file, a Kineto
 * trace (alone and in a rank folder). */
TL_TEST(empty_gz_said_alike_by_every_reader)
{
    if (strcmp(tl_test_env("TL_HAVE_ZLIB", "1"), "1") != 0) TL_SKIP("built without zlib");
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("cd %s && mkdir run kin && : > r.mtx.gz && : > run/trace.rank0.csv.gz && "
                            ": > kin/rank0.json.gz",
                            t),
                 0);
    static const struct {
        const char *cmd, *arg, *said;
    } cases[] = {
        {"trilap-matgen info", "r.mtx.gz", "r.mtx.gz:1: "},
        {"trilap-solve", "r.mtx.gz", "r.mtx.gz:1: "},
        {"trilap-analyze overlap", "run", "run/trace.rank0.csv.gz:1: "},
        {"trilap-analyze overlap", "kin/rank0.json.gz", "kin/rank0.json.gz: after 0 bytes of JSON: "},
        {"trilap-analyze overlap", "kin", "kin/rank0.json.gz: after 0 bytes of JSON: "},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char want[700];
        snprintf(want, sizeof want, "%s/%struncated or corrupt file: gzip data ends inside a member\n", t,
                 cases[k].said);
        tl_test_output o = tl_test_capture("%s/%s %s/%s", tl_test_bin(), cases[k].cmd, t, cases[k].arg);
        TL_ASSERT_MSG(tl_test_count(o.err, "\n") == 1, "%s %s:\n%s", cases[k].cmd, cases[k].arg, o.err);
        refused(&o, 1, cases[k].arg, want);
    }
}

/* ---- FDTD ------------------------------------------------------------------ */

/* A .gz name holding less than gzip's two magic bytes, and what there is
 * of them (nothing, or 0x1f alone), is a gzip file cut short, as gzip -t
 * says ("unexpected end of file"): refused as the same file cut after its
 * magic is. Before, the two were read as text ("empty file", "bad
 * banner"). Bytes that are not gzip's stay text whatever the name, as
 * `zcat -f` reads them (gzip -t: "not in gzip format"), and so do the short
 * files without the name. */
TL_TEST(matrix_gzip_shorter_than_magic)
{
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("cd %s && : > empty.mtx.gz && printf '\\037' > one.mtx.gz && printf '\\037\\213' > "
                            "magic.mtx.gz && printf 'ab' > two.mtx.gz && : > empty.mtx && printf '\\037' > one.mtx",
                            t),
                 0);
    static const char cut[] = "truncated or corrupt file: gzip data ends inside a member";
    static const struct {
        const char *file, *why;
    } cases[] = {{"empty.mtx.gz", cut},       {"one.mtx.gz", cut},          {"magic.mtx.gz", cut},
                 {"two.mtx.gz", "bad banner"}, {"one.mtx", "bad banner"}, {"empty.mtx", "empty file"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char said[64];
        snprintf(said, sizeof said, "%s:1: ", cases[k].file);
        tl_test_output o = tl_test_capture("%s/trilap-matgen info %s/%s", tl_test_bin(), t, cases[k].file);
        refused(&o, 1, said, cases[k].why);
    }
}

TL_TEST(fdtd_grid_beyond_memory)
{
    /* 1250^3 points: 29 GiB of fields; refused before the preamble */
    tl_test_output o = tl_test_capture("TRILAP_TEST_HOST_MEM=1e9 %s/trilap-fdtd run --grid 1250 --cpml 0", tl_test_bin());
    refused(&o, 1, "1250x1250x1250 grid", "of host memory; 953.7 MiB is available");
    /* the exact check at set-up: the lower bound passes, the CPML slabs
     * and ghosts do not (64^3 floats are 4 MiB of fields) */
    o = tl_test_capture("TRILAP_TEST_HOST_MEM=4300000 %s/trilap-fdtd run --grid 64 --cpml 8 --steps 1", tl_test_bin());
    TL_ASSERT_EQ(o.rc, 1);
    TL_ASSERT_MSG(strstr(o.err, "64x64x64 grid (order 8, CPML 8, float, 1 subdomain) needs"), "%s", o.err);
    TL_ASSERT_MSG(!strstr(o.out, "\nsingle,") && !strstr(o.out, ",cpu,"), "a result row:\n%s", o.out);
    tl_test_output_free(&o);
}

/* Thread ranks share their process's memory: their subdomains' needs are
 * added up before the preamble and rank 0 says it in one line (before:
 * each rank checked its share against the whole process, the preamble was
 * printed, then "rank 2: 20134912 x 4 bytes for a field" from three ranks).
 * ulimit -v caps the old code's attempt well below the machine's memory. */
TL_TEST(fdtd_thread_ranks_memory_added_up)
{
    tl_test_output o = tl_test_capture("ulimit -v 1100000; %s/trilap-fdtd run --grid 400 --steps 1 --cpml 0 --source none "
                                       "--decomp 1x2x2 --launcher threads --ranks 4 --no-gpu",
                                       tl_test_bin());
    TL_ASSERT_MSG(tl_test_count(o.err, "\n") == 1, "not one line:\n%s", o.err);
    /* the limit (1.0 GiB) less what the process maps, its four ranks' stacks too
     * (fdtd_ulimit_counts_what_is_mapped): some 540 MiB, the four thread
     * ranks' room together */
    TL_ASSERT_MSG(strstr(o.err, " MiB is available under its address-space limit (ulimit -v)\n"), "%s", o.err);
    refused(&o, 1, "trilap-fdtd: rank 0: the 400x400x400 grid (order 8, CPML 0, float, 4 subdomains) needs ",
            " of host memory for the 4 ranks on this host (400x200x200 points each); ");
    /* beyond any host: one line, not one per rank, naming each rank's share */
    o = tl_test_capture("%s/trilap-fdtd run --grid 4096x4096x4096 --steps 1 --launcher threads --ranks 4 --no-gpu "
                        "--decomp 1x2x2",
                        tl_test_bin());
    TL_ASSERT_MSG(tl_test_count(o.err, "\n") == 1, "not one line:\n%s", o.err);
    refused(&o, 1, "the 4096x4096x4096 grid (order 8, CPML 20, float, 4 subdomains) needs ",
            "of host memory for the 4 ranks on this host (4096x2048x2048 points each); ");
    /* past the checks (a test's available memory above the process's
     * limit): the allocation's line says what to do (before: "20134912 x
     * 4 bytes for a field") */
    o = tl_test_capture("ulimit -v 700000; TRILAP_TEST_HOST_MEM=1e12 %s/trilap-fdtd run --grid 400 --steps 1 --cpml 0 "
                        "--source none",
                        tl_test_bin());
    TL_ASSERT_EQ(o.rc, 1);
    TL_ASSERT_MSG(strstr(o.err, "trilap-fdtd: subdomain 0: no host memory for ") &&
                      strstr(o.err, "run a smaller grid, or fewer ranks on this host\n") &&
                      tl_test_count(o.err, "\n") == 1,
                  "%s", o.err);
    tl_test_output_free(&o);
}

/* ulimit -v is the room of the whole address space, of which the process
 * already maps a part (libraries, CUDA and MPI, thread stacks: some 300
 * MiB for trilap-fdtd): the checks take the limit less what is mapped.
 * The four float fields of a 400^3 grid are 448x408x408 points with
 * their ghosts (4 a side; x rows aligned to 32 points), 1138 MiB. Under
 * a limit 64 MiB above them both checks, which took the limit whole,
 * passed, and the allocation failed after the preamble ("subdomain 0: no
 * host memory for ..."); now a check refuses the grid, in its one line,
 * before any field is allocated. A grid that fits the room left runs
 * under the same limit. */
TL_TEST(fdtd_ulimit_counts_what_is_mapped)
{
    const long fields_kib = 448L * 408 * 408 * 4 * 4 / 1024, limit_kib = fields_kib + 65536;
    tl_test_output o = tl_test_capture("ulimit -v %ld; %s/trilap-fdtd run --grid 400 --steps 1 --cpml 0 --source none",
                                       limit_kib, tl_test_bin());
    TL_ASSERT_MSG(o.rc == 1 && tl_test_count(o.err, "\n") == 1 && strstr(o.err, "trilap-fdtd: the 400x400x400 grid (") &&
                      strstr(o.err, " of host memory; ") && strstr(o.err, " is available\n") &&
                      !strstr(o.err, "no host memory for") && !strstr(o.out, ",cpu,"),
                  "rc %d, not the check's line:\n%s%s", o.rc, o.out, o.err);
    tl_test_output_free(&o);
    o = tl_test_capture("ulimit -v %ld; %s/trilap-fdtd run --grid 64 --steps 1 --cpml 0 --source none", limit_kib,
                        tl_test_bin());
    TL_ASSERT_MSG(o.rc == 0 && strstr(o.out, ",cpu,"), "rc %d:\n%s%s", o.rc, o.out, o.err);
    tl_test_output_free(&o);
}

/* MPI ranks each run in a process of their own, whose address-space
 * limit is its own: each rank is held to its process's room, the host's
 * MemAvailable to all of them. Before, the ranks' needs were added up
 * against the first rank's room, ulimit -v included: two ranks that each
 * fit under 1.4 GB were refused ("needs 1.2 GiB of host memory for the 2
 * ranks on this host ...; 952.0 MiB is available"). */
TL_TEST(fdtd_mpi_ranks_each_under_its_own_ulimit)
{
    const char *m = tl_test_mpirun();
    tl_test_output o = tl_test_capture("ulimit -v 1400000; %s -np 2 --oversubscribe %s/trilap-fdtd run --grid 400 "
                                       "--steps 1 --cpml 0 --source none --decomp 1x1x2 --no-gpu",
                                       m, tl_test_bin());
    TL_ASSERT_MSG(o.rc == 0 && strstr(o.out, "\nrun,cpu,-,ranks,1x1x2,"), "rc %d:\n%s%s", o.rc, o.out, o.err);
    tl_test_output_free(&o);
    /* a rank beyond its own room: refused in one line naming the limit */
    o = tl_test_capture("ulimit -v 1400000; %s -np 2 --oversubscribe %s/trilap-fdtd run --grid 520 --steps 1 --cpml 0 "
                        "--source none --decomp 1x1x2 --no-gpu",
                        m, tl_test_bin());
    TL_ASSERT_MSG(o.rc != 0 && tl_test_count(o.err, "trilap-fdtd:") == 1 &&
                      strstr(o.err, "trilap-fdtd: rank 0: the 520x520x520 grid (order 8, CPML 0, float, 2 subdomains) "
                                    "needs ") &&
                      strstr(o.err, " of host memory for the 1 rank of process ") &&
                      strstr(o.err, " on this host (520x520x260 points each); ") &&
                      strstr(o.err, " is available under its address-space limit (ulimit -v)\n") &&
                      !strstr(o.out, ",cpu,"),
                  "rc %d:\n%s%s", o.rc, o.out, o.err);
    tl_test_output_free(&o);
}

TL_TEST(fdtd_verify_decomp_no_row_before_failure)
{
    /* 1x1x2 would run, but 1x1x16 is too thin for the ghosts: refused
     * before any run, so no row of the first may stand as if the
     * verification had passed (exit 2: the input's); the thinnest
     * subdomain named, the first of the cut's 1-point ones (up to 58a8851
     * subdomain 0, which has 2, and "1 points") */
    tl_test_output o =
        tl_test_capture("%s/trilap-fdtd verify decomp --decomps 1x1x2,1x1x16 --n 24 --steps 2 --ss 1", tl_test_bin());
    refused(&o, 2, "subdomain 8 has 1 point along z", "fewer than the ghost depth");
    o = tl_test_capture("%s/trilap-fdtd verify decomp --decomps 1x1x2,nonsense --n 24 --steps 2 --ss 1", tl_test_bin());
    refused(&o, 2, "nonsense", "is not PXxPYxPZ, slab-z, block-xy or pencil-yz");
    o = tl_test_capture("%s/trilap-fdtd verify decomp --decomps 1x1x2 --n 24 --steps 2 --ss 1", tl_test_bin());
    TL_ASSERT_EQ(o.rc, 0);
    TL_ASSERT_MSG(strstr(o.out, "decomp,strategy,s,") && strstr(o.out, "# 3 rows, 0 not identical"), "%s", o.out);
    tl_test_output_free(&o);
}

/* ---- traces ----------------------------------------------------------------- */

static const char *const ROWS = "0,0,1,compute,compute,kernel,k,100,1000,1,-1,0\n"
                                "0,0,2,coll,coll,kernel,ncclDevKernel_AllReduce_Sum_f64,500,1500,2,-1,0\n"
                                "0,0,1,compute,compute,kernel,k,1500,2500,3,-1,1\n";

/* rank `rank` of `nranks` in dir, with extra metadata and the rows */
static void trace(const char *dir, const char *file, int rank, int nranks, const char *meta, const char *rows)
{
    char p[1024];
    mkdir(dir, 0755);
    snprintf(p, sizeof p, "%s/%s", dir, file);
    FILE *f = fopen(p, "w");
    TL_ASSERT(f);
    fprintf(f,
            "# format=trilap-trace\n# version=1\n# rank=%d\n# nranks=%d\n# device=0\n# complete=yes\n%s"
            "rank,device,stream,lane,cat,kind,name,start_ns,end_ns,corr,bytes,iter\n%s",
            rank, nranks, meta, rows);
    TL_ASSERT(fclose(f) == 0);
}

static tl_test_output overlap(const char *dir, const char *flags)
{
    return tl_test_capture("%s/trilap-analyze overlap %s %s", tl_test_bin(), dir, flags);
}

TL_TEST(trace_record_count)
{
    const char *t = tl_test_tmpdir();
    char run[600];
    snprintf(run, sizeof run, "%s/cut", t);
    /* cut at a row boundary: 3 rows of a declared 5 */
    trace(run, "trace.rank0.csv", 0, 1, "# records=5\n", ROWS);
    tl_test_output o = overlap(run, "");
    refused(&o, 1, "trace.rank0.csv", "the metadata says records=5, the file has 3 (cut short)");
    o = overlap(run, "--accept-incomplete");
    TL_ASSERT_EQ(o.rc, 0);
    TL_ASSERT_MSG(strstr(o.err, "incomplete trace accepted: the metadata says records=5, the file has 3"), "%s",
                  o.err);
    tl_test_output_free(&o);
    /* cut mid-row (a copy cut short, a full disk): refused, and with the
     * flag read without that row, which is said */
    snprintf(run, sizeof run, "%s/midrow", t);
    char rows[512];
    snprintf(rows, sizeof rows, "%s0,0,1,compute,compute,kernel,k,2600,27", ROWS);
    trace(run, "trace.rank0.csv", 0, 1, "# records=4\n", rows);
    o = overlap(run, "");
    refused(&o, 1, "trace.rank0.csv",
            "truncated last row (no newline at the end of the file); read it without that row only on purpose "
            "(trilap-analyze --accept-incomplete)");
    o = overlap(run, "--accept-incomplete --csv -");
    TL_ASSERT_EQ(o.rc, 0);
    TL_ASSERT_MSG(strstr(o.err, "trace.rank0.csv: incomplete trace accepted: it ends mid-row, and that row is left "
                                "out; the metadata says records=4, the file has 3\n"),
                  "%s", o.err);
    TL_ASSERT_EQ(tl_test_count(o.err, "\n"), 1);
    tl_test_output_free(&o);
    snprintf(run, sizeof run, "%s/whole", t);
    trace(run, "trace.rank0.csv", 0, 1, "# records=3\n", ROWS);
    o = overlap(run, "");
    TL_ASSERT_EQ(o.rc, 0);
    TL_ASSERT_MSG(!strstr(o.err, "incomplete"), "%s", o.err);
    tl_test_output_free(&o);
    snprintf(run, sizeof run, "%s/notanumber", t);
    trace(run, "trace.rank0.csv", 0, 1, "# records=3x\n", ROWS);
    o = overlap(run, "");
    refused(&o, 1, "trace.rank0.csv", "metadata records='3x' is not an integer");
}

/* A gzip'd rank file cut short (a copy stopped, a writer killed while
 * gzip ran): refused, naming the flag, which reads what it holds and says
 * so; cut inside its trailer, every row is there and the cut is said; cut
 * before its header, the flag cannot mend it and the refusal does not
 * name it. */
/* A folder where a file is read (a matrix, a rank file, a Kineto JSON):
 * one line saying so, where it read "read error: Is a directory", and the
 * Kineto folder's listing said the reader's line besides its own. */
TL_TEST(inputs_that_are_folders)
{
    const char *t = tl_test_tmpdir();
    TL_ASSERT_EQ(tl_test_sh("mkdir -p %s/m.mtx %s/run/trace.rank0.csv %s/kin/rank0.json", t, t, t), 0);
    tl_test_output o = tl_test_capture("%s/trilap-solve --backend host %s/m.mtx", tl_test_bin(), t);
    refused(&o, 1, "m.mtx: a folder, where a file is read\n", "trilap-solve: ");
    o = tl_test_capture("%s/trilap-matgen info %s/m.mtx", tl_test_bin(), t);
    refused(&o, 1, "m.mtx: a folder, where a file is read\n", "trilap-matgen: ");
    o = tl_test_capture("%s/trilap-analyze overlap %s/run", tl_test_bin(), t);
    refused(&o, 1, "run/trace.rank0.csv: a folder, where a file is read\n", "trilap-analyze: ");
    o = tl_test_capture("%s/trilap-analyze overlap %s/kin", tl_test_bin(), t);
    TL_ASSERT_EQ(tl_test_count(o.err, "\n"), 1);
    refused(&o, 1, "kin/rank0.json: a folder, where a file is read\n", "trilap-analyze: ");
}

TL_TEST(gzip_trace_cut_short)
{
    if (strcmp(tl_test_env("TL_HAVE_ZLIB", "1"), "1") != 0) TL_SKIP("built without zlib");
    const char *t = tl_test_tmpdir();
    enum { NROWS = 4000 };
    char *rows = malloc(NROWS * 64), run[600], gz[700];
    TL_ASSERT(rows);
    size_t w = 0;
    for (int k = 0; k < NROWS; k++) /* numbers that vary, so that gzip leaves kilobytes to cut */
        w += (size_t)sprintf(rows + w, "0,0,1,compute,compute,kernel,k,%d,%d,%d,-1,%d\n", 1000 * k + k % 7,
                             1000 * k + 500 + k % 13, k + 1, k / 40);
    snprintf(run, sizeof run, "%s/gzcut", t);
    trace(run, "trace.rank0.csv", 0, 1, "", rows);
    free(rows);
    snprintf(gz, sizeof gz, "%s/trace.rank0.csv.gz", run);
    TL_ASSERT_EQ(tl_test_sh("gzip %s/trace.rank0.csv && cp %s %s.whole && truncate -s $(($(stat -c %%s %s) / 2)) %s",
                            run, gz, gz, gz, gz),
                 0);
    tl_test_output o = overlap(run, "");
    refused(&o, 1, "trace.rank0.csv.gz",
            "gzip data ends inside a member; read what it holds only on purpose (trilap-analyze --accept-incomplete)");
    o = overlap(run, "--accept-incomplete");
    TL_ASSERT_MSG(o.rc == 0, "%s", o.err);
    TL_ASSERT_MSG(strstr(o.err, "trace.rank0.csv.gz: incomplete trace accepted: its gzip data ends inside a member "
                                "(cut short)"),
                  "%s", o.err);
    TL_ASSERT_EQ(tl_test_count(o.err, "\n"), 1);
    tl_test_output_free(&o);
    /* the trailer cut: every row read, the cut still said */
    TL_ASSERT_EQ(tl_test_sh("cp %s.whole %s && truncate -s -4 %s", gz, gz, gz), 0);
    o = overlap(run, "--accept-incomplete --csv -");
    TL_ASSERT_MSG(o.rc == 0, "%s", o.err);
    TL_ASSERT_MSG(strstr(o.err, "incomplete trace accepted: its gzip data ends inside a member (cut short)\n"), "%s",
                  o.err);
    tl_test_output_free(&o);
    /* cut inside the header: refused with the flag too, which it does not name */
    TL_ASSERT_EQ(tl_test_sh("cp %s.whole %s && truncate -s 40 %s", gz, gz, gz), 0);
    o = overlap(run, "--accept-incomplete");
    refused(&o, 1, "trace.rank0.csv.gz", "gzip data ends inside a member");
    o = overlap(run, "");
    TL_ASSERT_MSG(o.rc == 1 && !strstr(o.err, "--accept-incomplete"), "%s", o.err);
    tl_test_output_free(&o);
}

/* A rank file gzipped twice (gzip run on a .gz): said as such, with how
 * to mend it, where the trace reader saw binary data ("NUL byte in line
 * 1"), in the words every reader says (runtime/gzin.c); mended as said,
 * the run reads. */
TL_TEST(trace_gzipped_twice)
{
    if (strcmp(tl_test_env("TL_HAVE_ZLIB", "1"), "1") != 0) TL_SKIP("built without zlib");
    const char *t = tl_test_tmpdir();
    char run[600];
    snprintf(run, sizeof run, "%s/twice", t);
    trace(run, "trace.rank0.csv", 0, 1, "", ROWS);
    TL_ASSERT_EQ(tl_test_sh("cd %s && gzip trace.rank0.csv && gzip -c trace.rank0.csv.gz > x && mv x trace.rank0.csv.gz",
                            run),
                 0);
    static const char *const cmds[] = {"overlap", "breakdown", "diagnose"};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        tl_test_output o = tl_test_capture("%s/trilap-analyze %s %s", tl_test_bin(), cmds[k], run);
        TL_ASSERT_EQ(tl_test_count(o.err, "\n"), 1);
        char want[8192];
        snprintf(want, sizeof want,
                 "trilap-analyze: %s/trace.rank0.csv.gz: gzip data inside gzip data (the file gzipped twice): gunzip "
                 "it once, keeping its name (gunzip -c %s/trace.rank0.csv.gz > %s/trace.rank0.csv.gz.once && mv "
                 "%s/trace.rank0.csv.gz.once %s/trace.rank0.csv.gz)\n",
                 run, run, run, run, run);
        refused(&o, 1, "twice/trace.rank0.csv.gz", want);
    }
    TL_ASSERT_EQ(tl_test_sh("gunzip -c %s/trace.rank0.csv.gz > %s/trace.rank0.csv.gz.once && mv "
                            "%s/trace.rank0.csv.gz.once %s/trace.rank0.csv.gz",
                            run, run, run, run),
                 0);
    tl_test_output o = overlap(run, "");
    TL_ASSERT_MSG(o.rc == 0, "%s", o.err);
    tl_test_output_free(&o);
}

/* A window of years (window_end_ns far past the records, within the
 * reader's +-2^61 ns): diagnose said "idle 7.8% of the window", idle *
 * 100 overflowing int64 (UBSan: signed integer overflow). A window so far
 * past its records is now a damaged header, refused in one line
 * (analysis/window.c); one its records reach, a 9 us p2p kernel at its
 * end (idle all the same), still goes through diagnose's sums. */
TL_TEST(diagnose_window_of_years)
{
    const char *t = tl_test_tmpdir();
    char run[600], rows[1200];
    snprintf(run, sizeof run, "%s/years", t);
    trace(run, "trace.rank0.csv", 0, 1, "# window_start_ns=0\n# window_end_ns=1000000000000000000\n", ROWS);
    tl_test_output o = tl_test_capture("%s/trilap-analyze diagnose %s", tl_test_bin(), run);
    TL_ASSERT_MSG(o.rc == 1 && tl_test_one_line(o.err, "trace.rank0.csv: window_end_ns lies 31.7 years past its last "
                                                       "record's end"),
                  "%s", o.err);
    tl_test_output_free(&o);
    snprintf(run, sizeof run, "%s/years2", t);
    snprintf(rows, sizeof rows, "%s0,0,2,p2p,p2p,kernel,ncclDevKernel_SendRecv,999999999999990000,"
                                "999999999999999000,9,-1,-1\n",
             ROWS);
    trace(run, "trace.rank0.csv", 0, 1, "# window_start_ns=0\n# window_end_ns=1000000000000000000\n", rows);
    o = tl_test_capture("%s/trilap-analyze diagnose %s", tl_test_bin(), run);
    TL_ASSERT_MSG(o.rc == 0, "%s", o.err);
    TL_ASSERT_MSG(strstr(o.out, "# rank 0: window 1000000000000000.0 us, 2 iterations; compute 0.0%, p2p 0.0%, "
                                "coll 0.0%, exposed communication 0.0%, idle 100.0% of the window"),
                  "%s", o.out);
    TL_ASSERT_MSG(!strstr(o.err, "runtime error"), "%s", o.err);
    tl_test_output_free(&o);
}

TL_TEST(trace_line_endings_and_bytes)
{
    const char *t = tl_test_tmpdir();
    char run[600], p[700];
    /* CR LF throughout: read as the LF file is */
    snprintf(run, sizeof run, "%s/lf", t);
    trace(run, "trace.rank0.csv", 0, 1, "", ROWS);
    tl_test_output lf = overlap(run, "");
    TL_ASSERT_EQ(lf.rc, 0);
    snprintf(run, sizeof run, "%s/crlf", t);
    trace(run, "trace.rank0.csv", 0, 1, "", ROWS);
    snprintf(p, sizeof p, "%s/trace.rank0.csv", run);
    TL_ASSERT_EQ(tl_test_sh("sed -i 's/$/\\r/' %s", p), 0);
    tl_test_output crlf = overlap(run, "");
    TL_ASSERT_MSG(crlf.rc == 0, "CR LF refused:\n%s", crlf.err);
    /* the same figures (the run folder's name aside) */
    char *a = strstr(lf.out, "# ranks:"), *b = strstr(crlf.out, "# ranks:");
    TL_ASSERT_MSG(a && b && !strcmp(a, b), "LF:\n%s\nCR LF:\n%s", lf.out, crlf.out);
    tl_test_output_free(&lf);
    tl_test_output_free(&crlf);
    /* mixed: one LF line in a CR LF file */
    TL_ASSERT_EQ(tl_test_sh("sed -i '$ s/\\r$//' %s", p), 0);
    tl_test_output o = overlap(run, "");
    refused(&o, 1, "trace.rank0.csv", "mixed line endings");
    /* a NUL byte in a name */
    snprintf(run, sizeof run, "%s/nul", t);
    trace(run, "trace.rank0.csv", 0, 1, "", ROWS);
    snprintf(p, sizeof p, "%s/trace.rank0.csv", run);
    TL_ASSERT_EQ(tl_test_sh("printf '0,0,1,compute,compute,kernel,a\\000b,3000,3100,4,-1,2\\n' >> %s", p), 0);
    o = overlap(run, "");
    refused(&o, 1, "trace.rank0.csv", "NUL byte");
    /* invalid UTF-8: a lone continuation byte, an overlong '/' */
    static const char *const bad[] = {"k\\200", "k\\300\\257", "k\\355\\240\\200"};
    for (int k = 0; k < 3; k++) {
        snprintf(run, sizeof run, "%s/utf8-%d", t, k);
        trace(run, "trace.rank0.csv", 0, 1, "", ROWS);
        snprintf(p, sizeof p, "%s/trace.rank0.csv", run);
        TL_ASSERT_EQ(tl_test_sh("printf '0,0,1,compute,compute,kernel,%s,3000,3100,4,-1,2\\n' >> %s", bad[k], p), 0);
        o = overlap(run, "");
        refused(&o, 1, "trace.rank0.csv:", "name is not valid UTF-8");
    }
    /* valid UTF-8 stays accepted */
    snprintf(run, sizeof run, "%s/utf8-ok", t);
    trace(run, "trace.rank0.csv", 0, 1, "", "0,0,1,compute,compute,kernel,\xce\xbb-k\xe2\x82\xac,100,200,1,-1,0\n");
    o = overlap(run, "");
    TL_ASSERT_EQ(o.rc, 0);
    tl_test_output_free(&o);
}

TL_TEST(trace_times_near_int64_limits)
{
    const char *t = tl_test_tmpdir();
    char run[600];
    static const char *const rows[] = {
        "0,0,1,compute,compute,kernel,k,9223372036854775000,9223372036854775807,1,-1,0\n",
        "0,0,1,compute,compute,kernel,k,-9223372036854775808,0,1,-1,0\n",
    };
    for (int k = 0; k < 2; k++) {
        snprintf(run, sizeof run, "%s/r%d", t, k);
        trace(run, "trace.rank0.csv", 0, 1, "", rows[k]);
        tl_test_output o = overlap(run, "");
        refused(&o, 1, "trace.rank0.csv:", "bad number in start_ns");
    }
    /* an iteration beyond any run: named with its file */
    snprintf(run, sizeof run, "%s/iter", t);
    trace(run, "trace.rank0.csv", 0, 1, "", "0,0,1,compute,compute,kernel,k,100,200,1,-1,134217728\n");
    tl_test_output it = overlap(run, "");
    refused(&it, 1, "trace.rank0.csv: iteration 134217728 beyond", "a corrupt trace");
    /* times and offset each in range, their difference not */
    snprintf(run, sizeof run, "%s/offset", t);
    trace(run, "trace.rank0.csv", 0, 1, "# clock_offset_ns=2305843009213693952\n# clock_offset_at_ns=0\n",
          "0,0,1,compute,compute,kernel,k,-2305843009213693952,0,1,-1,0\n");
    it = overlap(run, "");
    refused(&it, 1, "trace.rank0.csv: clock_offset_ns 2305843009213693952 moves a record", "beyond +-2^61 ns");
    static const char *const meta[][2] = {
        {"# window_start_ns=-9223372036854775808\n# window_end_ns=9223372036854775807\n", "window_start_ns"},
        {"# clock_offset_ns=9223372036854775807\n# clock_offset_at_ns=0\n", "clock_offset_ns"},
        {"# window_start_ns=2000\n# window_end_ns=1000\n", "window_end_ns=1000 before window_start_ns=2000"},
    };
    for (int k = 0; k < 3; k++) {
        snprintf(run, sizeof run, "%s/m%d", t, k);
        trace(run, "trace.rank0.csv", 0, 1, meta[k][0], ROWS);
        tl_test_output o = overlap(run, "");
        refused(&o, 1, "trace.rank0.csv: metadata", meta[k][1]);
    }
}

TL_TEST(run_folder_rank_set)
{
    const char *t = tl_test_tmpdir();
    char run[600];
    /* trace.rank01.csv beside trace.rank1.csv */
    snprintf(run, sizeof run, "%s/zero", t);
    trace(run, "trace.rank0.csv", 0, 2, "", ROWS);
    trace(run, "trace.rank1.csv", 1, 2, "", ROWS);
    trace(run, "trace.rank01.csv", 1, 2, "", ROWS);
    tl_test_output o = overlap(run, "--accept-incomplete");
    refused(&o, 1, "trace.rank01.csv", "not a rank file name");
    /* a missing rank */
    snprintf(run, sizeof run, "%s/gap", t);
    trace(run, "trace.rank0.csv", 0, 3, "", ROWS);
    trace(run, "trace.rank2.csv", 2, 3, "", ROWS);
    o = overlap(run, "");
    refused(&o, 1, "gap", "rank 1 missing (the next file is trace.rank2.csv); --accept-incomplete reads it anyway");
    o = overlap(run, "--accept-incomplete");
    TL_ASSERT_EQ(o.rc, 0);
    TL_ASSERT_MSG(strstr(o.err, "incomplete run accepted: rank 1 missing"), "%s", o.err);
    tl_test_output_free(&o);
    /* one trace.rank1.csv, labelled rank 0 */
    snprintf(run, sizeof run, "%s/alone", t);
    trace(run, "trace.rank1.csv", 0, 1, "", ROWS);
    o = overlap(run, "");
    refused(&o, 1, "alone", "rank 0 missing");
    /* rank= disagreeing with the name */
    snprintf(run, sizeof run, "%s/label", t);
    trace(run, "trace.rank0.csv", 0, 3, "", ROWS);
    trace(run, "trace.rank1.csv", 2, 3, "", ROWS);
    o = overlap(run, "");
    refused(&o, 1, "label", "trace.rank1.csv says rank=2");
    /* rank 0's trace copied under rank 1's name: one rank twice, refused
     * whatever the flags (accepted, its operations matched themselves:
     * no waiting, its rows printed twice) */
    snprintf(run, sizeof run, "%s/copy", t);
    trace(run, "trace.rank0.csv", 0, 2, "", ROWS);
    trace(run, "trace.rank1.csv", 0, 2, "", ROWS);
    for (int k = 0; k < 2; k++) {
        o = overlap(run, k ? "--accept-incomplete" : "");
        refused(&o, 1, "copy: trace.rank0.csv and trace.rank1.csv are both rank 0", "one rank's trace twice");
    }
    /* nranks= that the folder does not hold */
    snprintf(run, sizeof run, "%s/short", t);
    trace(run, "trace.rank0.csv", 0, 4, "", ROWS);
    trace(run, "trace.rank1.csv", 1, 4, "", ROWS);
    o = overlap(run, "");
    refused(&o, 1, "short", "the metadata says nranks=4, the folder has 2 rank files");
    /* rank >= nranks in one file */
    snprintf(run, sizeof run, "%s/beyond", t);
    trace(run, "trace.rank0.csv", 3, 1, "", ROWS);
    o = overlap(run, "--accept-incomplete");
    refused(&o, 1, "trace.rank0.csv", "metadata rank=3 is not below nranks=1");
    /* gzipped rank files read as the plain ones (results/ keeps its traces
     * gzipped); a rank given both ways, or a cut gzip stream, refused */
    if (strcmp(tl_test_env("TL_HAVE_ZLIB", "1"), "1") == 0) {
        snprintf(run, sizeof run, "%s/gz", t);
        trace(run, "trace.rank0.csv", 0, 2, "", ROWS);
        trace(run, "trace.rank1.csv", 1, 2, "", ROWS);
        tl_test_output plain = overlap(run, "");
        TL_ASSERT_EQ(plain.rc, 0);
        TL_ASSERT_EQ(tl_test_sh("gzip -k %s/trace.rank1.csv", run), 0);
        o = overlap(run, "");
        refused(&o, 1, "gz", "rank 1 has two trace files, trace.rank1.csv and trace.rank1.csv.gz");
        TL_ASSERT_EQ(tl_test_sh("rm %s/trace.rank1.csv", run), 0);
        o = overlap(run, "");
        TL_ASSERT_EQ(o.rc, 0);
        /* the same table, the input line apart */
        const char *a = strstr(plain.out, "\n# ranks"), *b = strstr(o.out, "\n# ranks");
        TL_ASSERT_MSG(a && b && !strcmp(a, b), "gzipped:\n%s\nplain:\n%s", o.out, plain.out);
        tl_test_output_free(&o);
        /* .gz in any case, as every other input: the same table */
        TL_ASSERT_EQ(tl_test_sh("mv %s/trace.rank1.csv.gz %s/trace.rank1.csv.GZ", run, run), 0);
        o = overlap(run, "");
        TL_ASSERT_MSG(o.rc == 0, "%s", o.err);
        b = strstr(o.out, "\n# ranks");
        TL_ASSERT_MSG(b && !strcmp(a, b), ".GZ:\n%s\nplain:\n%s", o.out, plain.out);
        tl_test_output_free(&o);
        TL_ASSERT_EQ(tl_test_sh("cp %s/trace.rank1.csv.GZ %s/trace.rank1.csv.gz", run, run), 0);
        o = overlap(run, "");
        refused(&o, 1, "gz", "rank 1 has two trace files");
        TL_ASSERT_EQ(tl_test_sh("rm %s/trace.rank1.csv.GZ", run), 0);
        tl_test_output_free(&plain);
        TL_ASSERT_EQ(tl_test_sh("cp %s/trace.rank1.csv.gz %s/../whole.gz && head -c 60 %s/trace.rank1.csv.gz > %s/cut.gz && "
                                "mv %s/cut.gz %s/trace.rank1.csv.gz",
                                run, run, run, run, run, run),
                     0);
        o = overlap(run, "");
        refused(&o, 1, "trace.rank1.csv.gz", "truncated or corrupt file: gzip data ends inside a member");
        /* bytes appended after the gzip data: not the file that was
         * written (gzip -t warns), refused as the matrix reader does */
        TL_ASSERT_EQ(tl_test_sh("cp %s/../whole.gz %s/trace.rank1.csv.gz && printf 'junk\\n' >> %s/trace.rank1.csv.gz",
                                run, run, run),
                     0);
        o = overlap(run, "");
        refused(&o, 1, "trace.rank1.csv.gz", "bytes or more after the end of the gzip data (not another gzip member)");
    }
    /* and a whole one is accepted, silently */
    snprintf(run, sizeof run, "%s/whole", t);
    trace(run, "trace.rank0.csv", 0, 2, "", ROWS);
    trace(run, "trace.rank1.csv", 1, 2, "", ROWS);
    o = overlap(run, "");
    TL_ASSERT_EQ(o.rc, 0);
    TL_ASSERT_MSG(!strstr(o.err, "incomplete"), "%s", o.err);
    tl_test_output_free(&o);
}

/* Rank files of two runs in one folder: refused naming both files and
 * what differs, whatever the flags; ranks of one run on hosts whose
 * clocks nobody related are not compared, and measured offsets put a
 * skewed rank's window where it belongs. */
TL_TEST(run_folder_of_two_runs)
{
    const char *t = tl_test_tmpdir();
    char run[600];
    const char *on_n1 = "# host=n1\n# clock=CLOCK_MONOTONIC\n# window_start_ns=0\n# window_end_ns=3000\n";
    const char *later = "# host=n1\n# clock=CLOCK_MONOTONIC\n# window_start_ns=9000\n# window_end_ns=12000\n";
    /* rank 1 of a later run of the same program on the same host */
    snprintf(run, sizeof run, "%s/later", t);
    trace(run, "trace.rank0.csv", 0, 2, on_n1, ROWS);
    trace(run, "trace.rank1.csv", 1, 2, later, ROWS);
    static const char *const flags[] = {"", "--accept-incomplete", "--raw-clock"};
    for (int k = 0; k < 3; k++) {
        tl_test_output o = overlap(run, flags[k]);
        refused(&o, 1, "trace.rank0.csv and trace.rank1.csv are not of one run",
                "windows do not overlap (0.000000..0.000003 s and 0.000009..0.000012 s on CLOCK_MONOTONIC of host n1)");
    }
    tl_test_output o = tl_test_capture("%s/trilap-analyze timeline %s -o %s/tl.csv", tl_test_bin(), run, t);
    refused(&o, 1, "later", "are not of one run");
    o = tl_test_capture("%s/trilap-analyze breakdown %s", tl_test_bin(), run);
    refused(&o, 1, "later", "are not of one run");
    /* the same windows on two hosts whose clocks nobody related: not compared */
    snprintf(run, sizeof run, "%s/hosts", t);
    trace(run, "trace.rank0.csv", 0, 2, on_n1, ROWS);
    trace(run, "trace.rank1.csv", 1, 2, "# host=n2\n# clock=CLOCK_MONOTONIC\n# window_start_ns=9000\n"
                                        "# window_end_ns=12000\n", ROWS);
    o = overlap(run, "");
    TL_ASSERT_MSG(o.rc == 0, "%s", o.err);
    tl_test_output_free(&o);
    /* rank 1's clock 8000 ns ahead, measured: on rank 0's clock its window
     * is 1000..4000 ns; left raw, the two clocks are not compared */
    snprintf(run, sizeof run, "%s/skew", t);
    trace(run, "trace.rank0.csv", 0, 2, "# host=n1\n# clock=CLOCK_MONOTONIC\n# clock_sync=reference\n"
                                        "# window_start_ns=0\n# window_end_ns=3000\n", ROWS);
    trace(run, "trace.rank1.csv", 1, 2, "# host=n2\n# clock=CLOCK_MONOTONIC\n# clock_sync=mpi-pingpong\n"
                                        "# clock_offset_ns=8000\n# clock_offset_at_ns=0\n"
                                        "# window_start_ns=9000\n# window_end_ns=12000\n",
          "1,0,1,compute,compute,kernel,k,9100,10000,1,-1,0\n");
    for (int k = 0; k < 2; k++) {
        o = overlap(run, k ? "--raw-clock" : "");
        TL_ASSERT_MSG(o.rc == 0, "%s", o.err);
        tl_test_output_free(&o);
    }
    /* measured 80 us ahead instead: still apart on rank 0's clock */
    TL_ASSERT_EQ(tl_test_sh("sed -i 's/clock_offset_ns=8000/clock_offset_ns=80000/' %s/trace.rank1.csv", run), 0);
    o = overlap(run, "");
    refused(&o, 1, "trace.rank0.csv and trace.rank1.csv are not of one run", "on rank 0's clock");
    /* one host, offsets measured: compared on rank 0's clock with or
     * without --raw-clock (a rank of a later run beside them was analysed
     * with --raw-clock) */
    snprintf(run, sizeof run, "%s/onehost", t);
    trace(run, "trace.rank0.csv", 0, 2, "# host=n1\n# clock=CLOCK_MONOTONIC\n# clock_sync=reference\n"
                                        "# window_start_ns=0\n# window_end_ns=3000\n", ROWS);
    trace(run, "trace.rank1.csv", 1, 2, "# host=n1\n# clock=CLOCK_MONOTONIC\n# clock_sync=threads-pingpong\n"
                                        "# clock_offset_ns=0\n# clock_offset_at_ns=0\n"
                                        "# window_start_ns=9000\n# window_end_ns=12000\n", ROWS);
    for (int k = 0; k < 2; k++) {
        o = overlap(run, k ? "--raw-clock" : "");
        refused(&o, 1, "trace.rank0.csv and trace.rank1.csv are not of one run", "on rank 0's clock");
    }
    /* runs of different sizes, of different clocks: refused, whatever the flags */
    snprintf(run, sizeof run, "%s/sizes", t);
    trace(run, "trace.rank0.csv", 0, 2, "", ROWS);
    trace(run, "trace.rank1.csv", 1, 3, "", ROWS);
    o = overlap(run, "--accept-incomplete");
    refused(&o, 1, "sizes: trace.rank0.csv and trace.rank1.csv are not of one run", "nranks=2 and nranks=3");
    snprintf(run, sizeof run, "%s/clocks", t);
    trace(run, "trace.rank0.csv", 0, 2, "# clock=CLOCK_MONOTONIC\n", ROWS);
    trace(run, "trace.rank1.csv", 1, 2, "# clock=nsys-session\n", ROWS);
    o = overlap(run, "--accept-incomplete");
    refused(&o, 1, "trace.rank0.csv and trace.rank1.csv are not of one run", "clock=CLOCK_MONOTONIC and clock=nsys-session");
}

/* A run with nothing recorded has nothing to analyse: refused naming it.
 * One rank without records in a run that has some still loads. */
TL_TEST(run_without_activity)
{
    const char *t = tl_test_tmpdir();
    char run[600];
    snprintf(run, sizeof run, "%s/empty", t);
    trace(run, "trace.rank0.csv", 0, 2, "# records=0\n", "");
    trace(run, "trace.rank1.csv", 1, 2, "# records=0\n", "");
    static const char *const cmds[] = {"overlap", "diagnose", "breakdown"};
    for (int k = 0; k < 3; k++) {
        tl_test_output o = tl_test_capture("%s/trilap-analyze %s %s", tl_test_bin(), cmds[k], run);
        refused(&o, 1, "empty: no GPU or host activity recorded", "none of its 2 rank files holds a record");
    }
    snprintf(run, sizeof run, "%s/one", t);
    trace(run, "trace.rank0.csv", 0, 1, "", "");
    tl_test_output o = overlap(run, "--accept-incomplete");
    refused(&o, 1, "one: no GPU or host activity recorded", "trace.rank0.csv holds no records");
    /* a file cut before its first row is said to be cut, not empty */
    snprintf(run, sizeof run, "%s/cut", t);
    trace(run, "trace.rank0.csv", 0, 1, "# records=3\n", "");
    o = overlap(run, "");
    refused(&o, 1, "trace.rank0.csv", "the metadata says records=3, the file has 0");
    snprintf(run, sizeof run, "%s/half", t);
    trace(run, "trace.rank0.csv", 0, 2, "# records=0\n", "");
    trace(run, "trace.rank1.csv", 1, 2, "", ROWS);
    o = overlap(run, "");
    TL_ASSERT_MSG(o.rc == 0, "%s", o.err);
    tl_test_output_free(&o);
}

/* ---- Nsight Systems exports ------------------------------------------------ */

#if TL_HAVE_SQLITE
/* A minimal export (the tables and columns nsys writes that are read):
 * pid 5, two kernels, then `change` (SQL) applied. */
static void export_with(const char *path, const char *change)
{
    sqlite3 *db = NULL;
    remove(path);
    TL_ASSERT_EQ(sqlite3_open(path, &db), SQLITE_OK);
    char *err = NULL;
    const char *base =
        "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,"
        " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER,"
        " mangledName INTEGER);"
        "INSERT INTO StringIds VALUES (1, '_Z10my_computev'), (2, 'ncclDevKernel_AllReduce_Sum_f64_RING_LL');"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 2000, 0, 1, 20, 11, 83886080, 1, 1, 1),"
        " (1500, 3000, 0, 1, 21, 12, 83886080, 2, 2, 2);";
    TL_ASSERT_MSG(sqlite3_exec(db, base, NULL, NULL, &err) == SQLITE_OK, "%s", err ? err : "");
    if (change) TL_ASSERT_MSG(sqlite3_exec(db, change, NULL, NULL, &err) == SQLITE_OK, "%s: %s", change, err ? err : "");
    sqlite3_close(db);
}
#endif

TL_TEST(nsys_impossible_content)
{
    if (!TL_HAVE_SQLITE) TL_SKIP("built without sqlite3 (libsqlite3-dev)");
#if TL_HAVE_SQLITE
    const char *t = tl_test_tmpdir();
    char db[600];
    snprintf(db, sizeof db, "%s/n.sqlite", t);
    export_with(db, NULL);
    tl_test_output o = tl_test_capture("%s/trilap-analyze overlap %s", tl_test_bin(), db);
    TL_ASSERT_MSG(o.rc == 0, "the good export: %s", o.err);
    tl_test_output_free(&o);
    static const char *const cases[][2] = {
        {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = 500 WHERE correlationId = 12",
         "CUPTI_ACTIVITY_KIND_KERNEL row 2: ends before it starts"},
        {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = NULL WHERE correlationId = 11",
         "CUPTI_ACTIVITY_KIND_KERNEL row 1: start is NULL"},
        {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = 'late' WHERE correlationId = 12",
         "CUPTI_ACTIVITY_KIND_KERNEL row 2: end is text"},
        {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = 9223372036854775807 WHERE correlationId = 12",
         "CUPTI_ACTIVITY_KIND_KERNEL row 2: end 9223372036854775807 ns is beyond"},
        {"UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = -9223372036854775808 WHERE correlationId = 11",
         "CUPTI_ACTIVITY_KIND_KERNEL row 1: start -9223372036854775808 ns is beyond"},
        {"DELETE FROM StringIds WHERE id = 2", "CUPTI_ACTIVITY_KIND_KERNEL row 2: its name"},
        {"DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER, end INTEGER,"
         " deviceId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER);"
         " INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (1, 2, 0, 20, 1, 83886080, 64)",
         "no CUDA activity tables (CUPTI_ACTIVITY_KIND_KERNEL missing)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        export_with(db, cases[k][0]);
        o = tl_test_capture("%s/trilap-analyze overlap %s", tl_test_bin(), db);
        refused(&o, 1, "n.sqlite", cases[k][1]);
        /* import writes nothing either */
        o = tl_test_capture("%s/trilap-analyze import %s -o %s/imp%zu", tl_test_bin(), db, t, k);
        TL_ASSERT_EQ(o.rc, 1);
        TL_ASSERT_EQ(tl_test_sh("test ! -e %s/imp%zu/trace.rank0.csv", t, k), 0);
        tl_test_output_free(&o);
    }
    /* a damaged file: sqlite's reason, not "no tables" */
    export_with(db, NULL);
    TL_ASSERT_EQ(tl_test_sh("printf 'XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX' | "
                            "dd of=%s bs=1 seek=100 conv=notrunc 2>/dev/null",
                            db),
                 0);
    o = tl_test_capture("%s/trilap-analyze overlap %s", tl_test_bin(), db);
    refused(&o, 1, "n.sqlite", "database disk image is malformed");
    /* a text file named .sqlite */
    write_to(t, "x.sqlite", "not a database\n");
    o = tl_test_capture("%s/trilap-analyze overlap %s/x.sqlite", tl_test_bin(), t);
    refused(&o, 1, "x.sqlite", "not an SQLite file");
#endif
}

TL_TEST_MAIN(matrix_size_beyond_memory, matrix_hex_value_refused, matrix_gzip_trailing_bytes,
             matrix_gzip_shorter_than_magic, matrix_gzipped_twice, empty_gz_said_alike_by_every_reader, fdtd_grid_beyond_memory,
             fdtd_thread_ranks_memory_added_up, fdtd_ulimit_counts_what_is_mapped, fdtd_mpi_ranks_each_under_its_own_ulimit,
             fdtd_verify_decomp_no_row_before_failure, trace_record_count,
             inputs_that_are_folders, gzip_trace_cut_short, trace_line_endings_and_bytes,
             trace_times_near_int64_limits, run_folder_rank_set, nsys_impossible_content, run_folder_of_two_runs,
             run_without_activity, trace_gzipped_twice, diagnose_window_of_years)
