/* The papers' own numbers that the model is calibrated on or checked
 * against, quoted from ../shared/papers (seed paper 2, arXiv 2606.06910:
 * Tables 10-13; seed paper 1: Figs. 3-5 and Sec. II's nccl-tests
 * figure). */
#ifndef TL_MODEL_PAPER_H
#define TL_MODEL_PAPER_H

#define TL_PAPER2_NGRIDS 5

typedef struct tl_paper2_row {
    int n;                 /* grid N (N^3 points) */
    double cpml_mpoints_s; /* Table 10: one RTX 6000, CPML */
    double cpml_s;         /* Table 10: its run time, s */
    double peer_s[4];      /* Table 12: 4 GPUs pencil-yz, peer, s = 1, 2, 4, 8 */
    double staged_s;       /* Table 13: 4 GPUs pencil-yz, host-staged, s = 1 */
} tl_paper2_row;

extern const tl_paper2_row tl_paper2[TL_PAPER2_NGRIDS];
extern const int tl_paper2_s[4];
/* Table 11: RTX 8000 GPUs, s = 1 halo exchange, 1, 2 (1x1x2) and 4 (1x2x2)
 * GPUs; run time in s, 0 where one GPU ran out of memory (1024^3). */
#define TL_PAPER2_T11_NGRIDS 4
typedef struct tl_paper2_t11_row {
    int n;
    double t_s[3]; /* 1, 2, 4 GPUs */
} tl_paper2_t11_row;
extern const tl_paper2_t11_row tl_paper2_t11[TL_PAPER2_T11_NGRIDS];

/* time steps of every run: Table 10's run time x rate / N^3 */
#define TL_PAPER2_STEPS 64
#define TL_PAPER2_RADIUS 4

/* Seed paper 1: three-split (three-stream) over two-stream for Pipe-PCG. */
typedef struct tl_paper1_range {
    int gpus;
    double lo, hi;
    const char *where;
} tl_paper1_range;
extern const tl_paper1_range tl_paper1_speedups[3];
/* Sec. II: nccl-tests allreduce of two doubles on 64 GPUs, us */
#define TL_PAPER1_AR64_US 45.4

#endif
