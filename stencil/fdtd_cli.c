/* trilap-fdtd's command-line pieces that run (fdtd_main.c, fdtd_run_*.c)
 * and verify (fdtd_verify_main.c) share: option errors, the grid and
 * decomposition parsers, the launcher's options and the launch. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "probes/probes.h"
#include "runtime/devcomm.h"
#include "runtime/error.h"
#include "runtime/out.h"
#include "stencil/fdtd_cli.h"

int tl_fdtd_cli_bad(const char *opt, const char *val, const char *why)
{
    fprintf(stderr, PROG ": invalid %s '%s'%s%s (try --help)\n", opt, val, why ? ": " : "", why ? why : "");
    return 2;
}

/* A --strategy that is not one of the backend's. The solver's check said
 * "exchange strategy 'bogus' is not one of the cpu backend's", naming no
 * option, after the preamble or a verify run's context. 2 after one line,
 * or 0 (NULL: the default). */
int tl_fdtd_cli_bad_strategy(const char *name, int backend)
{
    if (!name || tl_fdtd_strategy_per_rank(name, (tl_fdtd_backend_kind)backend) >= 0) return 0;
    char why[160];
    snprintf(why, sizeof why, "expected a strategy of --backend %s (%s)",
             backend == TL_FDTD_BACKEND_CUDA ? "cuda" : "cpu", tl_fdtd_strategy_names());
    return tl_fdtd_cli_bad("--strategy", name, why);
}

int tl_fdtd_cli_parse_triple(const char *s, char sep, int64_t out[3], int allow_one)
{
    char *end;
    for (int d = 0; d < 3; d++) {
        errno = 0;
        long long v = strtoll(s, &end, 10);
        /* beyond 2^63 - 1 strtoll gave LLONG_MAX, which the checks after
         * named as if typed ("grid size 9223372036854775807 along x") */
        if (end == s || v < 0 || errno == ERANGE) return -1;
        out[d] = v;
        if (d < 2) {
            if (*end == '\0' && d == 0 && allow_one) {
                out[1] = out[2] = v;
                return 0;
            }
            if (*end != sep) return -1;
            s = end + 1;
        }
    }
    return *end == '\0' ? 0 : -1;
}

int tl_fdtd_cli_parse_decomp(const char *s, int pd[3])
{
    int64_t p[3];
    if (!strcmp(s, "slab-z")) s = "1x1x4";
    else if (!strcmp(s, "block-xy")) s = "2x2x1";
    else if (!strcmp(s, "pencil-yz")) s = "1x2x2";
    if (tl_fdtd_cli_parse_triple(s, 'x', p, 0) != 0) return -1;
    for (int d = 0; d < 3; d++) {
        if (p[d] < 1 || p[d] > 4096) return -1;
        pd[d] = (int)p[d];
    }
    return 0;
}

tl_status tl_fdtd_cli_check_output(const char *opt, const char *path, const char *file)
{
    char full[4096];
    /* an empty folder made "/p-000002.txt", which passed the check: the
     * run went ahead and failed at its first slice or trace write */
    if (file && !*path) return tl_out_check_as(opt, tl_out_check_folder, path);
    if (file) snprintf(full, sizeof full, "%s/%s", path, file);
    else snprintf(full, sizeof full, "%s", path);
    /* tl_out_check's line says the path and the reason; the option is what to change */
    return tl_out_check_as(opt, tl_out_check, full);
}

int tl_fdtd_cli_cpml_too_thick(const char *grid, int64_t L, int64_t fits, const char *opt, int zero_ok)
{
    char lead[32], fit[96];
    snprintf(lead, sizeof lead, "%" PRId64, L);
    /* "an 8-cell", "an 11-cell", "an 18-cell" (up to e2e0d87 "a 8-cell") */
    int an = lead[0] == '8' || !strcmp(lead, "11") || !strcmp(lead, "18");
    if (fits > 0) snprintf(fit, sizeof fit, "use %s %" PRId64 " or less, or a", opt, fits);
    else if (zero_ok) snprintf(fit, sizeof fit, "use %s 0 (none), or a", opt); /* was "--cpml 0 or less" */
    else snprintf(fit, sizeof fit, "use a"); /* was "--cells 0 or less", which verify energy refuses */
    fprintf(stderr,
            PROG ": --grid %s is too small for a%s %" PRId64 "-cell CPML on each side (it needs %" PRId64
                 " points per axis); %s grid of at least %" PRId64 "\n",
            grid, an ? "n" : "", L, 2 * L + 2, fit, 2 * L + 2);
    return 2;
}

