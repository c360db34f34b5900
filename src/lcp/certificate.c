/*
 * certificate.c: the LCP certificate (recomputed from M, q, z alone) and the index-set
 * classification of a complementary pair.
 */
#include <math.h>
#include <stddef.h>

#include "relaxsim/lcp.h"
#include "lcp/lcp_internal.h"

void rs_lcp_residual(int n, const double *M, const double *q, const double *z, double *w)
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

/* Running maxima and minima of the certificate over components seen so far. */
typedef struct cert_accumulator {
    double min_z, min_w, max_zw, nat, q_inf, z_inf;
    int finite;
} cert_accumulator;

static void cert_begin(cert_accumulator *acc)
{
    acc->min_z = INFINITY;
    acc->min_w = INFINITY;
    acc->max_zw = 0.0;
    acc->nat = 0.0;
    acc->q_inf = 0.0;
    acc->z_inf = 0.0;
    acc->finite = 1;
}

/* Plain comparisons: the values are finite here (fmin/fmax are library calls at -O2). */
static inline double min2(double a, double b) { return a < b ? a : b; }
static inline double max2(double a, double b) { return a > b ? a : b; }

static void cert_add(cert_accumulator *acc, double qi, double zi, double wi)
{
    if (!isfinite(zi) || !isfinite(wi)) {
        acc->finite = 0;
        return;
    }
    acc->min_z = min2(acc->min_z, zi);
    acc->min_w = min2(acc->min_w, wi);
    acc->max_zw = max2(acc->max_zw, fabs(zi * wi));
    acc->nat = max2(acc->nat, fabs(min2(zi, wi)));
    acc->z_inf = max2(acc->z_inf, fabs(zi));
    acc->q_inf = max2(acc->q_inf, fabs(qi));
}

static void cert_finish(const cert_accumulator *acc, double tol, rs_lcp_certificate *cert)
{
    const int finite = acc->finite;
    const double scale_q = fmax(1.0, acc->q_inf);
    const double scale_z = fmax(1.0, acc->z_inf);
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

void rs_lcp_certificate_of(int n, const double *q, const double *z, const double *w, double tol,
                           rs_lcp_certificate *cert)
{
    cert_accumulator acc;
    cert_begin(&acc);
    for (int i = 0; i < n; i++)
        cert_add(&acc, q[i], z[i], w[i]);
    cert_finish(&acc, tol, cert);
}

rs_error rs_lcp_certificate_compute(int n, const double *M, const double *q, const double *z,
                                    double tol, double *w, rs_lcp_certificate *cert)
{
    if (!M || !q || !z || !cert)
        return RS_ERR_NULL_ARG;
    if (n < 1)
        return RS_ERR_DIMENSION;
    if (!(tol > 0.0) || !isfinite(tol))
        return RS_ERR_BAD_SETTING;

    if (w) {
        rs_lcp_residual(n, M, q, z, w);
        rs_lcp_certificate_of(n, q, z, w, tol, cert);
        return RS_OK;
    }
    /* No buffer for w: compute each w_i as a row sum (M read with stride n; still O(n^2)). */
    cert_accumulator acc;
    cert_begin(&acc);
    for (int i = 0; i < n; i++) {
        double wi = q[i];
        for (int j = 0; j < n; j++)
            if (z[j] != 0.0)
                wi += M[(size_t)i + (size_t)j * (size_t)n] * z[j];
        cert_add(&acc, q[i], z[i], wi);
    }
    cert_finish(&acc, tol, cert);
    return RS_OK;
}

const char *rs_lcp_index_class_name(rs_lcp_index_class c)
{
    switch (c) {
    case RS_LCP_CLAMPING: return "clamping";
    case RS_LCP_SEPARATING: return "separating";
    case RS_LCP_FLOATING: return "floating";
    case RS_LCP_NOT_COMPLEMENTARY: return "not_complementary";
    }
    return "unknown";
}

rs_error rs_lcp_classify(int n, const double *z, const double *w, double tol,
                         rs_lcp_index_class *classes)
{
    if (!z || !w || !classes)
        return RS_ERR_NULL_ARG;
    if (n < 1)
        return RS_ERR_DIMENSION;
    if (!(tol >= 0.0) || !isfinite(tol))
        return RS_ERR_BAD_SETTING;
    for (int i = 0; i < n; i++) {
        const double zi = z[i], wi = w[i];
        const int z_zero = fabs(zi) <= tol, w_zero = fabs(wi) <= tol;
        const int z_pos = zi > tol, w_pos = wi > tol;
        if (z_pos && w_zero)
            classes[i] = RS_LCP_CLAMPING;
        else if (z_zero && w_pos)
            classes[i] = RS_LCP_SEPARATING;
        else if (z_zero && w_zero)
            classes[i] = RS_LCP_FLOATING;
        else
            classes[i] = RS_LCP_NOT_COMPLEMENTARY;
    }
    return RS_OK;
}
