/* Overlap metric arithmetic (analysis/sweep.c) on hand-made interval sets
 * with answers worked out by hand, plus the category table and --iters. */
#include <sys/resource.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis/grow.h"
#include "tl_test.h"
#include "tl_test_run.h"

static tl_an_ival iv(int cls, int64_t s, int64_t e)
{
    tl_an_ival v;
    memset(&v, 0, sizeof v);
    v.start = s;
    v.end = e;
    v.kind = TL_KIND_KERNEL;
    v.cat = cls == TL_AN_C_COMPUTE ? TL_CAT_COMPUTE : cls == TL_AN_C_P2P ? TL_CAT_P2P : cls == TL_AN_C_COLL ? TL_CAT_COLL : TL_CAT_MEMCPY;
    if (cls == TL_AN_C_OTHER) v.kind = TL_KIND_MEMCPY;
    return v;
}

static tl_an_metrics run(tl_an_ival *v, size_t n, int64_t w0, int64_t w1)
{
    tl_an_metrics m;
    tl_an_ival_sort(v, n);
    TL_ASSERT_OK(tl_an_sweep(v, n, w0, w1, NULL, 0, 0, &m, NULL));
    return m;
}

enum { C = TL_AN_C_COMPUTE, P = TL_AN_C_P2P, K = TL_AN_C_COLL, O = TL_AN_C_OTHER };

TL_TEST(disjoint)
{
    tl_an_ival v[] = {iv(C, 0, 10), iv(P, 20, 30), iv(K, 40, 45)};
    tl_an_metrics m = run(v, 3, 0, 100);
    TL_ASSERT_EQ(m.w, 100);
    TL_ASSERT_EQ(tl_an_m_union(&m, C), 10);
    TL_ASSERT_EQ(tl_an_m_union(&m, P | K), 15);
    TL_ASSERT_EQ(tl_an_m_idle(&m), 75);
    TL_ASSERT_NEAR(tl_an_m_hidden(&m), 0, 0);
    TL_ASSERT_NEAR(tl_an_m_ccover(&m), 0, 0);
    TL_ASSERT_NEAR(tl_an_m_triple(&m), 0, 0);
    TL_ASSERT_EQ(tl_an_m_derived(&m), 90);
}

TL_TEST(nested)
{
    /* p2p [10,20] and coll [12,18] inside compute [0,50] */
    tl_an_ival v[] = {iv(P, 10, 20), iv(C, 0, 50), iv(K, 12, 18)};
    tl_an_metrics m = run(v, 3, 0, 50);
    TL_ASSERT_EQ(tl_an_m_union(&m, P | K), 10);
    TL_ASSERT_NEAR(tl_an_m_hidden(&m), 1.0, 1e-12);
    TL_ASSERT_NEAR(tl_an_m_ccover(&m), 1.0, 1e-12); /* 6 / min(10, 6) */
    TL_ASSERT_NEAR(tl_an_m_triple(&m), 6.0 / 50, 1e-12);
    TL_ASSERT_EQ(tl_an_m_idle(&m), 0);
}

TL_TEST(partial)
{
    /* compute [0,40] [30,60] (overlapping compute kernels), p2p [50,80], coll [70,90] */
    tl_an_ival v[] = {iv(C, 0, 40), iv(C, 30, 60), iv(P, 50, 80), iv(K, 70, 90)};
    tl_an_metrics m = run(v, 4, 0, 100);
    TL_ASSERT_EQ(tl_an_m_union(&m, C), 60);
    TL_ASSERT_EQ(m.sum_compute, 70);
    TL_ASSERT_EQ(tl_an_m_union(&m, P | K), 40);
    TL_ASSERT_NEAR(tl_an_m_hidden(&m), 10.0 / 40, 1e-12);
    TL_ASSERT_NEAR(tl_an_m_ccover(&m), 10.0 / 20, 1e-12);
    TL_ASSERT_EQ(tl_an_m_idle(&m), 10);
    TL_ASSERT_EQ(tl_an_m_derived(&m), 30);
    /* the reconciliation identity: derived = comm + idle + other - hidden - concurrency */
    int64_t hid = 10, conc = m.sum_compute - tl_an_m_union(&m, C);
    TL_ASSERT_EQ(tl_an_m_derived(&m), tl_an_m_union(&m, P | K) + tl_an_m_idle(&m) + m.by_mask[O] - hid - conc);
}

TL_TEST(serialised)
{
    /* what NCCL does with one communicator: coll then p2p, never together */
    tl_an_ival v[] = {iv(K, 0, 12), iv(P, 12, 26), iv(C, 1, 51), iv(K, 60, 72), iv(P, 72, 86), iv(C, 61, 111)};
    tl_an_metrics m = run(v, 6, 0, 120);
    TL_ASSERT_NEAR(tl_an_m_ccover(&m), 0, 0);
    TL_ASSERT_NEAR(tl_an_m_triple(&m), 0, 0);
    TL_ASSERT_NEAR(tl_an_m_hidden(&m), 50.0 / 52, 1e-12);
}