void tl_fdtd_cli_join_options(char *buf, size_t n, const char *const names[], int count)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < count && len + 1 < n; i++) {
        const char *sep = i == 0 ? "" : i == count - 1 ? " and " : ", ";
        len += (size_t)snprintf(buf + len, n - len, "%s--%s", sep, names[i]);
    }
}

int tl_fdtd_cli_refuse_cuda_only(const tl_optresult *res, int backend, const int *kernel,
                                 const int64_t *gpus, const tl_launch_opts *lo)
{
    if (backend == TL_FDTD_BACKEND_CUDA) return 0;
    if (tl_opts_given(res, kernel))
        fprintf(stderr, PROG ": --kernel %s is a CUDA kernel; --backend cpu runs its one reference kernel "
                        "(add --backend cuda, or drop --kernel)\n", tl_fdtd_kernels[*kernel].name);
    else if (tl_opts_given(res, gpus))
        fprintf(stderr, PROG ": --gpus %" PRId64 " spreads the subdomains over GPUs; --backend cpu runs on the "
                        "host (add --backend cuda, or drop --gpus)\n", *gpus);
    else if (tl_opts_given(res, &lo->device_comm))
        fprintf(stderr, PROG ": --device-comm %s moves GPU buffers between ranks; --backend cpu ranks exchange "
                        "host messages (add --backend cuda, or drop --device-comm)\n",
                tl_devcomm_kinds[lo->device_comm].name);
    else
        return 0;
    return 2;
}

/* The launcher's options these commands take: --launcher, --ranks, --no-gpu,
 * --device-comm (its --gpus is run's own: the GPUs one process spreads
 * subdomains over). One rank unless asked: several are one subdomain each. */
void tl_fdtd_cli_launch_group(tl_option out[TL_FDTD_CLI_LAUNCH_NOPTS], const char *ranks_help)
{
    size_t n = 0;
    for (size_t i = 0; i < tl_launch_noptions && n < TL_FDTD_CLI_LAUNCH_NOPTS; i++) {
        const tl_option *t = &tl_launch_options[i];
        if (strcmp(t->name, "launcher") && strcmp(t->name, "ranks") && strcmp(t->name, "no-gpu") &&
            strcmp(t->name, "device-comm"))
            continue;
        out[n] = *t;
        if (!strcmp(t->name, "ranks")) {
            out[n].def = "1";
            out[n].min = 1;
            out[n].help = ranks_help;
        }
        n++;
    }
}

int tl_fdtd_cli_launch(tl_launch_opts *lo, tl_launch_quiet *quiet, int argc, char **argv, tl_rank_main_fn fn, void *arg, int cuda,
                       const char *trace_dir)
{
    lo->gpus = 0;
    lo->timeout_s = 300;
    if (lo->ranks < 1) lo->ranks = 1;
    if (!cuda) lo->no_gpu = 1;
    /* trilap's NVTX ranges reach an attached tool (nsys) in every run */
    tl_probes_main pm = {.fn = fn, .arg = arg, .trace = {.dir = trace_dir, .cupti = cuda}};
    tl_launch_quiet_end(quiet); /* from here each rank says what is its own */
    /* MPI started without mpirun or srun is a world of one rank, a valid
     * run (one process, as the thread launcher's default); it ran as one
     * without a word. trilap-solve and trilap-bench name it in their
     * preambles ("ranks: 1", "launcher: mpi"); this program's preamble
     * names no launcher, so the note (--ranks N above 1 is refused there,
     * runtime/launch.c). */
    if (TL_HAVE_MPI && lo->launcher == TL_LAUNCH_MPI && tl_launch_detect() != TL_LAUNCH_MPI && lo->ranks <= 1)
        fprintf(stderr, PROG ": note: --launcher mpi outside mpirun or srun: one rank (mpirun -np N " PROG
                             " ... for N ranks, or --launcher threads --ranks N)\n");
    return tl_launch_run(PROG, lo, argc, argv, tl_probes_rank_main, &pm);
}

int tl_fdtd_cli_no_cuda(const tl_ctx *ctx, int cuda)
{
    if (!cuda || (TL_HAVE_CUDA && ctx->device >= 0)) return 0;
    if (ctx->rank == 0) {
        if (!TL_HAVE_CUDA)
            fprintf(stderr, PROG ": --backend cuda is not in this build (nvcc was not found, or make CUDA=0); "
                            "use --backend cpu, or rebuild with the CUDA toolkit\n");
        else
            fprintf(stderr, PROG ": --backend cuda needs a GPU and none is visible (no device, --no-gpu, or a "
                            "driver too old for this CUDA); use --backend cpu\n");
    }
    return 1;
}
