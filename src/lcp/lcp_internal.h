/*
 * lcp_internal.h (internal): helpers shared by the LCP sources.
 *
 * The residual and the certificate are defined here, inline, because Lemke's kernel is compiled
 * for each small n as a constant (see lemke.c): inlined there, their loops unroll too, and at
 * n = 2 the certificate is then a handful of instructions instead of a third of the solve.
 */
#ifndef RS_LCP_INTERNAL_H
#define RS_LCP_INTERNAL_H

#include <math.h>
#include <stddef.h>

#include "relaxsim/lcp.h"

/** 1 if all n entries of x are finite. */
static inline int rs_all_finite(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

/* Plain comparisons: the values are finite where these are used (fmin/fmax are library calls
 * at -O2, and they treat NaN differently, which is not wanted here). */
static inline double rs_min2(double a, double b) { return a < b ? a : b; }
static inline double rs_max2(double a, double b) { return a > b ? a : b; }

/** w = M z + q (M column-major n*n). */
static inline void rs_lcp_residual(int n, const double *M, const double *q, const double *z,
                                   double *w)
{
    /* w = q + sum_j z_j M(:, j), column by column so M is read contiguously. */
    for (int i = 0; i < n; i++)
        w[i] = q[i];
    for (int j = 0; j < n; j++) {
        const double zj = z[j];
        if (zj == 0.0)
            continue;
        const double *Mj = M + (size_t)j * (size_t)n;
        for (int i = 0; i < n; i++)
            w[i] += zj * Mj[i];
    }
}

/* r_i = |q_i| + ||z||_inf sum_j |M_ij|: the size of the terms of w_i = q_i + (M z)_i at the
 * solution's scale, w_i's own unit (it changes with the row as w_i does when a row of (M, q) is
 * scaled). Not the terms at z itself: entries of z at rounding level would make a row of pure
 * rounding its own unit. */
static inline double rs_lcp_row_unit(int n, const double *M, const double *q, double z_inf, int i)
{
    double row = 0.0;
    for (int j = 0; j < n; j++)
        row += fabs(M[(size_t)i + (size_t)j * (size_t)n]);
    return fabs(q[i]) + z_inf * row;
}

/* x / scale; a zero scale comes with x = 0 (see rs_lcp_certificate_of), which stays 0. */
static inline double rs_cert_relative(double x, double scale)
{
    return scale > 0.0 ? x / scale : (x == 0.0 ? 0.0 : copysign(INFINITY, x));
}

/**
 * Certificate of (z, w) for LCP(M, q); w must already be M z + q. Each relative measure is the
 * worse of two views, neither with a floor:
 *   - the whole problem: w in scale_w = ||q||_inf (for q = 0, the largest row unit), z in
 *     ||z||_inf;
 *   - each row in its own unit: w_i in r_i (rs_lcp_row_unit), z in ||z||_inf.
 * The first catches a pair whose z_i is small beside ||z|| only because its column carries other
 * units (a sliding speed next to impulses) while z_i w_i is not small; the second a row whose
 * residual is small beside ||q|| only because its row carries other units. Both are unchanged
 * when the whole LCP is rescaled (a M, b q, with z b / a). A zero unit comes only with a zero
 * quantity (r_i = 0 makes w_i = 0 exactly, ||z|| = 0 makes z = 0), whose measure is 0.
 */
static inline void rs_lcp_certificate_of(int n, const double *M, const double *q, const double *z,
                                         const double *w, double tol, rs_lcp_certificate *cert)
{
    double min_z = INFINITY, min_w = INFINITY, max_zw = 0.0, nat = 0.0, z_inf = 0.0, q_inf = 0.0;
    int finite = 1;
    for (int i = 0; i < n; i++) {
        const double zi = z[i], wi = w[i];
        if (!isfinite(zi) || !isfinite(wi)) {
            finite = 0;
            break;
        }
        min_z = rs_min2(min_z, zi);
        min_w = rs_min2(min_w, wi);
        max_zw = rs_max2(max_zw, fabs(zi * wi));
        nat = rs_max2(nat, fabs(rs_min2(zi, wi)));
        z_inf = rs_max2(z_inf, fabs(zi));
        q_inf = rs_max2(q_inf, fabs(q[i]));
    }
    /* the row view, and the largest row unit (the whole problem's w scale when q = 0) */
    double row_min_w = INFINITY, row_zw = 0.0, row_nat = 0.0, r_max = 0.0;
    for (int i = 0; finite && i < n; i++) {
        const double r = rs_lcp_row_unit(n, M, q, z_inf, i);
        const double zr = rs_cert_relative(z[i], z_inf), wr = rs_cert_relative(w[i], r);
        r_max = rs_max2(r_max, r);
        row_min_w = rs_min2(row_min_w, wr);
        row_zw = rs_max2(row_zw, fabs(zr * wr));
        row_nat = rs_max2(row_nat, fabs(rs_min2(zr, wr)));
    }
    const double scale_w = q_inf > 0.0 ? q_inf : r_max;
    double whole_nat = 0.0;
    for (int i = 0; finite && i < n; i++)
        whole_nat =
            rs_max2(whole_nat,
                    fabs(rs_min2(rs_cert_relative(z[i], z_inf), rs_cert_relative(w[i], scale_w))));
    cert->min_z = finite ? min_z : NAN;
    cert->min_w = finite ? min_w : NAN;
    cert->max_complementarity = finite ? max_zw : NAN;
    cert->natural_residual = finite ? nat : NAN;
    cert->rel_min_z = finite ? rs_cert_relative(min_z, z_inf) : NAN;
    cert->rel_min_w = finite ? rs_min2(rs_cert_relative(min_w, scale_w), row_min_w) : NAN;
    cert->rel_max_complementarity =
        finite ? rs_max2(rs_cert_relative(max_zw, scale_w * z_inf), row_zw) : NAN;
    cert->rel_natural_residual = finite ? rs_max2(whole_nat, row_nat) : NAN;
    cert->finite = finite;
    /* Written so that any NaN fails the test. */
    cert->passed = finite && cert->rel_min_z >= -tol && cert->rel_min_w >= -tol &&
                   cert->rel_natural_residual <= tol && cert->rel_max_complementarity <= tol;
}

#endif
