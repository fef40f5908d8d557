/* The platform file as the SimGrid engine (sim.c) loaded it, checked in
 * the child before anything runs: every rank's hosts, the values of its
 * links and hosts, and every route the job's messages take. Each refusal
 * is one line on stderr and an exit code the parent reads (3; 6 where the
 * file holds fewer GPUs than the job's ranks), and the parent names the
 * file. */
#include "model/model.h"
#include "model/sim_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#if TL_HAVE_SIMGRID

/* The node a GPU is on: its property `node`, 0 without one (a platform
 * without nodes: one host) */
int tl_sim_gpu_node(const tl_simgrid_lib *sg, sg_host_t gpu)
{
    const char *np = sg->sg_host_get_property_value(gpu, "node");
    return np ? atoi(np) : 0;
}

/* 1 when the platform has a host gpu<K>, K > i. */
static int gpu_beyond(const tl_simgrid_lib *sg, int i)
{
    sg_host_t *hosts = sg->sg_host_list();
    size_t n = sg->sg_host_count();
    int found = 0;
    for (size_t k = 0; k < n && !found; k++) {
        int r;
        char tail;
        found = sscanf(sg->sg_host_get_name(hosts[k]), "gpu%d%c", &r, &tail) == 1 && r > i;
    }
    free(hosts);
    return found;
}

sg_host_t tl_sim_host_or_die(const tl_simgrid_lib *sg, const char *fmt, int i, const char *platform)
{
    char name[32];
    snprintf(name, sizeof name, fmt, i);
    sg_host_t h = sg->sg_host_by_name(name);
    if (!h && i > 0 && !strcmp(fmt, "gpu%d") && !gpu_beyond(sg, i)) {
        /* the file's GPUs end before this rank: exit 6 tells the parent
         * the job has more ranks than the file holds, the command line's
         * fault (it reads R back from this line) */
        fprintf(stderr, "no host '%s' (the file holds %d GPUs, gpu0 to gpu%d)\n", name, i, i - 1);
        exit(6);
    }
    if (!h) {
        fprintf(stderr, "no host '%s' (rank R needs hosts gpu<R> and nccl<R>; model/README.md)\n", name);
        exit(3);
    }
    return h;
}

/* A link's name as the platform file spells it: SimGrid splits a
 * SPLITDUPLEX link X into X_UP and X_DOWN, names the file never holds
 * (a refusal named nic3_DOWN for the file's nic3). A half is known by
 * its twin; a link the file itself calls X_DOWN has none. */
static const char *link_file_name(const tl_simgrid_lib *sg, sg_link_t *links, size_t n, size_t i, char *buf,
                                  size_t len)
{
    const char *name = sg->sg_link_get_name(links[i]);
    size_t k = strlen(name);
    int up = k > 3 && !strcmp(name + k - 3, "_UP"), down = k > 5 && !strcmp(name + k - 5, "_DOWN");
    if (!up && !down) return name;
    size_t stem = k - (up ? 3 : 5);
    snprintf(buf, len, "%.*s%s", (int)stem, name, up ? "_DOWN" : "_UP");
    for (size_t t = 0; t < n; t++)
        if (t != i && !strcmp(sg->sg_link_get_name(links[t]), buf)) {
            snprintf(buf, len, "%.*s", (int)stem, name);
            return buf;
        }
    return name;
}

/* A platform value the engine would take and then simulate as nonsense:
 * SimGrid loads a zero or negative bandwidth or speed and stops mid-run
 * with "The Impossible Did Happen", after the preamble was printed, and
 * takes a negative latency or an NCCL engine faster beside compute than
 * alone (rate above 1, which calibrate and `platform --nccl-rate` refuse)
 * and predicts faster than physics. Said on stderr in one line, as a
 * missing host is: the parent names the file. */
