/*
 * relaxsim/lcp_derivative.h: derivatives of an LCP's solution ("Differentiating an LCP",
 * Werling & Liu, note 002).
 *
 * Convention (one, stated: the note switches between A f - b and A f + b): w = M z + q with
 * 0 <= z _|_ w >= 0. At a solution z each index is clamping (z_i > 0 = w_i), separating
 * (z_i = 0 < w_i) or floating (z_i = w_i = 0). Perturbing (M, q) along (dM, dq) with the index sets
 * fixed, differentiating w = M z + q gives dw = M dz + r with r = dM z + dq, and
 *     separating: dz_i = 0;   clamping: dw_i = 0, i.e. M_CC dz_C = -r_C   (the note's result).
 * The note's "A_CC is PSD and therefore invertible" is false (erratum: two redundant contacts give
 * a singular M_CC): M_CC is factorised by a singular value decomposition; a rank-deficient block
 * gives the minimum-norm dz_C and the status RS_LCP_DERIVATIVE_SINGULAR, never an inf or NaN.
 *
 * Floating indices make z(t) = z(M + t dM, q + t dq) only one-sidedly differentiable. Three
 * rules: treat them as clamping, or as separating (a tie-break: the derivative of one piece), or
 * EXACT: the right derivative lim_{t -> 0+} (z(t) - z)/t along the given direction, which solves
 * the derivative LCP over the floating set F (with the clamping C, S = M_FF - M_FC M_CC^-1 M_CF):
 *     0 <= dz_F _|_ S dz_F + (r_F - M_FC M_CC^-1 r_C) >= 0,   dz_C = -M_CC^-1 (r_C + M_CF dz_F).
 * The left derivative along d is minus the right derivative along -d. When S is a P-matrix
 * (M a P-matrix, say) this derivative is unique; otherwise it is the one Lemke finds.
 */
#ifndef RELAXSIM_LCP_DERIVATIVE_H
#define RELAXSIM_LCP_DERIVATIVE_H

#include "relaxsim/error.h"
#include "relaxsim/export.h"
#include "relaxsim/lcp.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How floating indices (z_i = w_i = 0) are differentiated. */
typedef enum rs_lcp_floating_rule {
    RS_LCP_FLOATING_EXACT = 0,     /**< the one-sided (right) derivative along the direction, from
                                        the derivative LCP over the floating indices */
    RS_LCP_FLOATING_CLAMPING = 1,  /**< tie-break: floating indices move with the clamping ones */
    RS_LCP_FLOATING_SEPARATING = 2 /**< tie-break: floating indices stay at zero */
} rs_lcp_floating_rule;

/** Settings. Fill with rs_lcp_derivative_settings_default() then change fields. */
typedef struct rs_lcp_derivative_settings {
    size_t size;      /**< sizeof(rs_lcp_derivative_settings): set by
                           rs_lcp_derivative_settings_default */
    double index_tol; /**< relative: an index's z_i is zero when
                           |z_i| <= index_tol max(||z||_inf, z_floor), its w_i when
                           |w_i| <= index_tol max(||q||_inf, ||M z||_inf, w_floor) (exact zeros
                           when those are 0). Range [0, 1). Default 1e-9. */
    double rank_tol;  /**< singular values of M_CC below rank_tol times the largest count as zero.
                           Range [0, 1). Default 1e-12. */
    double z_floor;   /**< the scale of z is max(||z||_inf, z_floor): a caller who knows the
                           problem's units (an LCP posed in natural units: 1) keeps a tiny z of a
                           tiny solution from counting as nonzero. Range [0, inf). Default 0. */
    double w_floor;   /**< the same for w's scale. Range [0, inf). Default 0. */
    rs_lcp_floating_rule floating; /**< Default RS_LCP_FLOATING_EXACT (a Jacobian, which has no
                                        direction, uses CLAMPING for EXACT and reports it). */
} rs_lcp_derivative_settings;

/** Fill every field with its default. No-op on NULL. */
RS_API void rs_lcp_derivative_settings_default(rs_lcp_derivative_settings *settings);

