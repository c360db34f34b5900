/*
 * certificate.c: the LCP certificate (recomputed from M, q, z alone; its pieces are inline in
 * lcp_internal.h) and the index-set classification of a complementary pair.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "relaxsim/lcp.h"
#include "core/detail.h"
#include "lcp/lcp_internal.h"

rs_error rs_lcp_certificate_compute(int n, const double *M, const double *q, const double *z,
                                    double tol, double *w, rs_lcp_certificate *cert,
                                    rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!M || !q || !z || !cert)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "rs_lcp_certificate_compute: %s is NULL",
                             !M ? "M" : !q ? "q" : !z ? "z" : "cert");
    if (n < 1)
        return rs_detail_set(detail, RS_ERR_DIMENSION, "rs_lcp_certificate_compute: n = %d < 1", n);
    if (!(tol > 0.0) || !isfinite(tol))
        return rs_detail_set(detail, RS_ERR_BAD_SETTING,
                             "rs_lcp_certificate_compute: tol = %g: not finite and > 0", tol);
    const rs_error size = RS_SIZE_OK(cert, rs_lcp_certificate, "cert", detail);
    if (size != RS_OK)
        return size;
    if (!rs_all_finite(M, (size_t)n * (size_t)n) || !rs_all_finite(q, (size_t)n))
        return rs_detail_set(detail, RS_ERR_NONFINITE, /* (z may be anything: a non-finite z
                                                          fails its certificate) */
                             "rs_lcp_certificate_compute: %s has a NaN or an infinity",
                             rs_all_finite(M, (size_t)n * (size_t)n) ? "q" : "M");
    /* w (the caller's buffer, or ours) and the equilibration's 3 n doubles: on the stack for
     * small n, allocated otherwise */
    double small[4 * 64];
    double *buf = n <= 64 ? small : malloc(sizeof(double) * 4 * (size_t)n);
    if (!buf)
        return rs_detail_set(detail, RS_ERR_NOMEM, "rs_lcp_certificate_compute: no memory for "
                                                   "%d doubles", 4 * n);
    double *wv = w ? w : buf + 3 * (size_t)n;
    rs_lcp_residual(n, M, q, z, wv);
    rs_lcp_certificate_of(n, M, q, z, wv, tol, buf, cert);
    if (buf != small)
        free(buf);
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
                         rs_lcp_index_class *classes, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!z || !w || !classes)
        return rs_detail_set(detail, RS_ERR_NULL_ARG, "rs_lcp_classify: %s is NULL",
                             !z ? "z" : !w ? "w" : "classes");
    if (n < 1)
        return rs_detail_set(detail, RS_ERR_DIMENSION, "rs_lcp_classify: n = %d < 1", n);
    if (!(tol >= 0.0) || !isfinite(tol))
        return rs_detail_set(detail, RS_ERR_BAD_SETTING,
                             "rs_lcp_classify: tol = %g: not finite and >= 0", tol);
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
