/*
 * dense.h (internal): writing dense derivatives of an NLP (see nlp_problem.h).
 * Jacobian m x n column-major; Hessian n x n column-major, lower triangle read.
 */
#ifndef RS_NLP_DENSE_H
#define RS_NLP_DENSE_H

#include <string.h>

/* Zero a dense rows x cols matrix. */
static inline void rs_dense_zero(double *A, int rows, int cols)
{
    memset(A, 0, sizeof(double) * (size_t)rows * (size_t)cols);
}

/* J(i, j) = v */
static inline void rs_jac_set(double *J, int m, int i, int j, double v)
{
    J[i + (size_t)j * (size_t)m] = v;
}

/* Add v to the symmetric Hessian entry (a, b): stored once, in the lower triangle. */
static inline void rs_hess_add(double *H, int n, int a, int b, double v)
{
    if (a < b) {
        const int t = a;
        a = b;
        b = t;
    }
    H[a + (size_t)b * (size_t)n] += v;
}

#endif
