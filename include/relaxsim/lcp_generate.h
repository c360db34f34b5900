/*
 * relaxsim/lcp_generate.h: seeded generators of LCPs with a known solution.
 *
 * Each generator draws M from its class, then a complementary pair z*, w* >= 0 (z*_i w*_i = 0),
 * and sets q = w* - M z*, so z* is a solution of LCP(M, q) by construction. The random numbers
 * come from a portable 64-bit generator: the same (class, n, seed, degenerate) gives bitwise
 * the same problem on every platform.
 */
#ifndef RELAXSIM_LCP_GENERATE_H
#define RELAXSIM_LCP_GENERATE_H

#include <stdint.h>

#include "relaxsim/error.h"
#include "relaxsim/export.h"
#include "relaxsim/lcp_file.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Matrix classes of the generator. */
typedef enum rs_lcp_class {
    RS_LCP_CLASS_SPD = 0,     /**< symmetric positive definite: A A' + 0.1 n I (unique solution) */
    RS_LCP_CLASS_PMATRIX = 1, /**< nonsymmetric P-matrix, not positive definite in general:
                                   D (A A' + 0.1 n I + K), D positive diagonal, K skew */
    RS_LCP_CLASS_PSD = 2,     /**< positive semidefinite and singular: B B' + K, B of rank
                                   ceil(n/2), K skew (solution need not be unique) */
    RS_LCP_CLASS_FRICTION = 3 /**< Stewart-Trinkle frictional contact step LCP (see below) */
} rs_lcp_class;

/** Name of a class ("spd", "pmatrix", "psd", "friction"). Never NULL. */
RS_API const char *rs_lcp_class_name(rs_lcp_class c);

/** Parse a class name; returns RS_ERR_BAD_ARG for an unknown name (detail, optional, says which
 *  names are known). */
RS_API rs_error rs_lcp_class_parse(const char *name, rs_lcp_class *out, rs_error_detail *detail);

/**
 * Generate LCP(M, q) of class cls and size n with known solution.
 *
 * friction: rigid bodies (6 velocity coordinates each, random inertia) touched by contacts with
 * random points and normals. Per 3-D contact the unknowns are (lambda_n, beta_1..4, gamma):
 * the normal impulse, impulses along four tangent directions (+t1, +t2, -t1, -t2) and the
 * sliding-speed multiplier; with G = J Mass^-1 J' for the stacked contact Jacobian J = [N; D],
 *     w_n    = N' v+ (+ gap / dt)     = (G z)_n + q_n            _|_ lambda_n
 *     w_beta = D' v+ + gamma e        = (G z)_D + gamma e + q_D  _|_ beta
 *     w_gam  = mu lambda_n - e' beta                             _|_ gamma
 * so M = [[G_NN, G_ND, 0], [G_DN, G_DD, E], [mu, -E', 0]] and q = [q_n; q_D; 0]. Sizes that are
 * not a multiple of 6 are filled with one planar contact (2 tangent directions, 4 unknowns) and
 * frictionless contacts (1 unknown). Modes (separating, sticking, sliding) are drawn per contact.
 *
 * degenerate: a third of the components (or contacts) are made floating (z_i = w_i = 0) and ties
 * are introduced, the hard case for pivoting rules.
 *
 * @param n     size, 1 <= n <= RS_LCP_FILE_MAX_N
 * @param out   receives the new LCP (free with rs_lcp_destroy)
 * @param z_star, w_star optional outputs (n-vectors, may be NULL): the known solution and M z*+q
 * @param detail optional: why the call was refused
 * @return RS_OK, RS_ERR_NULL_ARG, RS_ERR_DIMENSION, RS_ERR_BAD_ARG or RS_ERR_NOMEM.
 */
RS_API rs_error rs_lcp_generate(rs_lcp_class cls, int n, uint64_t seed, int degenerate,
                                rs_lcp **out, double *z_star, double *w_star,
                                rs_error_detail *detail);

#ifdef __cplusplus
}
#endif

#endif /* RELAXSIM_LCP_GENERATE_H */
