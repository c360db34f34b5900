/* lcp_internal.h (internal): helpers shared by the LCP sources. */
#ifndef RS_LCP_INTERNAL_H
#define RS_LCP_INTERNAL_H

#include "relaxsim/lcp.h"

/** w = M z + q (M column-major n*n). */
void rs_lcp_residual(int n, const double *M, const double *q, const double *z, double *w);

/** Certificate of (z, w) for the given q; w must already be M z + q. */
void rs_lcp_certificate_of(int n, const double *q, const double *z, const double *w, double tol,
                           rs_lcp_certificate *cert);

/** 1 if all n entries of x are finite. */
int rs_all_finite(const double *x, size_t n);

#endif
