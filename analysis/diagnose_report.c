/* trilap-analyze diagnose's report: the preamble and each rank's
 * figures, every rule over every rank (a finding with its evidence and
 * remedy, ok or n/a), what overlapped, and the table of verdicts (and
 * --csv). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diagnose_impl.h"
#include "commit.h" /* TL_GIT_COMMIT */
#include "config.h"

static void print_rank_summary(const tl_an_rank_result *res, size_t nr)
{
    for (size_t r = 0; r < nr; r++) {
        const tl_an_metrics *m = &res[r].whole;
        double w = m->w > 0 ? (double)m->w : 1;
        char hid[64], cc[64];
        double h = tl_an_m_hidden(m), c = tl_an_m_ccover(m);
        if (isfinite(h)) snprintf(hid, sizeof hid, "%.1f%%", 100 * h);
        else snprintf(hid, sizeof hid, "- (no communication)");
        if (isfinite(c)) snprintf(cc, sizeof cc, "%.1f%%", 100 * c);
        else snprintf(cc, sizeof cc, "- (no %s)", tl_an_m_union(m, TL_AN_C_P2P_ALL) ? "collective" : "p2p");
        /* a host-only rank's compute is its host's compute ranges; without
         * them "0.0%" would say its host did not compute */
        char cp[64];
        double ucp = 100.0 * (double)tl_an_m_union(m, TL_AN_C_COMPUTE) / w;
        int host = tl_an_rank_host_only(&res[r]);
        if (host && !res[r].n_host_compute) snprintf(cp, sizeof cp, "n/a (a host-only rank: no GPU compute)");
        else snprintf(cp, sizeof cp, "%.1f%%%s", ucp, host ? " (its host's compute ranges)" : "");
        char cut[256];
        tl_an_window_cut_say(&res[r].meta, cut, sizeof cut);
        printf("# rank %d: window %.1f us%s%s%s, %zu iterations; compute %s, p2p %.1f%%, coll %.1f%%, exposed "
               "communication %.1f%%, idle %.1f%% of the window; hidden %s, comm_comm %s, triple %.2f%%\n",
               res[r].meta.rank, US(m->w), cut[0] ? " (" : "", cut, cut[0] ? ")" : "", res[r].nslices, cp,
               100.0 * (double)tl_an_m_union(m, TL_AN_C_P2P_ALL) / w,
               100.0 * (double)tl_an_m_union(m, TL_AN_C_COLL_ALL) / w, 100.0 * (double)tl_an_m_exposed(m) / w,
               100.0 * (double)tl_an_m_idle(m) / w, hid, cc, 100 * tl_an_m_triple(m));
    }
}

/* Where the iteration numbers printed are not the program's (a rerun),
 * where the trace holds GPU rows no tracer records, and where the probes
 * guessed whose some records were. */
static void print_reruns(const tl_an_rank_result *res, size_t nr)
{
    char say[512];
    for (size_t r = 0; r < nr; r++) {
        if (tl_an_reruns_say(&res[r].meta, say, sizeof say)) printf("# iterations: %s\n", say);
        if (tl_an_odd_rows_say(&res[r].meta, say, sizeof say)) printf("# note: %s\n", say);
    }
    char guessed[1024];
    if (nr && tl_an_guessed_owners_say(&res[0].meta, nr, sizeof *res, guessed, sizeof guessed))
        printf("# note: %s\n", guessed);
}

/* What did overlap, and how long operations waited for their last rank
 * (and, once, where halo operations were paired across every rank for
 * want of peers in the trace). */