TL_TEST(window_clip_and_other)
{
    /* intervals outside or across the window are clipped; memcpy counts as GPU activity */
    tl_an_ival v[] = {iv(C, -50, 10), iv(O, 20, 30), iv(P, 90, 150), iv(C, 200, 300)};
    tl_an_metrics m = run(v, 4, 0, 100);
    TL_ASSERT_EQ(m.w, 100);
    TL_ASSERT_EQ(tl_an_m_union(&m, C), 10);
    TL_ASSERT_EQ(m.sum_compute, 10);
    TL_ASSERT_EQ(tl_an_m_union(&m, P), 10);
    TL_ASSERT_EQ(m.by_mask[O], 10);
    TL_ASSERT_EQ(tl_an_m_idle(&m), 70);
    TL_ASSERT_EQ(m.ncompute, 0); /* the first compute kernel started before the window */
    TL_ASSERT_EQ(m.np2p, 1);
}

TL_TEST(slices_partition_window)
{
    tl_an_ival v[] = {iv(C, 0, 30), iv(P, 25, 45), iv(K, 40, 60), iv(C, 50, 80), iv(P, 95, 100)};
    int64_t b[] = {0, 50};
    tl_an_metrics whole, s[2], sum;
    memset(&sum, 0, sizeof sum);
    tl_an_ival_sort(v, 5);
    TL_ASSERT_OK(tl_an_sweep(v, 5, 0, 100, b, 2, 5, &whole, s));
    TL_ASSERT_EQ(s[0].w, 50);
    TL_ASSERT_EQ(s[1].w, 50);
    TL_ASSERT_EQ(tl_an_m_union(&s[0], C), 30);
    TL_ASSERT_EQ(tl_an_m_union(&s[1], K), 10);
    TL_ASSERT_EQ(tl_an_m_inter(&s[0], P | K), 5);
    tl_an_m_add(&sum, &s[0]);
    tl_an_m_add(&sum, &s[1]);
    for (int k = 0; k < TL_AN_NMASK; k++) TL_ASSERT_EQ(sum.by_mask[k], whole.by_mask[k]);
    TL_ASSERT_EQ(sum.sum_compute, whole.sum_compute);
    /* idle: [30,... no: 80..95 (15, longer than 5: not a launch gap) */
    TL_ASSERT_EQ(tl_an_m_idle(&whole), 15);
    TL_ASSERT_EQ(whole.launch_gaps, 0);
}

TL_TEST(launch_gaps)
{
    tl_an_ival v[] = {iv(C, 0, 10), iv(C, 13, 20), iv(C, 40, 50)};
    tl_an_metrics m;
    tl_an_ival_sort(v, 3);
    TL_ASSERT_OK(tl_an_sweep(v, 3, 0, 50, NULL, 0, 5, &m, NULL));
    TL_ASSERT_EQ(tl_an_m_idle(&m), 23);
    TL_ASSERT_EQ(m.launch_gaps, 3);
}

TL_TEST(empty_and_bad_window)
{
    tl_an_metrics m;
    TL_ASSERT_OK(tl_an_sweep(NULL, 0, 0, 10, NULL, 0, 0, &m, NULL));
    TL_ASSERT_EQ(tl_an_m_idle(&m), 10);
    TL_ASSERT(isnan(tl_an_m_hidden(&m)));
    TL_ASSERT(tl_an_sweep(NULL, 0, 10, 0, NULL, 0, 0, &m, NULL) == TL_ERR_INVAL);
}

TL_TEST(union_segments)
{
    tl_an_ival v[] = {iv(C, 0, 10), iv(C, 5, 15), iv(P, 16, 17), iv(C, 20, 30)};
    int64_t *seg = NULL;
    size_t n = 0;
    tl_an_ival_sort(v, 4);
    TL_ASSERT_OK(tl_an_union_segments(v, 4, C, &seg, &n));
    TL_ASSERT_EQ(n, 2);
    TL_ASSERT_EQ(seg[1], 15);
    TL_ASSERT_EQ(tl_an_overlap_with(seg, n, 12, 25), 3 + 5);
    free(seg);
}

