/*
 * lemke_internal.h: what the general Lemke solve (lemke.c) and its small-problem path
 * (lemke_small.c) share: helpers always inlined into each size instance, and the small path.
 */
#ifndef RS_LEMKE_INTERNAL_H
#define RS_LEMKE_INTERNAL_H

#include <float.h>
#include <math.h>
#include <string.h>

#include "relaxsim/lcp.h"
#include "lcp/lcp_internal.h"

/* Helpers of the solve, inlined into each size instance of a solve; LEMKE_NOINLINE for a
 * function kept out of line (one that holds a set of instances, or a frame a small solve must
 * not set up). */
#if defined(__GNUC__)
#define LEMKE_INLINE static inline __attribute__((always_inline))
#define LEMKE_NOINLINE static __attribute__((noinline))
#else
#define LEMKE_INLINE static inline
#define LEMKE_NOINLINE static
#endif

/* The pivot limit of a solve (all its attempts together): max_pivots, or 10000 + 100 n. */
static inline int lemke_pivot_limit(const rs_lemke_settings *s, int n)
{
    return s->max_pivots > 0 ? s->max_pivots : 10000 + 100 * n;
}

/* Pivots after which the path is watched for a repeated basis: a path this long is rare (the
 * generated LCPs take about n / 2), Murty's exponential one does not repeat, and below it the
 * watch costs nothing. */
#define LEMKE_WATCH_AFTER(n) (4 * (n) + 16)

/* Tie test on ratios of the unit-scale problem: |a - b| <= tol * max(1, |b|). */
LEMKE_INLINE int tied(double a, double b, double tol)
{
    return fabs(a - b) <= tol * rs_max2(1.0, fabs(b));
}

/* z of the caller's problem from the basic values of the unit-scale one (see lemke_unit_scale):
 * z_j = max(0, value) 2^z_exponent if z_j is basic, else 0, |z_exponent| <= 2042, the factor
 * as two products (exact unless z_j is subnormal). Applied as each entry is written: a second
 * pass reading back the entries just stored one by one waits for those stores to land
 * (measured: about 5 ns of an 80 ns solve at n = 3). */
LEMKE_INLINE void lemke_extract_z(int n, const int *basis, const double *values, int z_exponent,
                                  double *z)
{
    const int half = z_exponent / 2;
    const double f1 = rs_power_of_two(half), f2 = rs_power_of_two(z_exponent - half);
    for (int j = 0; j < n; j++)
        z[j] = 0.0;
    for (int p = 0; p < n; p++) {
        const int v = basis[p];
        if (v >= n && v < 2 * n) /* max: also 0 for NaN (a breakdown) */
            z[v - n] = rs_max2(values[p], 0.0) * f1 * f2;
    }
}

/* The lexicographic rule among rows cand[0..nc-1] tied on the ratio (z0 not among them): column by
 * column of B^-1 (column-major, n by n), keep the rows with the smallest (B^-1)_ik / a_i. Returns
 * the row left, unique, or (only under rounding) the lowest index: deterministic. */
LEMKE_INLINE int lemke_tie_break(int n, const double *a, const double *Binv, int *cand, int nc,
                                 double tie_tol)
{
    for (int k = 0; k < n && nc > 1; k++) {
        const double *Bk = Binv + (size_t)k * (size_t)n;
        double lo = INFINITY;
        for (int c = 0; c < nc; c++)
            lo = fmin(lo, Bk[cand[c]] / a[cand[c]]);
        int kept = 0;
        for (int c = 0; c < nc; c++)
            if (tied(Bk[cand[c]] / a[cand[c]], lo, tie_tol))
                cand[kept++] = cand[c];
        nc = kept;
    }
    return cand[0];
}

/* The unit scale of a problem (see lemke_unit_scale), and its certificate's units. */
typedef struct lemke_scale {
    double m_factor;   /* 2^-a: M at unit scale is m_factor M, formed where it is read */
    int z_exponent;    /* b - a: the caller's z is the unit-scale z times 2^z_exponent */
    double cert_m_inf; /* ||D M C||_max of the certificate's equilibration (D and C) */
} lemke_scale;

/*
 * The problem at unit scale: M / 2^a, q / 2^b and d / 2^c, with 2^a, 2^b, 2^c the powers of two
 * just above ||M||_max, ||q||_inf and ||d||_inf (exact: only exponents change). q and d are
 * written to qu and du; M is not copied: its factor 2^-a multiplies each column where the
 * pivoting reads one (an exact product, so the same numbers a copy would hold).
 * Lemke's path is invariant under such scalings in exact arithmetic (z scales by 2^(b - a), z0 by
 * 2^(b - c)), and at unit scale the tolerances below, whose floors are 1, are relative to the
 * problem's own size; without it the basis mixes columns of I with columns of M of another size
 * and rounding decides pivots (an infeasible LCP scaled by 1e12 came out "solved"). Exact
 * unless an entry far below the largest of its array would fall below the normal range (M = I,
 * q = (1e300, -1e-300)): then the problem is kept as given (factors 1), which decides no worse
 * than before (lost, when not NULL, says so). The certificate's equilibration of M (into D and
 * C; rows: rs_lcp_equilibrate's scratch) is computed here too: its first pass finds ||M||_max.
 */