static void print_what_overlapped(const tl_an_rank_result *res, size_t nr, const tl_an_ops *ops,
                                  const tl_an_names *names)
{
    for (size_t r = 0; r < nr; r++) {
        const tl_an_metrics *m = &res[r].whole;
        if (!tl_an_m_union(m, TL_AN_C_COMM_ALL)) {
            printf("overlap rank %d: no communication in the window\n", res[r].meta.rank);
            continue;
        }
        char cc[48], hid[48];
        double ccv = tl_an_m_ccover(m), h = tl_an_m_hidden(m);
        if (isfinite(ccv)) snprintf(cc, sizeof cc, "%.1f%%", 100 * ccv);
        else snprintf(cc, sizeof cc, "- (no %s activity)", m->np2p > 0 ? "collective" : "p2p");
        if (isfinite(h)) snprintf(hid, sizeof hid, "%.1f%%", 100 * h);
        else snprintf(hid, sizeof hid, "- (it only waits)");
        printf("overlap rank %d: %s of communication transfer hidden under compute (%.1f%% counting its waits), p2p "
               "and coll overlap %s, all three lanes transferring/computing together %.2f%% of the window\n",
               res[r].meta.rank, hid, 100 * tl_an_m_hidden_all(m), cc, 100 * tl_an_m_triple(m));
    }
    for (size_t r = 0; r < nr && nr > 1; r++) {
        const tl_an_split *sp = &res[r].split;
        int64_t tot = sp->wait_ns + sp->transfer_ns;
        if (!sp->matched || !tot) continue;
        printf("peer wait rank %d: %zu communication operations spent %.1f of their %.1f us (%.0f%%, %.1f us each) "
               "waiting for the last rank to start the same operation; hidden and triple count only the rest\n",
               res[r].meta.rank, sp->matched, US(sp->wait_ns), US(tot), 100.0 * (double)sp->wait_ns / (double)tot,
               US(sp->wait_ns) / (double)sp->matched);
    }
    char note[512];
    if (tl_an_ops_pairing_say(ops, names, note, sizeof note)) printf("# note: %s\n", note);
}

/* The ranks a rule does not apply to, and why (the first rank's reason:
 * one rule has one). */
typedef struct not_applied {
    size_t n;
    char ranks[256]; /* "0, 2, 3" */
    int cut;         /* ranks ends in ", ...": no room for more */
    const char *why;
} not_applied;

static void na_add(not_applied *na, int rank, const char *why)
{
    char one[24];
    size_t len = strlen(na->ranks), k = (size_t)snprintf(one, sizeof one, "%s%d", len ? ", " : "", rank);
    /* a rank number is never cut: past the room, "..." once */
    if (!na->cut && len + k + sizeof ", ..." <= sizeof na->ranks) {
        memcpy(na->ranks + len, one, k + 1);
    } else if (!na->cut) {
        memcpy(na->ranks + len, ", ...", sizeof ", ...");
        na->cut = 1;
    }
    if (!na->why) na->why = why;
    na->n++;
}

/* A finding with the remedy of the ranks it fired on: a host-only or
 * host-staged rank's where it has its own (fired[k]: those ranks), the
 * rule's elsewhere (fired[REM_GPU]); the ranks named where two differ. */
static void print_finding(int nfind, const rule *ru, prog_kind prog, const evidence *ev, const not_applied *fired)
{
    static const char *const what[NREM] = {"", "host-only", "host-staged"};
    printf("FINDING %d [%s]: %s\n  %s\n%s", nfind, ru->name, ru->headline, ru->evidence ? ru->evidence : "evidence:",
           ev->text);
    int kinds = 0;
    for (int k = 0; k < NREM; k++) kinds += fired[k].n > 0;
    for (int k = 0; k < NREM; k++) {
        if (!fired[k].n) continue;
        if (k == REM_GPU || kinds == 1) printf("  remedy: %s\n", tl_diag_remedy_of(ru, prog, (remedy_kind)k));
        else
            printf("  remedy on %s rank%s %s: %s\n", what[k], fired[k].n > 1 ? "s" : "", fired[k].ranks,
                   tl_diag_remedy_of(ru, prog, (remedy_kind)k));
    }
    putchar('\n');
}