TL_TEST(categories)
{
    TL_ASSERT_EQ(tl_an_group_of(TL_KIND_KERNEL, TL_CAT_COMPUTE, "_ZN8cusparse15csrmv_v3_kernelIidEEviPKi"), TL_AN_G_SPARSE);
    TL_ASSERT_EQ(tl_an_group_of(TL_KIND_KERNEL, TL_CAT_COMPUTE, "tl_halo_pack_kernel"), TL_AN_G_PACK);
    TL_ASSERT_EQ(tl_an_group_of(TL_KIND_KERNEL, TL_CAT_COMPUTE, "tl_jacobi_apply"), TL_AN_G_PRECOND);
    TL_ASSERT_EQ(tl_an_group_of(TL_KIND_KERNEL, TL_CAT_COMPUTE, "tl_pcg_fused_update"), TL_AN_G_FUSED);
    TL_ASSERT_EQ(tl_an_group_of(TL_KIND_KERNEL, TL_CAT_COMPUTE, "tl_dot_kernel"), TL_AN_G_DOT);
    TL_ASSERT_EQ(tl_an_group_of(TL_KIND_KERNEL, TL_CAT_COMPUTE, "_Z15tl_daxpy_kernelIdEvl"), TL_AN_G_AXPY);
    TL_ASSERT_EQ(tl_an_group_of(TL_KIND_KERNEL, TL_CAT_COMPUTE, "_Z21tl_bench_daxpy_kernelldPKdPd"), TL_AN_G_AXPY);
    TL_ASSERT_EQ(tl_an_group_of(TL_KIND_KERNEL, TL_CAT_COLL, "ncclDevKernel_AllReduce_Sum_f64_RING_LL"), TL_AN_G_ALLREDUCE);
    TL_ASSERT_EQ(tl_an_group_of(TL_KIND_KERNEL, TL_CAT_COLL, "ncclKernel_AllGather_RING"), TL_AN_G_COLL);
    TL_ASSERT_EQ(tl_an_group_of(TL_KIND_KERNEL, TL_CAT_P2P, "ncclDevKernel_SendRecv"), TL_AN_G_P2P);
    TL_ASSERT_EQ(tl_an_group_of(TL_KIND_MEMCPY, TL_CAT_MEMCPY, "memcpy HtoD"), TL_AN_G_MEMCPY);
    TL_ASSERT_EQ(tl_an_group_of(TL_KIND_MEMSET, TL_CAT_MEMSET, "memset"), TL_AN_G_MEMSET);
    TL_ASSERT_EQ(tl_an_group_of(TL_KIND_KERNEL, TL_CAT_COMPUTE, "mystery"), TL_AN_G_COMPUTE);
    /* the kernels of the PyTorch and CuPy programs on the H200 (results/foreign-h200) */
    static const struct {
        const char *name;
        tl_an_group g;
    } real[] = {
        {"_ZN7cutlass7Kernel2I43cutlass_80_simt_sgemm_256x128_8x4_nn_align1EEvNT_6ParamsE", TL_AN_G_GEMM},
        {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", TL_AN_G_GEMM},
        {"sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1", TL_AN_G_GEMM},
        {"ampere_sgemm_128x64_nn", TL_AN_G_GEMM},
        {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_21CUDAFunctorOnSelf_addIfEESt5arrayIPcLm2EEEEviT0_T1_",
         TL_AN_G_ELEMENTWISE},
        /* the random-number kernel: "normal" inside its mangled name is no norm reduction */
        {"_ZN2at6native54_GLOBAL__N__d8ceb000_21_DistributionNormal_cu_0c5b6e8543distribution_elementwise_grid_"
         "stride_kernelIfLi4EZNS0_9templates4cuda20normal_and_transformIffPNS_17CUDAGeneratorImplEZZZNS4_13normal_"
         "kernelIS7_EEvRKNS_10TensorBaseEddT_ENKUlvE_clEvENKUlvE0_clEvEUlfE_EEvRNS_18TensorIteratorBaseET1_T2_"
         "EUlP24curandStatePhilox4_32_10E0_ZNS1_27distribution_nullary_kernelIff6float4S7_SM_SF_EEvSH_SJ_RKT3_T4_"
         "EUlifE_EEvlNS_15PhiloxCudaStateESI_SJ_",
         TL_AN_G_ELEMENTWISE},
        {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIfZNS0_11sum_functorIfffEclERNS_"
         "14TensorIteratorEEUlffE_EEjfLi4ELi4EEEEEvT1_",
         TL_AN_G_REDUCTION},
        {"_ZN43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6320softmax_warp_forwardIfffLi10ELb0ELb0EEEvPT0_PKT_iiiPKbib",
         TL_AN_G_REDUCTION},
        {"_ZN3cub43CUB_300102_SM_750_800_860_890_900_1000_12006detail6reduce18DeviceReduceKernelINS2_10policy_hubIfjN4"
         "cuda3std3__44plusIvEEE10Policy1000EPfjS9_fNS7_8identityEEEvT0_PT3_T1_NS0_13GridEvenShareISH_EET2_T4_",
         TL_AN_G_REDUCTION},
        {"_Z13gen_sequencedI17curandStateXORWOWfiXadL_Z21curand_uniform_noargsIS0_EfPT_iEE10rng_configIS0_L14curandOrd"
         "ering101EEEvS3_PT0_mmT1_",
         TL_AN_G_COMPUTE},
        {"scale_add", TL_AN_G_COMPUTE},
        {"__nv_static_32__b4148644_10_onerank_cu_fdf47990__ZN43_GLOBAL__N__b4148644_10_onerank_cu_fdf4799013oneRank"
         "ReduceI13FuncPreMulSumIfEEEvPvS3_mmb",
         TL_AN_G_COMPUTE},
        {"_ZN5cudnn3cnn5infer21conv2d_grouped_directILi4EEEvv", TL_AN_G_DNN},
        {"_ZN7cutlass6KernelINS_4conv6kernel22ImplicitConvolutionFwdEEEvv", TL_AN_G_CUTLASS},
    };
    for (size_t k = 0; k < sizeof real / sizeof real[0]; k++)
        TL_ASSERT_MSG(tl_an_group_of(TL_KIND_KERNEL, TL_CAT_COMPUTE, real[k].name) == real[k].g, "%s: %s, want %s",
                      real[k].name, tl_an_group_name(tl_an_group_of(TL_KIND_KERNEL, TL_CAT_COMPUTE, real[k].name)),
                      tl_an_group_name(real[k].g));
    /* an interned name gives the same group without demangling again */
    tl_an_names *n = NULL;
    uint32_t id;
    TL_ASSERT_OK(tl_an_names_create(&n));
    TL_ASSERT_OK(tl_an_names_intern(n, real[0].name, &id));
    TL_ASSERT_EQ(tl_an_names_group(n, id, TL_KIND_KERNEL, TL_CAT_COMPUTE), TL_AN_G_GEMM);
    TL_ASSERT_EQ(tl_an_names_group(n, id, TL_KIND_MEMCPY, TL_CAT_MEMCPY), TL_AN_G_MEMCPY);
    tl_an_names_destroy(&n);
}

/* Short names equal Nsight Systems' shortName for every kernel of the four
 * H200 exports (results/foreign-h200; the pairs are the exports' StringIds). */
TL_TEST(demangle_short_names)
{
    static const char *const pairs[][2] = {
        {"_ZN2at6native29vectorized_elementwise_kernelILi8EZNS0_25bfloat16_copy_kernel_cudaERNS_18TensorIteratorBaseEE"
         "UlfE_St5arrayIPcLm2EEEEviT0_T1_",
         "vectorized_elementwise_kernel"},
        {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
         "vectorized_elementwise_kernel"},
        {"_ZN7cutlass7Kernel2I43cutlass_80_simt_sgemm_256x128_8x4_nn_align1EEvNT_6ParamsE", "Kernel2"},
        {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"},
        {"_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_49_GLOBAL__N__d2ba64fb_16_TensorCompare_cu_71e06f4e"
         "19launch_clamp_scalarERNS_18TensorIteratorBaseEN3c106ScalarES6_NS0_6detail11ClampLimitsEENKUlvE_clEvENKUlvE5"
         "_clEvEUlfE_St5arrayIPcLm2EEEEviT0_T1_",
         "vectorized_elementwise_kernel"},
        {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIfZNS0_11sum_functorIfffEclERNS_"
         "14TensorIteratorEEUlffE_EEjfLi4ELi4EEEEEvT1_",
         "reduce_kernel"},
        {"_ZN43_GLOBAL__N__b6de9c8c_10_SoftMax_cu_9f978f6320softmax_warp_forwardIfffLi10ELb0ELb0EEEvPT0_PKT_iiiPKbib",
         "softmax_warp_forward"},
        {"__nv_static_32__b4148644_10_onerank_cu_fdf47990__ZN43_GLOBAL__N__b4148644_10_onerank_cu_fdf4799013oneRank"
         "ReduceI13FuncPreMulSumIfEEEvPvS3_mmb",
         "oneRankReduce"},
        {"_Z20generate_seed_pseudoI10rng_configI17curandStateXORWOWL14curandOrdering101EEEvyyyS2_PS1_Pj",
         "generate_seed_pseudo"},
        {"_Z13gen_sequencedI17curandStateXORWOWfiXadL_Z21curand_uniform_noargsIS0_EfPT_iEE10rng_configIS0_L14curandOrd"
         "ering101EEEvS3_PT0_mmT1_",
         "gen_sequenced"},
        {"cupy_random_x_mod_1", "cupy_random_x_mod_1"},
        {"_ZN3cub43CUB_300102_SM_750_800_860_890_900_1000_12006detail6reduce28DeviceReduceSingleTileKernelINS2_10policy_"
         "hubIfjN4cuda3std3__44plusIvEEE10Policy1000EPfSC_iS9_ffNS7_8identityEEEvT0_T1_T2_T3_T4_T6_",
         "DeviceReduceSingleTileKernel"},
        {"_Z20tl_bench_fill_kernelPdl15tl_bench_expect", "tl_bench_fill_kernel"},
        {"_Z22ncclDevKernel_SendRecv24ncclDevKernelArgsStorageILm4096EE", "ncclDevKernel_SendRecv"},
        {"_Z19helper_scale_kernelPddm", "helper_scale_kernel"},
        {"_ZNK3foo3barclEv", "operator()"},
    };
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        char *full = NULL, sh[1024];
        TL_ASSERT_OK(tl_an_demangle(pairs[k][0], &full));
        tl_an_short_name(full, sh, sizeof sh);
        TL_ASSERT_MSG(!strcmp(sh, pairs[k][1]), "%s\n  demangled %s\n  short '%s', want '%s'", pairs[k][0], full, sh,
                      pairs[k][1]);
        free(full);
    }
    char *full = NULL;
    TL_ASSERT_OK(tl_an_demangle("_Z22ncclDevKernel_SendRecv24ncclDevKernelArgsStorageILm4096EE", &full));
    TL_ASSERT_STREQ(full, "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)");
    free(full);
    TL_ASSERT_OK(tl_an_demangle("_Zbroken", &full)); /* not demanglable: as it is */
    TL_ASSERT_STREQ(full, "_Zbroken");
    free(full);
}

/* The table as tl_an_table_print prints it (free it) */
static char *printed(const tl_an_table *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    TL_ASSERT(f);
    tl_an_table_print(t, f);
    TL_ASSERT(fclose(f) == 0);
    return buf;
}

/* text columns are cut at 60 characters when printed, and the table says so;
 * CSV-only columns are not printed; the CSV keeps everything */
TL_TEST(table_caps_text_columns)
{
    tl_an_table *t = NULL;
    TL_ASSERT_OK(tl_an_table_create(&t, "caps"));
    TL_ASSERT_OK(tl_an_table_col(t, "name", "", 1));
    TL_ASSERT_OK(tl_an_table_col(t, "n", "", 0));
    TL_ASSERT_OK(tl_an_table_col(t, "full_name", "", 2));
    char longname[200];
    memset(longname, 'x', 150);
    longname[150] = '\0';
    TL_ASSERT_OK(tl_an_table_row(t));
    TL_ASSERT_OK(tl_an_table_str(t, longname));
    TL_ASSERT_OK(tl_an_table_int(t, 7));
    TL_ASSERT_OK(tl_an_table_str(t, "only-in-csv"));
    TL_ASSERT_OK(tl_an_table_row(t));
    TL_ASSERT_OK(tl_an_table_str(t, "short"));
    TL_ASSERT_OK(tl_an_table_int(t, 8));
    TL_ASSERT_OK(tl_an_table_str(t, "also-csv"));
    char *buf = printed(t);
    char want[100];
    memset(want, 'x', 57);
    memcpy(want + 57, "... ", 5);
    TL_ASSERT_MSG(strstr(buf, want), "%s", buf);
    TL_ASSERT_MSG(!strstr(buf, longname), "%s", buf);
    TL_ASSERT_MSG(strstr(buf, "# column name: 1 cell cut to 60 characters"), "%s", buf);
    TL_ASSERT_MSG(!strstr(buf, "only-in-csv") && !strstr(buf, "full_name"), "%s", buf);
    free(buf);
    const char *csv = tl_test_path("caps.csv");
    TL_ASSERT_OK(tl_an_table_write_csv(t, csv));
    FILE *f = fopen(csv, "r");
    char line[512];
    TL_ASSERT(fgets(line, sizeof line, f));
    TL_ASSERT_STREQ(line, "name,n,full_name\n");
    TL_ASSERT(fgets(line, sizeof line, f));
    TL_ASSERT(strstr(line, longname) && strstr(line, ",7,only-in-csv"));
    fclose(f);
    tl_an_table_destroy(&t);
}

/* UTF-8 names are measured and cut in characters: the columns after a
 * name with 'é' stay in line, and a long one is cut between characters
 * (before: widths in bytes, and a cut that split a two-byte character) */
TL_TEST(table_text_in_characters)
{
    tl_an_table *t = NULL;
    TL_ASSERT_OK(tl_an_table_create(&t, "utf8"));
    TL_ASSERT_OK(tl_an_table_col(t, "name", "", 1));
    TL_ASSERT_OK(tl_an_table_col(t, "n", "", 0));
    char longname[200] = "";
    for (int k = 0; k < 40; k++) strcat(longname, "\xc3\xa9"); /* 40 x 'é': 80 bytes */
    const char *names[] = {"caf\xc3\xa9", "cafe", longname};
    for (int r = 0; r < 3; r++) {
        TL_ASSERT_OK(tl_an_table_row(t));
        TL_ASSERT_OK(tl_an_table_str(t, names[r]));
        TL_ASSERT_OK(tl_an_table_int(t, r));
    }
    char *buf = printed(t);
    /* 40 characters: no cut, and the name column 40 wide */
    TL_ASSERT_MSG(!strstr(buf, "cut to"), "%s", buf);
    char want[300];
    snprintf(want, sizeof want, "\n  caf\xc3\xa9%*s 0\n  cafe%*s 1\n  %s 2\n", 36, "", 36, "", longname);
    TL_ASSERT_MSG(strstr(buf, want), "%s", buf);
    free(buf);
    for (int k = 0; k < 40; k++) strcat(longname, "\xc3\xa9"); /* 80 characters: cut to 57 and "..." */
    TL_ASSERT_OK(tl_an_table_row(t));
    TL_ASSERT_OK(tl_an_table_str(t, longname));
    TL_ASSERT_OK(tl_an_table_int(t, 3));
    buf = printed(t);
    snprintf(want, sizeof want, "\n  %.*s... 3\n", 2 * 57, longname);
    TL_ASSERT_MSG(strstr(buf, want), "%s", buf);
    free(buf);
    tl_an_table_destroy(&t);
}

/* A missing number prints "-" and is an empty field in the CSV (as the
 * results files leave one: gnuplot and pandas read it as missing; it was
 * NaN), where a text cell
 * "-" (no unit) stays "-"; a name with a newline stays on its row, one
 * field in quotes, when printed, and in the CSV (tl_results_field: the
 * newline a blank, so that a row stays one line for line readers). */
TL_TEST(table_missing_numbers_and_control_characters)
{
    tl_an_table *t = NULL;
    TL_ASSERT_OK(tl_an_table_create(&t, "gaps"));
    TL_ASSERT_OK(tl_an_table_col(t, "name", "", 1));
    TL_ASSERT_OK(tl_an_table_col(t, "unit", "", 1));
    TL_ASSERT_OK(tl_an_table_col(t, "v", "", 0));
    TL_ASSERT_OK(tl_an_table_row(t));
    TL_ASSERT_OK(tl_an_table_str(t, "k\nernel"));
    TL_ASSERT_OK(tl_an_table_str(t, "-"));
    TL_ASSERT_OK(tl_an_table_num(t, NAN, 2));
    char *buf = printed(t);
    TL_ASSERT_MSG(strstr(buf, "\n  \"k ernel\" -    -\n") && !tl_test_says_nan(buf), "%s", buf);
    free(buf);
    const char *csv = tl_test_path("gaps.csv");
    TL_ASSERT_OK(tl_an_table_write_csv(t, csv));
    char *text = tl_test_read(csv);
    TL_ASSERT_STREQ(text, "name,unit,v\n\"k ernel\",-,\n");
    free(text);
    tl_an_table_destroy(&t);
}

/* A quoted name cut at 60 characters keeps its quotes paired: the "..."
 * inside them, a doubled quote written whole or not at all, the cell 60
 * wide, the next column in line. */
TL_TEST(table_quoted_cut_stays_paired)
{
    tl_an_table *t = NULL;
    TL_ASSERT_OK(tl_an_table_create(&t, "cut"));
    TL_ASSERT_OK(tl_an_table_col(t, "name", "", 1));
    TL_ASSERT_OK(tl_an_table_col(t, "n", "", 0));
    char name[200];
    memset(name, 'x', 54);
    memcpy(name + 54, " \"q\" tail and more text beyond the cut", 39); /* the quote of "q" at the cut */
    TL_ASSERT_OK(tl_an_table_row(t));
    TL_ASSERT_OK(tl_an_table_str(t, name));
    TL_ASSERT_OK(tl_an_table_int(t, 7));
    char *buf = printed(t);
    /* '"', 54 x's, the blank, "..." and '"': 60; the doubled quote after
     * the blank (2 more) would not fit */
    char want[100];
    snprintf(want, sizeof want, "\n  \"%.54s ...\" 7\n", name);
    TL_ASSERT_MSG(strstr(buf, want), "%s", buf);
    TL_ASSERT_MSG(strstr(buf, "# column name: 1 cell cut to 60 characters"), "%s", buf);
    free(buf);
    tl_an_table_destroy(&t);
}

TL_TEST(names_intern)
{
    tl_an_names *n = NULL;
    TL_ASSERT_OK(tl_an_names_create(&n));
    uint32_t a, b, c;
    char buf[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(buf, sizeof buf, "k%d", i);
        TL_ASSERT_OK(tl_an_names_intern(n, buf, &a));
        TL_ASSERT_EQ(a, i);
    }
    TL_ASSERT_OK(tl_an_names_intern(n, "k7", &b));
    TL_ASSERT_OK(tl_an_names_intern(n, "k999", &c));
    TL_ASSERT_EQ(b, 7);
    TL_ASSERT_EQ(c, 999);
    TL_ASSERT_STREQ(tl_an_names_get(n, 7), "k7");
    tl_an_names_destroy(&n);
    TL_ASSERT(n == NULL);
}

/* A name a tracer wrote demangled is shortened where it is a call, even with
 * parentheses inside its template arguments (before, cub's scan kernel from
 * Kineto stayed whole in timeline's name column: its first '(' follows ", ");
 * "Memcpy HtoD (Pinned -> Device)" is no call and stays whole. */
TL_TEST(names_short_demangled_calls)
{
    static const char *const pairs[][2] = {
        {"void cub::DeviceScanKernel<cub::AgentScanPolicy<128, 15, int, (cub::BlockLoadAlgorithm)3, "
         "(cub::CacheLoadModifier)0>, int*, int*, cub::ScanTileState<int, true>, cub::Sum, cub::NullType, "
         "int>(int*, int*, cub::ScanTileState<int, true>, int, cub::Sum, cub::NullType, int)",
         "DeviceScanKernel"},
        {"void at::native::vectorized_elementwise_kernel<4, float>(int, float)", "vectorized_elementwise_kernel"},
        {"Memcpy HtoD (Pinned -> Device)", "Memcpy HtoD (Pinned -> Device)"},
        {"memcpy DtoD", "memcpy DtoD"},
    };
    tl_an_names *n = NULL;
    TL_ASSERT_OK(tl_an_names_create(&n));
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        uint32_t id;
        TL_ASSERT_OK(tl_an_names_intern(n, pairs[k][0], &id));
        TL_ASSERT_MSG(!strcmp(tl_an_names_short(n, id), pairs[k][1]), "%s: short '%s'", pairs[k][0],
                      tl_an_names_short(n, id));
    }
    tl_an_names_destroy(&n);
}

