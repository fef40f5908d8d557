/* The rated tables of trilap-fdtd verify convergence and time: each row's
 * rates against the row before, none at the rounding floor of the run's
 * precision, and the footer naming the rows there. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stencil/verify_impl.h"

static double rate(double e0, double e1, double ratio) { return e0 > 0 && e1 > 0 ? log(e0 / e1) / log(ratio) : NAN; }

/* The standing wave's rounding floor: the unit roundoff u of the run's
 * precision times the wave's amplitude, 1, grown as a random walk over
 * the steps to t = 0.5, u sqrt(steps). Measured in single on the CPU, the
 * l2 of single minus that of double (a lower bound of the rounding error)
 * stays within 0.15 u sqrt(steps) from 36 steps (convergence, n = 16) to
 * 4456 (time, n = 8, CFL 0.002), where it is 4 u: the floor of 10 u
 * whatever the steps (up to ec69945) missed the time experiment's. An l2
 * within floor_factor of the floor is partly rounding and stops falling
 * as the grid or the step is refined (time in single at n = 12: 1.1 u
 * sqrt(steps) at 955 steps, rate 1.829 where double gives 2.001): such a
 * row gets no rate, nor the row after it. Convergence in single, order 8:
 * 8.3e-8 at n = 16, then 4.3e-8, 5.3e-8 at n = 24, 32, printed as rates
 * 8.070 and 0.645 up to 8826a42; time in single at n = 8, CFL 0.02 then
 * 0.005: 9.0e-6 at 446 steps, then 7.5e-7 at 1783, rate 1.788 up to
 * ec69945. */
static const double floor_factor = 2;

static double rounding_floor(const verify_args *va, int64_t steps)
{
    return (va->v.dbl ? DBL_EPSILON : FLT_EPSILON) / 2 * sqrt((double)steps);
}

/* One row, "KEY,l2,linf,rate_l2,rate_linf" (the rates empty on the first,
 * at the floor and after it); name: the row as the footer names it */
void tl_verify_rated_row(const verify_args *va, verify_rated *r, const char *key, const char *name, double x, double l2,
                         double li, int64_t steps)
{
    double fl = rounding_floor(va, steps);
    int at = l2 <= floor_factor * fl;
    if (r->x == 0 || at || r->floor) printf("%s,%.6e,%.6e,,\n", key, l2, li);
    else printf("%s,%.6e,%.6e,%.3f,%.3f\n", key, l2, li, rate(r->l2, l2, x / r->x), rate(r->li, li, x / r->x));
    fflush(stdout);
    if (at) {
        size_t len = strlen(r->at);
        snprintf(r->at + len, sizeof r->at - len, "%s %s", r->nat ? "," : "", name);
        r->lo = r->nat == 0 || fl < r->lo ? fl : r->lo;
        r->hi = r->nat == 0 || fl > r->hi ? fl : r->hi;
        r->nat++;
    }
    r->l2 = l2;
    r->li = li;
    r->x = x;
    r->floor = at;
}

/* The footer of a table whose rows r->at reached the floor; what: the
 * table ("# order 8, n =", "# dt =") */
void tl_verify_floor_note(const verify_args *va, const char *what, const verify_rated *r)
{
    if (r->nat == 0) return;
    char range[64];
    if (r->lo == r->hi) snprintf(range, sizeof range, "%.2e", r->lo);
    else snprintf(range, sizeof range, "%.2e to %.2e", r->lo, r->hi);
    printf("%s%s: l2 within %gx the rounding floor of %s precision (u sqrt(steps) = %s, u = %.2e, amplitude 1); "
           "the error stops falling there, so no rate is given (--precision double)\n",
           what, r->at, floor_factor, va->v.dbl ? "double" : "single", range, rounding_floor(va, 1));
}
