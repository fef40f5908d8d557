/* SimGrid's library, found at run time rather than linked: the part of its
 * C interface that sim.c calls, as a table filled by dlopen/dlsym (as
 * solvers/methods/petsc_lib.h does for PETSc).
 *
 * Why: libsimgrid needs Boost's and ns-3's libraries (22 of them, Debian's
 * 3.32). Linked, every start of trilap-model loaded them, --help and
 * every refusal included: about 55 of the 72 ms of CPU a start took
 * (perf stat), and 148 of the 216 starts of test_model and
 * test_firsthour.sh simulated nothing. Now a simulation alone
 * (tl_model_simulate) loads it.
 *
 * Which library: the one the build compiled against, by the name its
 * version gives it (libsimgrid.so.MAJOR.MINOR, simgrid/version.h; found
 * where the linker found it: the system's folders, or SIMGRID_HOME/lib
 * through the program's run path), or the file TRILAP_SIMGRID_LIB names.
 * Its major and minor version must be the headers'. It is never unloaded
 * (RTLD_NODELETE): the engine lives until the child that simulates exits.
 *
 * Only with TL_HAVE_SIMGRID; includes SimGrid's headers. */
#ifndef TL_MODEL_SIMGRID_LIB_H
#define TL_MODEL_SIMGRID_LIB_H

#include "config.h"

#if TL_HAVE_SIMGRID

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>
#include <simgrid/version.h>
#include <xbt/dynar.h>

#include "runtime/dl.h"
#include "runtime/error.h"

/* Every SimGrid function sim.c calls, the version check's first (a library
 * that is no SimGrid lacks it). sg_actor_start is the headers' inline
 * wrapper of sg_actor_start_. */
#define TL_SIMGRID_SYMBOLS(X)                                                                                    \
    X(sg_version_get)                                                                                            \
    X(simgrid_init)                                                                                              \
    X(simgrid_load_platform)                                                                                     \
    X(simgrid_run)                                                                                               \
    X(simgrid_get_clock)                                                                                         \
    X(sg_actor_init)                                                                                             \
    X(sg_actor_start_)                                                                                           \
    X(sg_actor_daemonize)                                                                                        \
    X(sg_actor_execute)                                                                                          \
    X(sg_actor_exec_init)                                                                                        \
    X(sg_actor_sleep_for)                                                                                        \
    X(sg_exec_set_host)                                                                                          \
    X(sg_exec_start)                                                                                             \
    X(sg_exec_wait)                                                                                              \
    X(sg_comm_wait_all)                                                                                          \
    X(sg_mailbox_by_name)                                                                                        \
    X(sg_mailbox_get)                                                                                            \
    X(sg_mailbox_get_async)                                                                                      \
    X(sg_mailbox_put)                                                                                            \
    X(sg_mailbox_put_async)                                                                                      \
    X(sg_sem_init)                                                                                               \
    X(sg_sem_acquire)                                                                                            \
    X(sg_sem_release)                                                                                            \
    X(sg_host_by_name)                                                                                           \
    X(sg_host_count)                                                                                             \
    X(sg_host_list)                                                                                              \
    X(sg_host_get_name)                                                                                          \
    X(sg_host_get_speed)                                                                                         \
    X(sg_host_core_count)                                                                                        \
    X(sg_host_get_nb_pstates)                                                                                    \
    X(sg_host_get_pstate_speed)                                                                                  \
    X(sg_host_set_pstate)                                                                                        \
    X(sg_host_get_property_value)                                                                                \
    X(sg_host_get_route)                                                                                         \
    X(sg_host_get_route_latency)                                                                                 \
    X(sg_link_count)                                                                                             \
    X(sg_link_list)                                                                                              \
    X(sg_link_get_name)                                                                                          \
    X(sg_link_get_bandwidth)                                                                                     \
    X(sg_link_get_latency)                                                                                       \
    X(xbt_dynar_new)                                                                                             \
    X(xbt_dynar_is_empty)                                                                                        \
    X(xbt_dynar_free)

/* A member a pointer to each function, of its declared type and by its
 * name (TL_DL_MEMBER: nothing of SimGrid is linked):
 * sg->sg_host_by_name("gpu0"). */
typedef struct tl_simgrid_lib {
    void *handle;     /* dlopen's, NULL when not loaded */
    const char *path; /* the file loaded (getenv's string or the headers' name) */
    TL_SIMGRID_SYMBOLS(TL_DL_MEMBER)
} tl_simgrid_lib;

/* Loads the library (again: a loaded one is the same handle, its table
 * filled anew) and checks its version. A failure is one line naming the
 * library and the reason: dlerror's, the symbol it lacks, or its version;
 * *sl is then unloaded. */
tl_status tl_simgrid_lib_load(tl_simgrid_lib *sl);
/* Forgets the table (the library stays: RTLD_NODELETE); accepts one not
 * loaded. */
void tl_simgrid_lib_unload(tl_simgrid_lib *sl);

#endif
#endif