/* A blank outside brackets ends a return type only before a function
 * template's name (the only demangled names that print one): elsewhere it
 * is the name's own. Before, the short name began after the last such
 * blank: "ncclDevKernel_SendRecv x, y" was "y" (so, in collectives, the
 * operation "(kernel y)", one with "ncclDevKernel_AllGather a, y"), and
 * "my kernel(int)" and "your kernel(int)" were both "kernel". Blanks
 * inside template arguments never cut. */
TL_TEST(short_names_with_blanks)
{
    static const char *const pairs[][2] = {
        {"ncclDevKernel_SendRecv x, y", "ncclDevKernel_SendRecv x, y"},
        {"my kernel(int)", "my kernel"},
        {"your kernel(int)", "your kernel"},
        {"operator new(unsigned long)", "operator new"},
        {"unsigned int ns::f<unsigned long long, (cub::X)3>(int, unsigned int)", "f"},
        {"void k<a b>(int)", "k"},
        {"foo::bar::operator()() const", "operator()"},
        {"at::native::(anonymous namespace)::k(float)", "k"},
    };
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        char sh[256];
        tl_an_short_name(pairs[k][0], sh, sizeof sh);
        TL_ASSERT_MSG(!strcmp(sh, pairs[k][1]), "%s: short '%s', want '%s'", pairs[k][0], sh, pairs[k][1]);
    }
}