tl_status tl_diag_report(const char *dir, const diag_opts *o, diag_state *s, size_t nr)
{
    tl_status st = TL_OK;
    tl_an_table *t = NULL;
    evidence *ev = malloc(sizeof *ev);
    TL_CHECK(ev, TL_ERR_NOMEM, "evidence");
    TL_TRYGOTO(tl_an_table_create(&t, "diagnosis rules"), st, fail);
    TL_TRYGOTO(tl_an_table_std_meta(t, "diagnose", dir), st, fail);
    char thr[1024];
    size_t len = 0;
    for (int i = 0; i < tl_diag_nrules && len < sizeof thr; i++) {
        int dup = 0;
        for (int j = 0; j < i; j++) dup |= tl_diag_rules[j].thr == tl_diag_rules[i].thr;
        if (!dup)
            len += (size_t)snprintf(thr + len, sizeof thr - len, "%s%s %g", len ? ", " : "", tl_diag_rules[i].option,
                                    tl_diag_threshold(o, &tl_diag_rules[i]));
    }
    TL_TRYGOTO(tl_an_table_meta(t, "thresholds", "%s, min-comm-share %g, both-iters %g, starve-share %g, min-samples "
                                                 "%lld, short-kernel-us %g, launch-gap-us %g",
                                thr, o->min_comm_share, o->both_iters, o->starve_share, (long long)o->min_samples,
                                o->short_kernel_us, o->c.launch_gap_us),
               st, fail);
    static const struct {
        const char *name;
        int text;
    } cols[] = {{"rule", 1},      {"rank", 0},    {"verdict", 1},
                {"value", 0},     {"threshold", 0}, {"measure", 1},
                {"other_conditions", 1}};
    for (size_t j = 0; j < sizeof cols / sizeof cols[0]; j++)
        TL_TRYGOTO(tl_an_table_col(t, cols[j].name, "", cols[j].text), st, fail);
    char clock[512];
    tl_an_clock_say(&s->res[0].meta, nr, sizeof *s->res, clock, sizeof clock);
    TL_TRYGOTO(tl_an_table_meta(t, "clock", "%s", clock), st, fail);
    printf("# program: trilap-analyze diagnose %s (git %s)\n# input: %s\n# clock: %s\n", TL_VERSION, TL_GIT_COMMIT,
           dir, clock);
    char ranks[256];
    if (tl_an_ranks_subset(s->res, nr, ranks, sizeof ranks)) printf("# ranks: %s\n", ranks);
    print_rank_summary(s->res, nr);
    print_reruns(s->res, nr);
    putchar('\n');
    int nfind = 0;
    prog_kind prog = tl_diag_prog_of(&s->res[0].meta);
    for (int i = 0; i < tl_diag_nrules; i++) {
        const rule *ru = &tl_diag_rules[i];
        ev->len = 0;
        ev->text[0] = '\0';
        int any = 0;
        not_applied na = {0}, fired[NREM] = {{0}};
        for (size_t r = 0; r < nr; r++) {
            measured mv = {.value = NAN, .also = "-"};
            int found = ru->verdict(s, r, &mv, ev);
            any |= found;
            remedy_kind k = tl_diag_remedy_kind_of(&s->res[r]);
            if (found) /* its own text, where the rule has one for its kind */
                na_add(&fired[tl_diag_remedy_of(ru, prog, k) != tl_diag_remedy_of(ru, prog, REM_GPU) ? k : REM_GPU],
                       s->rd[r].rank, NULL);
            if (mv.na) na_add(&na, s->rd[r].rank, mv.na);
            TL_TRYGOTO(tl_an_table_row(t), st, fail);
            TL_TRYGOTO(tl_an_table_str(t, ru->name), st, fail);
            TL_TRYGOTO(tl_an_table_int(t, s->rd[r].rank), st, fail);
            TL_TRYGOTO(tl_an_table_str(t, found ? "FINDING" : mv.na ? "n/a" : "ok"), st, fail);
            TL_TRYGOTO(tl_an_table_num(t, mv.value, 2), st, fail);
            TL_TRYGOTO(tl_an_table_num(t, tl_diag_threshold(o, ru), 2), st, fail);
            TL_TRYGOTO(tl_an_table_str(t, ru->measure), st, fail);
            TL_TRYGOTO(tl_an_table_str(t, mv.also), st, fail);
        }
        if (any)
            print_finding(++nfind, ru, prog, ev, fired);
        else if (na.n == nr)
            printf("n/a [%s]: does not apply: rank%s %s %s %s\n", ru->name, nr > 1 ? "s" : "", na.ranks,
                   nr > 1 ? "are" : "is", na.why);
        else if (na.n)
            printf("ok [%s]: %s (--%s %g); does not apply to rank%s %s, %s\n", ru->name, ru->ok, ru->option,
                   tl_diag_threshold(o, ru), na.n > 1 ? "s" : "", na.ranks, na.why);
        else
            printf("ok [%s]: %s (--%s %g)\n", ru->name, ru->ok, ru->option, tl_diag_threshold(o, ru));
    }
    putchar('\n');
    print_what_overlapped(s->res, nr, s->ops, s->names);
    putchar('\n');
    tl_an_table_print(t, stdout);
    printf("# -: the rule does not apply to that rank (no such activity), or has no other condition\n"
           "# n/a: the rule cannot be applied to that rank (a host-only rank: no GPU lanes; late-ranks: no "
           "operation paired across the ranks ran on them together)\n"
           "# other_conditions: the rule fires only when the value passes its threshold and these hold too\n");
    printf("# %d finding%s\n", nfind, nfind == 1 ? "" : "s");
    if (o->c.csv) TL_TRYGOTO(tl_an_write_csv(t, "--csv", o->c.csv), st, fail);
fail:
    free(ev);
    tl_an_table_destroy(&t);
    return st;
}
