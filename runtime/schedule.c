#include "runtime/schedule.h"

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
                       .summary = "no overlap: blocking halo exchange and allreduce",
                       .steps =
                           {
                               [TL_SOP_HALO_POST] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, TL_SEV_INPUT},
                               [TL_SOP_HALO_WAIT] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, TL_SEV_HALO},
                               [TL_SOP_SPMV_INTERIOR] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, 0},
                               [TL_SOP_SPMV_BORDER] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, TL_SEV_HALO},
                               [TL_SOP_DOT] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, 0},
                               [TL_SOP_ALLREDUCE] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, TL_SEV_DOTS},
                               [TL_SOP_DOT_WAIT] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, TL_SEV_REDUCED},
                               [TL_SOP_UPDATE] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, 0},
                               [TL_SOP_PRECOND] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, 0},
                           }},
    [TL_SCHED_TWO_STREAM] =
        {
            .name = "two-stream",
            .id = TL_SCHED_TWO_STREAM,
            .overlap_halo = 1,
            .overlap_allreduce = 1,
            .host_chan = TL_CHAN_WORLD,
            .halo_lane = TL_ROLE_P2P,
            .allreduce_lane = TL_ROLE_COMPUTE,
            .split_comm = 0,
            .summary = "halo on the P2P stream, allreduce on the compute stream",
            .steps =
                {
                    [TL_SOP_HALO_POST] = {TL_ROLE_P2P, TL_CHAN_WORLD, TL_SEV_INPUT},
                    [TL_SOP_HALO_WAIT] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, TL_SEV_HALO},
                    [TL_SOP_SPMV_INTERIOR] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, 0},
                    [TL_SOP_SPMV_BORDER] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, TL_SEV_HALO},
                    [TL_SOP_DOT] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, 0},
                    [TL_SOP_ALLREDUCE] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, TL_SEV_DOTS},
                    [TL_SOP_DOT_WAIT] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, TL_SEV_REDUCED},
                    [TL_SOP_UPDATE] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, 0},
                    [TL_SOP_PRECOND] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, 0},
                }},
    [TL_SCHED_THREE_NAIVE] =
        {
            .name = "three-naive",
            .id = TL_SCHED_THREE_NAIVE,
            .overlap_halo = 1,
            .overlap_allreduce = 1,
            .host_chan = TL_CHAN_WORLD,
            .halo_lane = TL_ROLE_P2P,
            .allreduce_lane = TL_ROLE_COLL,
            .split_comm = 0,
            .summary = "allreduce on a third stream, same communicator",
            .steps =
                {
                    [TL_SOP_HALO_POST] = {TL_ROLE_P2P, TL_CHAN_WORLD, TL_SEV_INPUT},
                    [TL_SOP_HALO_WAIT] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, TL_SEV_HALO},
                    [TL_SOP_SPMV_INTERIOR] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, 0},
                    [TL_SOP_SPMV_BORDER] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, TL_SEV_HALO},
                    [TL_SOP_DOT] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, 0},
                    [TL_SOP_ALLREDUCE] = {TL_ROLE_COLL, TL_CHAN_WORLD, TL_SEV_DOTS},
                    [TL_SOP_DOT_WAIT] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, TL_SEV_REDUCED},
                    [TL_SOP_UPDATE] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, 0},
                    [TL_SOP_PRECOND] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, 0},
                }},
    [TL_SCHED_THREE_SPLIT] =
        {
            .name = "three-split",
            .id = TL_SCHED_THREE_SPLIT,
            .overlap_halo = 1,
            .overlap_allreduce = 1,
            .host_chan = TL_CHAN_SPLIT,
            .halo_lane = TL_ROLE_P2P,
            .allreduce_lane = TL_ROLE_COLL,
            .split_comm = 1,
            .summary = "allreduce on a third stream and a split communicator",
            .steps =
                {
                    [TL_SOP_HALO_POST] = {TL_ROLE_P2P, TL_CHAN_WORLD, TL_SEV_INPUT},
                    [TL_SOP_HALO_WAIT] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, TL_SEV_HALO},
                    [TL_SOP_SPMV_INTERIOR] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, 0},
                    [TL_SOP_SPMV_BORDER] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, TL_SEV_HALO},
                    [TL_SOP_DOT] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, 0},
                    [TL_SOP_ALLREDUCE] = {TL_ROLE_COLL, TL_CHAN_SPLIT, TL_SEV_DOTS},
                    [TL_SOP_DOT_WAIT] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, TL_SEV_REDUCED},
                    [TL_SOP_UPDATE] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, 0},
                    [TL_SOP_PRECOND] = {TL_ROLE_COMPUTE, TL_CHAN_WORLD, 0},
                }},
};

const tl_schedule *tl_schedule_find(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < TL_SCHED_COUNT; i++)
        if (strcmp(tl_schedules[i].name, name) == 0) return &tl_schedules[i];
    return NULL;
}

const char *tl_sched_op_name(tl_sched_op op)
{
    static const char *const names[TL_SOP_COUNT] = {[TL_SOP_HALO_POST] = "halo_post",
                                                    [TL_SOP_HALO_WAIT] = "halo_wait",
                                                    [TL_SOP_SPMV_INTERIOR] = "spmv_interior",
                                                    [TL_SOP_SPMV_BORDER] = "spmv_border",
                                                    [TL_SOP_DOT] = "dot",
                                                    [TL_SOP_ALLREDUCE] = "allreduce",
                                                    [TL_SOP_DOT_WAIT] = "dot_wait",
                                                    [TL_SOP_UPDATE] = "update",
                                                    [TL_SOP_PRECOND] = "precond"};
    return op >= 0 && op < TL_SOP_COUNT ? names[op] : "unknown";
}

const char *tl_sched_event_name(int bit)
{
    static const char *const names[TL_SEV_NEVENTS] = {"input", "halo", "dots", "reduced"};
    return bit >= 0 && bit < TL_SEV_NEVENTS ? names[bit] : "unknown";
}

const char *tl_schedule_choices(void)
{
    return "sync|two-stream|three-naive|three-split";
}
