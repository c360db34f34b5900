/*
 * lemke_internal.h: what the general Lemke solve (lemke.c) and its small-problem path
 * (lemke_small.c) share: helpers always inlined into each size instance, and the small path.
 */
#ifndef RS_LEMKE_INTERNAL_H
#define RS_LEMKE_INTERNAL_H

#include <math.h>
#include <string.h>

#include "relaxsim/lcp.h"
#include "lcp/lcp_internal.h"

/* Helpers of the solve, inlined into each size instance of a solve. */
#if defined(__GNUC__)
#define LEMKE_INLINE static inline __attribute__((always_inline))
#else
#define LEMKE_INLINE static inline
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

/* z of the caller's problem from the unit-scale z (see lemke_unit_scale): z 2^z_exponent,
 * |z_exponent| <= 2042, as two exact products. */
LEMKE_INLINE void lemke_unscale_z(int n, int z_exponent, double *z)
{
    if (z_exponent == 0)
        return;
    const int half = z_exponent / 2;
    const double f1 = rs_power_of_two(half), f2 = rs_power_of_two(z_exponent - half);
    for (int i = 0; i < n; i++)
        z[i] = z[i] * f1 * f2;
}

/* Tie test on ratios of the unit-scale problem: |a - b| <= tol * max(1, |b|). */
LEMKE_INLINE int tied(double a, double b, double tol)
{
    return fabs(a - b) <= tol * rs_max2(1.0, fabs(b));
}

/* z from basic values: z_j = max(0, value) if z_j is basic, else 0. */
LEMKE_INLINE void lemke_extract_z(int n, const int *basis, const double *values, double *z)
{
    for (int j = 0; j < n; j++)
        z[j] = 0.0;
    for (int p = 0; p < n; p++) {
        const int v = basis[p];
        if (v >= n && v < 2 * n)
            z[v - n] = rs_max2(values[p], 0.0); /* also 0 for NaN (a breakdown) */
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