/* Which copies no host stages: by the direction their name states. */
TL_TEST(copy_direction)
{
    TL_ASSERT(tl_an_copy_is_device("memcpy DtoD"));
    TL_ASSERT(tl_an_copy_is_device("memcpy PtoP"));
    TL_ASSERT(tl_an_copy_is_device("Memcpy DtoD (Device -> Device)"));
    TL_ASSERT(!tl_an_copy_is_device("memcpy HtoD"));
    TL_ASSERT(!tl_an_copy_is_device("memcpy DtoH"));
    TL_ASSERT(!tl_an_copy_is_device("Memcpy HtoD (Pinned -> Device)"));
    TL_ASSERT(!tl_an_copy_is_device("memcpy"));
    TL_ASSERT(!tl_an_copy_is_device("memcpy_to_device"));
}

TL_TEST(parse_iters)
{
    int64_t lo, hi;
    TL_ASSERT_OK(tl_an_parse_iters("3:7", &lo, &hi));
    TL_ASSERT_EQ(lo, 3);
    TL_ASSERT_EQ(hi, 7);
    TL_ASSERT_OK(tl_an_parse_iters("5:", &lo, &hi));
    TL_ASSERT_EQ(hi, -1);
    TL_ASSERT_OK(tl_an_parse_iters(":4", &lo, &hi));
    TL_ASSERT_EQ(lo, 0);
    TL_ASSERT_EQ(hi, 4);
    TL_ASSERT_OK(tl_an_parse_iters("9", &lo, &hi));
    TL_ASSERT_EQ(lo, 9);
    TL_ASSERT_EQ(hi, 9);
    TL_ASSERT(tl_an_parse_iters("7:3", &lo, &hi) != TL_OK);
    TL_ASSERT(tl_an_parse_iters("x", &lo, &hi) != TL_OK);
    TL_ASSERT(tl_an_parse_iters("1:2x", &lo, &hi) != TL_OK);
}