LEMKE_INLINE lemke_scale lemke_unit_scale(int n, const double *M, const double *q,
                                          const double *d, double *D, double *C, double *rows,
                                          double *qu, double *du, int *lost_out)
{
    rs_lcp_extent m; /* the largest and the smallest nonzero |M_ij| */
    const double cert_m_inf = rs_lcp_equilibrate(n, M, D, C, rows, &m);
    double q_max = 0.0, d_max = 0.0;
    for (int i = 0; i < n; i++) {
        q_max = rs_max2(q_max, fabs(q[i]));
        d_max = rs_max2(d_max, d ? d[i] : 1.0);
    }
    int a = rs_unit_exponent(m.max), b = rs_unit_exponent(q_max), c = rs_unit_exponent(d_max);
    for (int pass = 0; pass < 2; pass++) {
        const double fb = rs_power_of_two(-b), fc = rs_power_of_two(-c);
        /* a nonzero entry scaled below the normal range */
        int lost = m.min < INFINITY && !(m.min * rs_power_of_two(-a) >= DBL_MIN);
        for (int i = 0; i < n; i++) {
            qu[i] = q[i] * fb;
            du[i] = (d ? d[i] : 1.0) * fc;
            lost |= (q[i] != 0.0 && !(fabs(qu[i]) >= DBL_MIN)) || !(du[i] >= DBL_MIN);
        }
        if (lost_out && pass == 0)
            *lost_out = lost;
        if (!lost)
            break;
        a = b = c = 0; /* as given */
    }
    const lemke_scale scale = {rs_power_of_two(-a), b - a, cert_m_inf};
    return scale;
}

/* The first leaving row (z0 enters): the largest -q_i / d_i of the unit-scale problem, the
 * largest index among rows tied with it (lexicographic, see lemke.c's header); -1 when none is
 * positive (q >= 0: z = 0 solves). ratio: n doubles of scratch. */
LEMKE_INLINE int lemke_first_row(int n, const double *qu, const double *du, double tie_tol,
                                 double *ratio)
{
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        /* divided once (the tie test reads it again); by 1/2, the unit-scale d = e, a product */
        ratio[i] = du[i] == 0.5 ? -(2.0 * qu[i]) : -qu[i] / du[i];
        worst = rs_max2(worst, ratio[i]);
    }
    for (int i = n - 1; i >= 0 && worst > 0.0; i--)
        if (qu[i] < 0.0 && tied(ratio[i], worst, tie_tol))
            return i;
    return -1;
}

/* lemke_ratio_rows: rows tied on the ratio, z0 not among them; the lexicographic rule decides */
#define LEMKE_TIED (-2)

/*
 * The minimum ratio test on the entering column a: the rows with a_i above pivot_tol of
 * ||a||_inf and the smallest max(rhs_i, 0) / a_i, within tie_tol (tied). Returns -1 if no entry
 * qualifies (a ray), z0_row if z0's row (-1: none) is among the tied rows (z0 leaves at once),
 * the row if it is alone, else LEMKE_TIED with the rows in cand[0..*nc-1] (lemke_tie_break).
 * ratio: n doubles of scratch. For lemke_small.c, with near and inverse not NULL: *near is set
 * to 1 if an a_i lies within a factor 100 of the tolerance (where rounding decides whether it
 * qualifies), and the ratios are products by inverse_i = 1 / a_i, written for the rows that
 * qualify: the divisions do not wait on one another, and the pivot's 1 / a_r is one of them (a
 * ratio may differ from the quotient in its last bit).
 */
LEMKE_INLINE int lemke_ratio_rows(int n, const double *a, const double *rhs, int z0_row,
                                  double pivot_tol, double tie_tol, double *ratio, int *cand,
                                  int *nc_out, int *near, double *inverse)
{
    double a_inf = 0.0;
    for (int i = 0; i < n; i++)
        a_inf = rs_max2(a_inf, fabs(a[i]));
    const double a_min = pivot_tol * a_inf;
    if (!(a_inf > 0.0))
        return -1;

    double best = INFINITY;
    int close = 0;
    for (int i = 0; i < n; i++) {
        ratio[i] = INFINITY;
        if (a[i] > a_min) { /* a branch, not a select: no division by a zero a_i */
            if (inverse) {
                inverse[i] = 1.0 / a[i];
                ratio[i] = rs_max2(rhs[i], 0.0) * inverse[i];
            } else {
                ratio[i] = rs_max2(rhs[i], 0.0) / a[i];
            }
            if (near)
                close |= a[i] < 100.0 * a_min;
        } else if (near) {
            close |= a[i] > 0.01 * a_min;
        }
        best = ratio[i] < best ? ratio[i] : best;
    }
    if (near)
        *near = close;
    if (best == INFINITY)
        return -1;

    /* tied(ratio_i, best, tie_tol): every ratio is at least best >= 0, so |ratio_i - best| is
     * ratio_i - best and max(1, |best|) is max(1, best), one band for all rows (an infinite
     * ratio is beyond it) */
    const double band = tie_tol * rs_max2(1.0, best);
    int nc = 0, z0_tied = 0;
    for (int i = 0; i < n; i++)
        if (ratio[i] - best <= band) {
            cand[nc++] = i;
            z0_tied |= i == z0_row;
        }
    *nc_out = nc;
    if (z0_tied)
        return z0_row;
    return nc == 1 ? cand[0] : LEMKE_TIED;
}

/* The largest n that rs_lemke_small_solve takes. */
#define RS_LEMKE_SMALL_MAX 8

/*
 * The cold solve of a small problem (1 <= n <= RS_LEMKE_SMALL_MAX, settings resolved, refine
 * 0 or 1), as lemke_small.c explains. Returns 1 when it has the answer (z, w, info: status
 * solved, certified without refinement); -1, touching nothing, when M or q is not finite; 0 when
 * the general solve must run (z, w and info may have been written).
 */
int rs_lemke_small_solve(int n, const double *M, const double *q, const double *d,
                         const rs_lemke_settings *s, double *z, double *w, rs_lemke_info *info);

#endif