void tl_sim_platform_values_or_die(const tl_simgrid_lib *sg)
{
    /* the counts once: each call lists every link (host) again */
    sg_link_t *links = sg->sg_link_list();
    size_t nlinks = sg->sg_link_count(), nhosts = sg->sg_host_count();
    char lname[256];
    for (size_t i = 0; i < nlinks; i++) {
        double bw = sg->sg_link_get_bandwidth(links[i]), lat = sg->sg_link_get_latency(links[i]);
        if (!(bw > 0) || !isfinite(bw) || !(lat >= 0) || !isfinite(lat)) {
            fprintf(stderr, "link '%s': bandwidth %g B/s and latency %g s, where a bandwidth must be > 0 and a "
                            "latency >= 0 (model/README.md)\n",
                    link_file_name(sg, links, nlinks, i, lname, sizeof lname), bw, lat);
            exit(3);
        }
        /* SimGrid reads a value without a unit in bytes per second and
         * seconds: bandwidth="200" predicted 10 s an iteration, no word,
         * and latency="0.5" (NVLink's 0.5 us) 5 s. A hop of a GPU cluster
         * takes microseconds; the slowest port fitted here, the FDTD
         * paper's, 1.3 ms at most (fdtd --calib-sizes, any pair) */
        if (bw < 1e6 || lat > 10e-3) {
            fprintf(stderr, "link '%s': bandwidth %g B/s and latency %g s, most likely a value without its unit "
                            "(SimGrid takes B/s and s): give one, as bandwidth=\"200GBps\" latency=\"2us\"\n",
                    link_file_name(sg, links, nlinks, i, lname, sizeof lname), bw, lat);
            exit(3);
        }
    }
    free(links);
    sg_host_t *hosts = sg->sg_host_list();
    for (size_t i = 0; i < nhosts; i++) {
        const char *name = sg->sg_host_get_name(hosts[i]);
        double s0 = sg->sg_host_get_pstate_speed(hosts[i], 0);
        for (unsigned long k = 0; k < sg->sg_host_get_nb_pstates(hosts[i]); k++) {
            double s = sg->sg_host_get_pstate_speed(hosts[i], k);
            if (!(s > 0) || !isfinite(s)) {
                fprintf(stderr, "host '%s': speed %g flop/s in power state %lu, must be > 0\n", name, s, k);
                exit(3);
            }
            /* nccl<R>'s second state is its rate beside compute: a fraction */
            if (k == 1 && strncmp(name, "nccl", 4) == 0 && s > s0) {
                fprintf(stderr, "host '%s': speed beside compute %g flop/s above its speed alone %g: NCCL's rate "
                                "beside a compute kernel must lie in (0, 1] (model/README.md)\n",
                        name, s, s0);
                exit(3);
            }
        }
        const char *np = strncmp(name, "gpu", 3) == 0 ? sg->sg_host_get_property_value(hosts[i], "node") : NULL;
        if (np && (np[strspn(np, "0123456789")] || !np[0] || strlen(np) > 9)) {
            fprintf(stderr, "host '%s': property node '%s' is not a node number (0, 1, ...)\n", name, np);
            exit(3);
        }
    }
    free(hosts);
}

/* The host a route names: gpu<R> or cpu<N>; dies, in one line, where
 * the platform has no such host (a host-staged halo needs its node's). */
static sg_host_t route_host(const sim_world *w, int cpu, int i, int n)
{
    const tl_simgrid_lib *sg = w->sg;
    if (!cpu) return w->ranks[i].gpu;
    char name[32];
    snprintf(name, sizeof name, "cpu%d", i);
    sg_host_t h = sg->sg_host_by_name(name);
    if (h) return h;
    fprintf(stderr, "no host '%s' (a host-staged halo goes through its node's host cpu<N>, at %d GPUs; "
                    "model/README.md)\n", name, n);
    exit(3);
}

/* Dies, in one line, where the platform has no route the job's message
 * takes (SimGrid's own test for a message: no link and no latency). */
static int route_or_die(const tl_mroute *rt, void *arg)
{
    const sim_world *w = arg;
    const tl_simgrid_lib *sg = w->sg;
    int n = w->job->nranks;
    sg_host_t a = route_host(w, rt->src_cpu, rt->src, n), b = route_host(w, rt->dst_cpu, rt->dst, n);
    xbt_dynar_t links = sg->xbt_dynar_new(sizeof(sg_link_t), NULL);
    sg->sg_host_get_route(a, b, links);
    int none = sg->xbt_dynar_is_empty(links) && sg->sg_host_get_route_latency(a, b) <= 0;
    sg->xbt_dynar_free(&links);
    if (!none) return 0;
    if (rt->dst_cpu)
        fprintf(stderr, "no route from %s to %s (rank %d stages %s, at %d GPUs)\n", sg->sg_host_get_name(a),
                sg->sg_host_get_name(b), rt->rank, rt->what, n);
    else if (rt->src_cpu)
        fprintf(stderr, "no route from %s to %s (rank %d sends rank %d %s %s, at %d GPUs)\n", sg->sg_host_get_name(a),
                sg->sg_host_get_name(b), rt->rank, rt->peer, rt->what, sg->sg_host_get_name(a), n);
    else
        fprintf(stderr, "no route from %s to %s (rank %d sends rank %d %s, at %d GPUs)\n", sg->sg_host_get_name(a),
                sg->sg_host_get_name(b), rt->rank, rt->peer, rt->what, n);
    exit(3);
}

/* Every route the job's messages take exists, host-staged ones too.
 * Before, a platform file without one was found out mid-run: after the
 * preamble and the rows of the smaller GPU counts, SimGrid's "no
 * connecting path", exit 1; a host-staged route was never looked up. */
void tl_sim_routes_or_die(const tl_mjob *j, sim_world *w)
{
    int *node = malloc((size_t)j->nranks * sizeof *node);
    if (!node) exit(4);
    for (int r = 0; r < j->nranks; r++) node[r] = tl_sim_gpu_node(w->sg, w->ranks[r].gpu);
    tl_mjob_each_route(j, node, route_or_die, w);
    free(node);
}

#endif