/* A column named with a blank (sweep --x names one) is one field in the
 * header as in the rows: quoted, and the columns stay aligned. */
TL_TEST(table_header_names_one_field)
{
    tl_an_table *t = NULL;
    TL_ASSERT_OK(tl_an_table_create(&t, "hdr"));
    TL_ASSERT_OK(tl_an_table_col(t, "ring bytes", "", 0));
    TL_ASSERT_OK(tl_an_table_col(t, "variant", "", 1));
    TL_ASSERT_OK(tl_an_table_col(t, "median", "us", 0));
    TL_ASSERT_OK(tl_an_table_row(t));
    TL_ASSERT_OK(tl_an_table_int(t, 1024));
    TL_ASSERT_OK(tl_an_table_str(t, "three-split"));
    TL_ASSERT_OK(tl_an_table_num(t, 55.0, 1));
    char *buf = printed(t);
    TL_ASSERT_MSG(strstr(buf, "\n# \"ring bytes\" variant     median\n#            - -               us\n"
                              "          1024 three-split   55.0\n"),
                  "%s", buf);
    free(buf);
    tl_an_table_destroy(&t);
}

/* Rows added one at a time: the array grows past several capacities,
 * half again each time (a few reallocs for a thousand rows, not one per
 * row), and every row written stays. */
