/*
 * cholesky.h (internal): dense symmetric positive definite solves for the small least-squares
 * problems of the KKT test and of the polish (kkt_check.c, kkt_polish.c).
 */
#ifndef RS_NLP_CHOLESKY_H
#define RS_NLP_CHOLESKY_H

/* Factor G + ridge I = L L^T in place (k x k, column-major; the lower triangle of G is read
 * and overwritten by L). 0 if a pivot is not positive (or not finite). */
int rs_cholesky_factor(double *G, int k, double ridge);

/* Solve L L^T v = v in place with the factor of rs_cholesky_factor. */
void rs_cholesky_solve(const double *G, int k, double *v);

#endif
