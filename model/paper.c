#include "model/paper.h"

const int tl_paper2_s[4] = {1, 2, 4, 8};

const tl_paper2_row tl_paper2[TL_PAPER2_NGRIDS] = {
    {.n = 320, .cpml_mpoints_s = 3289.58, .cpml_s = 0.638, .peer_s = {1.708, 1.556, 1.491, 1.568}, .staged_s = 4.720},
    {.n = 480, .cpml_mpoints_s = 2889.58, .cpml_s = 2.449, .peer_s = {3.669, 3.521, 3.448, 3.636}, .staged_s = 9.628},
    {.n = 544, .cpml_mpoints_s = 2900.14, .cpml_s = 3.553, .peer_s = {4.791, 4.599, 4.514, 4.727}, .staged_s = 12.223},
    {.n = 640, .cpml_mpoints_s = 2909.64, .cpml_s = 5.766, .peer_s = {6.781, 6.537, 6.397, 6.654}, .staged_s = 16.853},
    {.n = 800, .cpml_mpoints_s = 2920.36, .cpml_s = 11.221, .peer_s = {11.100, 10.738, 10.444, 10.799},
     .staged_s = 27.278},
};

const tl_paper2_t11_row tl_paper2_t11[TL_PAPER2_T11_NGRIDS] = {
    {.n = 320, .t_s = {0.897, 0.864, 1.600}},
    {.n = 544, .t_s = {4.666, 3.442, 4.482}},
    {.n = 800, .t_s = {14.614, 9.658, 10.458}},
    {.n = 1024, .t_s = {0, 19.050, 18.528}},
};

/* Abstract and Sec. V: 1.02-1.06x at 4 GPUs, 1.18-1.47x at 64 (Figs. 3-4,
 * SuiteSparse matrices, both machines), 1.06-1.52x at 256 (Fig. 5,
 * Leonardo: heart15 1.06, poisson3da_12 1.50, heart12 1.52). */
const tl_paper1_range tl_paper1_speedups[3] = {
    {.gpus = 4, .lo = 1.02, .hi = 1.06, .where = "Figs. 3-4"},
    {.gpus = 64, .lo = 1.18, .hi = 1.47, .where = "Figs. 3-4"},
    {.gpus = 256, .lo = 1.06, .hi = 1.52, .where = "Fig. 5"},
};
