/*
 * kkt_check_internal.h (internal): the KKT test's state, shared by the test (kkt_check.c) and
 * the polish (kkt_polish.c), which evaluate the same problem at the same bounds.
 */
#ifndef RS_KKT_CHECK_INTERNAL_H
#define RS_KKT_CHECK_INTERNAL_H

#include <stddef.h>

#include "nlp/kkt_check.h"

struct rs_kkt_check {
    rs_nlp_problem p;
    double *x_l, *x_u, *g_l, *g_u; /* constant bounds */
    double *g, *grad, *J;          /* values at the candidate */
    double *A;                     /* n x k: one column per active bound or constraint side */
    double *G, *y, *dy;            /* k x k normal matrix, k multipliers, a correction */
    double *r;                     /* n: stationarity residual */
    int *kind, *index;             /* what column c stands for */
    /* a problem given as triplets (rs_nlp_problem.structure): J holds the nnz_jac values, jr
     * and jc their rows and columns (the structure is asked for at every check: it follows the
     * context); the least squares need the dense active columns, and are only done for
     * problems up to TRIPLET_LSQ_MAX variables (above, a start point is checked with the
     * multipliers it comes with, then with a polished point's: kkt_check.c) */
    int triplets, lsq;
    int *jr, *jc, *hr, *hc;
    int *column_of_row;            /* m: the active column of constraint row i, or -1 */
    /* the polish's (kkt_polish.c), allocated at its first use and grown when a larger active
     * set needs it */
    double *polish_buf;
    size_t polish_cap;             /* doubles in polish_buf */
    int *polish_idx;               /* each variable's side (0 free, -1 lower, +1 upper) and free
                                      column, each row's held position (2 n + m), then the held
                                      system's entries (3 per Jacobian entry) and group starts */
};

#define TRIPLET_LSQ_MAX 400

#endif
