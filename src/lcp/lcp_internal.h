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

/* Running maxima and minima of the certificate over the components seen so far. */
typedef struct rs_cert_accumulator {
    double min_z, min_w, max_zw, nat, q_inf, z_inf;
    int finite;
} rs_cert_accumulator;

static inline void rs_cert_begin(rs_cert_accumulator *acc)
{
    acc->min_z = INFINITY;
    acc->min_w = INFINITY;
    acc->max_zw = 0.0;
    acc->nat = 0.0;
    acc->q_inf = 0.0;
    acc->z_inf = 0.0;
    acc->finite = 1;
}

static inline void rs_cert_add(rs_cert_accumulator *acc, double qi, double zi, double wi)
{
    if (!isfinite(zi) || !isfinite(wi)) {
        acc->finite = 0;
        return;
    }
    acc->min_z = rs_min2(acc->min_z, zi);
    acc->min_w = rs_min2(acc->min_w, wi);
    acc->max_zw = rs_max2(acc->max_zw, fabs(zi * wi));
    acc->nat = rs_max2(acc->nat, fabs(rs_min2(zi, wi)));
    acc->z_inf = rs_max2(acc->z_inf, fabs(zi));
    acc->q_inf = rs_max2(acc->q_inf, fabs(qi));
}

static inline void rs_cert_finish(const rs_cert_accumulator *acc, double tol,
                                  rs_lcp_certificate *cert)
{
    const int finite = acc->finite;
    const double scale_q = rs_max2(1.0, acc->q_inf);
    const double scale_z = rs_max2(1.0, acc->z_inf);
    cert->min_z = finite ? acc->min_z : NAN;
    cert->min_w = finite ? acc->min_w : NAN;
    cert->max_complementarity = finite ? acc->max_zw : NAN;
    cert->natural_residual = finite ? acc->nat : NAN;
    cert->rel_min_z = cert->min_z / scale_q;
    cert->rel_min_w = cert->min_w / scale_q;
    cert->rel_max_complementarity = cert->max_complementarity / (scale_q * scale_z);
    cert->rel_natural_residual = cert->natural_residual / scale_q;
    cert->finite = finite;
    /* Written so that any NaN fails the test. */
    cert->passed = finite && cert->rel_min_z >= -tol && cert->rel_min_w >= -tol &&
                   cert->rel_natural_residual <= tol && cert->rel_max_complementarity <= tol;
}

/** Certificate of (z, w) for the given q; w must already be M z + q. */
static inline void rs_lcp_certificate_of(int n, const double *q, const double *z,
                                         const double *w, double tol, rs_lcp_certificate *cert)
{
    rs_cert_accumulator acc;
    rs_cert_begin(&acc);
    for (int i = 0; i < n; i++)
        rs_cert_add(&acc, q[i], z[i], w[i]);
    rs_cert_finish(&acc, tol, cert);
}

#endif