TL_TEST(grow_keeps_rows)
{
    int64_t *a = NULL;
    size_t cap = 0, grown = 0;
    for (size_t n = 0; n < 1000; n++) {
        size_t before = cap;
        TL_ASSERT_OK(TL_AN_GROW(a, n, cap, "test rows"));
        TL_ASSERT_MSG(n < cap, "row %zu, capacity %zu", n, cap);
        if (cap != before) {
            TL_ASSERT_EQ(cap, before ? before + before / 2 : 16);
            grown++;
        }
        a[n] = (int64_t)n * 7 - 3;
    }
    TL_ASSERT_MSG(grown >= 4 && grown <= 12, "%zu growths for 1000 rows", grown);
    for (size_t n = 0; n < 1000; n++) TL_ASSERT_EQ(a[n], (int64_t)n * 7 - 3);
    free(a);
    /* rows of several elements (a segment's two ends), and a row far
     * beyond the capacity: room for it at once */
    int64_t *seg = NULL;
    cap = 0;
    for (size_t m = 0; m < 100; m++) {
        TL_ASSERT_OK(tl_an_grow(&seg, &cap, m, 2 * sizeof *seg, "segments"));
        seg[2 * m] = (int64_t)m;
        seg[2 * m + 1] = -(int64_t)m;
    }
    for (size_t m = 0; m < 100; m++) TL_ASSERT(seg[2 * m] == (int64_t)m && seg[2 * m + 1] == -(int64_t)m);
    TL_ASSERT_OK(tl_an_grow(&seg, &cap, 5000, 2 * sizeof *seg, "segments"));
    TL_ASSERT(cap > 5000 && seg[198] == 99 && seg[199] == -99);
    free(seg);
}