/** Outcome of a derivative (the call itself returned RS_OK). */
typedef enum rs_lcp_derivative_status {
    RS_LCP_DERIVATIVE_OK = 0,           /**< M_CC of full rank (and the floating LCP solved) */
    RS_LCP_DERIVATIVE_SINGULAR = 1,     /**< M_CC rank deficient: the minimum-norm answer */
    RS_LCP_DERIVATIVE_FLOATING_FAILED = 2, /**< EXACT: the derivative LCP over the floating set
                                            was not solved (or M_CC singular there): the CLAMPING
                                            tie-break's answer is returned */
    RS_LCP_DERIVATIVE_NOT_SOLUTION = 3, /**< some index is neither clamping, separating nor
                                            floating at the tolerance (z is not a solution):
                                            nothing computed, dz / J set to 0 */
    RS_LCP_DERIVATIVE_INCONSISTENT = 4  /**< M_CC singular and -r_C not in its range: no dz keeps
                                            the clamping equations (the index sets must change
                                            along this direction); the least-squares minimum-norm
                                            dz is returned, info.residual says by how much it
                                            misses */
} rs_lcp_derivative_status;

/** Name of a status: "ok", "singular", "floating_failed", "not_solution", "inconsistent".
 *  Never NULL. */
RS_API const char *rs_lcp_derivative_status_name(rs_lcp_derivative_status status);

typedef struct rs_lcp_derivative_info {
    size_t size;                  /**< sizeof(rs_lcp_derivative_info), set by the caller */
    rs_lcp_derivative_status status;
    int nclamping, nseparating, nfloating; /**< the index sets found */
    int rank;                     /**< rank of the clamping block solved (floating ones included
                                       when treated as clamping) */
    double condition;             /**< its largest / smallest singular value (INFINITY if
                                       singular; 1 for an empty block) */
    double residual;              /**< max |(M dz + dM z + dq)_i| over the clamping equations
                                       solved, relative to the largest term in them: 0 to
                                       rounding unless the status is inconsistent */
    rs_lcp_floating_rule floating_used; /**< the rule actually applied */
} rs_lcp_derivative_info;

/**
 * Directional derivative dz of the solution z of LCP(M, q) along (dM, dq).
 * @param n       size >= 1
 * @param M       n x n, column-major; q: n
 * @param z       a solution (certified by the caller, e.g. by rs_lemke_solve)
 * @param dM      n x n direction of M (NULL: zero); dq: direction of q (NULL: zero)
 * @param settings NULL: defaults
 * @param classes optional output: each index's class (n entries)
 * @param dz      output: n entries
 * @param info    output (info->size = sizeof *info)
 * @param detail  optional: why the call was refused
 * @return RS_OK (see info->status); RS_ERR_NULL_ARG, RS_ERR_DIMENSION, RS_ERR_BAD_SETTING (a
 *         field, or a size), RS_ERR_BAD_ARG (a non-finite entry) or RS_ERR_NOMEM, with dz
 *         untouched.
 */
RS_API rs_error rs_lcp_directional_derivative(int n, const double *M, const double *q,
                                              const double *z, const double *dM,
                                              const double *dq,
                                              const rs_lcp_derivative_settings *settings,
                                              rs_lcp_index_class *classes, double *dz,
                                              rs_lcp_derivative_info *info,
                                              rs_error_detail *detail);

/**
 * Jacobian J = dz/dq (n x n, column-major: J[i + j n] = dz_i / dq_j) with the index sets fixed:
 * -pinv(M_KK) on the rows and columns of K, zero elsewhere, where K is the clamping set (and the
 * floating one under RS_LCP_FLOATING_CLAMPING or EXACT). Arguments and returns as above.
 */
RS_API rs_error rs_lcp_jacobian_q(int n, const double *M, const double *q, const double *z,
                                  const rs_lcp_derivative_settings *settings, double *J,
                                  rs_lcp_derivative_info *info, rs_error_detail *detail);

#ifdef __cplusplus
}
#endif

#endif /* RELAXSIM_LCP_DERIVATIVE_H */
