#include "solvers/schedule.h"

#include <string.h>

const tl_schedule tl_schedules[TL_SCHED_COUNT] = {
    [TL_SCHED_SYNC] = {.name = "sync",
                       .id = TL_SCHED_SYNC,
                       .overlap_halo = 0,
                       .overlap_allreduce = 0,
                       .host_chan = TL_CHAN_WORLD,
                       .halo_lane = TL_ROLE_COMPUTE,
                       .allreduce_lane = TL_ROLE_COMPUTE,
                       .split_comm = 0,
                       .summary = "no overlap: blocking halo exchange and allreduce"},
    [TL_SCHED_TWO_STREAM] = {.name = "two-stream",
                             .id = TL_SCHED_TWO_STREAM,
                             .overlap_halo = 1,
                             .overlap_allreduce = 1,
                             .host_chan = TL_CHAN_WORLD,
                             .halo_lane = TL_ROLE_P2P,
                             .allreduce_lane = TL_ROLE_COMPUTE,
                             .split_comm = 0,
                             .summary = "halo on the P2P stream, allreduce on the compute stream"},
    [TL_SCHED_THREE_NAIVE] = {.name = "three-naive",
                              .id = TL_SCHED_THREE_NAIVE,
                              .overlap_halo = 1,
                              .overlap_allreduce = 1,
                              .host_chan = TL_CHAN_WORLD,
                              .halo_lane = TL_ROLE_P2P,
                              .allreduce_lane = TL_ROLE_COLL,
                              .split_comm = 0,
                              .summary = "allreduce on a third stream, same communicator"},
    [TL_SCHED_THREE_SPLIT] = {.name = "three-split",
                              .id = TL_SCHED_THREE_SPLIT,
                              .overlap_halo = 1,
                              .overlap_allreduce = 1,
                              .host_chan = TL_CHAN_SPLIT,
                              .halo_lane = TL_ROLE_P2P,
                              .allreduce_lane = TL_ROLE_COLL,
                              .split_comm = 1,
                              .summary = "allreduce on a third stream and a split communicator"},
};

const tl_schedule *tl_schedule_find(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < TL_SCHED_COUNT; i++)
        if (strcmp(tl_schedules[i].name, name) == 0) return &tl_schedules[i];
    return NULL;
}

const char *tl_schedule_choices(void)
{
    return "sync|two-stream|three-naive|three-split";
}