/* Room made for rows *cap..n of `size` bytes each, row by row as they
 * come, with stderr captured into err. */
static tl_status grow_captured(unsigned char **a, size_t *cap, size_t n, size_t size, char *err, size_t errcap)
{
    char path[300];
    snprintf(path, sizeof path, "%s/grow.err", tl_test_tmpdir());
    fflush(stderr);
    int se = dup(2);
    if (!freopen(path, "w", stderr)) return TL_ERR_IO;
    tl_status st = TL_OK;
    for (size_t k = *cap; k <= n && st == TL_OK; k++) st = tl_an_grow(a, cap, k, size, "test rows");
    fflush(stderr);
    dup2(se, 2);
    close(se);
    FILE *fp = fopen(path, "r");
    size_t got = fp ? fread(err, 1, errcap - 1, fp) : 0;
    err[got] = '\0';
    if (fp) fclose(fp);
    return st;
}

/* An allocation that fails: TL_ERR_NOMEM in one line naming what ran out,
 * and the array and its capacity as they were, its rows intact, still the
 * caller's to free (once). Three failures: rows whose bytes overflow
 * size_t, a request realloc must refuse (over PTRDIFF_MAX bytes), and
 * memory running out under an address-space limit (the house tests have
 * no way to fail malloc itself). */
TL_TEST(grow_out_of_memory)
{
    const size_t sizes[] = {SIZE_MAX / 4, (size_t)PTRDIFF_MAX / 4};
    for (size_t k = 0; k < 2; k++) {
        unsigned char *a = malloc(4);
        TL_ASSERT(a);
        memcpy(a, "rows", 4);
        size_t cap = 4; /* rows of one byte so far: the next, of sizes[k] bytes, cannot be had */
        char err[512];
        unsigned char *was = a;
        TL_ASSERT_EQ(grow_captured(&a, &cap, 4, sizes[k], err, sizeof err), TL_ERR_NOMEM);
        TL_ASSERT(a == was && cap == 4 && !memcmp(a, "rows", 4));
        TL_ASSERT_MSG(strstr(err, "test rows: out of memory for 6 rows") && strchr(err, '\n') == err + strlen(err) - 1,
                      "%s", err);
        free(a);
    }
    /* 1 MiB rows under a limit 64 MiB above what the process maps now */
    TL_TEST_CAP_ADDRESS_SPACE(64 << 20);
    const size_t row = 1 << 20;
    unsigned char *a = NULL;
    size_t cap = 0, n = 0;
    char err[512];
    tl_status st = TL_OK;
    while (st == TL_OK && n < 1000) { /* 1000 MiB: far past the limit */
        size_t had = cap;
        unsigned char *was = a;
        st = grow_captured(&a, &cap, n, row, err, sizeof err);
        if (st != TL_OK) {
            TL_ASSERT(a == was && cap == had);
            break;
        }
        memset(a + n * row, (int)(n & 0xff), row);
        n++;
    }
    TL_ASSERT_MSG(st == TL_ERR_NOMEM && n >= 16, "status %d after %zu rows", (int)st, n);
    TL_ASSERT_MSG(strstr(err, "test rows: out of memory for ") && strchr(err, '\n') == err + strlen(err) - 1, "%s", err);
    for (size_t k = 0; k < n; k++) TL_ASSERT(a[k * row] == (k & 0xff) && a[k * row + row - 1] == (k & 0xff));
    free(a);
}

TL_TEST_MAIN(table_header_names_one_field, disjoint, nested, partial, serialised, window_clip_and_other, slices_partition_window, launch_gaps,
             empty_and_bad_window, union_segments, categories, demangle_short_names, table_caps_text_columns, table_text_in_characters, table_missing_numbers_and_control_characters, table_quoted_cut_stays_paired, names_intern, parse_iters,
             names_short_demangled_calls, copy_direction, short_names_with_blanks, grow_keeps_rows, grow_out_of_memory)
