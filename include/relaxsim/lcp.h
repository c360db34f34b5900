/*
 * relaxsim/lcp.h: the linear complementarity problem, its certificate, and Lemke's method.
 *
 * The LCP(M, q): find z in R^n with
 *
 *     w = M z + q,   z >= 0,   w >= 0,   z_i w_i = 0 for every i.
 *
 * Convention used throughout relaxsim: w = M z + q (plus sign). Every dense matrix is stored
 * COLUMN-MAJOR: M(i, j) is M[i + j * n] (the LAPACK and Siconos convention).
 */
#ifndef RELAXSIM_LCP_H
#define RELAXSIM_LCP_H

#include <stddef.h>

#include "relaxsim/error.h"
#include "relaxsim/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------
 * Certificate: how well a candidate z solves LCP(M, q), recomputed from (M, q, z) alone.
 * ---------------------------------------------------------------------------------------------- */

/**
 * Certificate of a candidate solution z of LCP(M, q). All quantities are recomputed from M, q, z;
 * no solver's own word is used. The relative measures are taken in the units of the
 * equilibrated problem (D M C, D q, z / C, D w; D and C the powers of two of a Ruiz
 * equilibration of M, which leaves every row and column of D M C of size about 1), with no
 * absolute floor. With S = ||D q||_inf (for q = 0, the largest D_i (|M| |z|)_i), m = ||D M C||_max
 * and P = max |D_i q_i| over the rows with q_i < 0 (S when q >= 0):
 *   z in scale_z = max(||z / C||_inf, P / m), each z_i as z_i / C_i (P / m: the problem's own
 *     scale of z, which does not vanish with z)
 *   w row by row, each w_i as D_i w_i in scale_w_i = max(|D_i q_i|, min(m scale_z, S)) (its row's
 *     own data or what z moves it by, never more than S: a row of extreme data does not
 *     hide the others' violations; a row whose data is below tol of min(m scale_z, S) is
 *     judged at that resolution, see docs/certificates.md, known limits)
 * The rows and columns of a contact LCP carry different units (velocity rows and force rows;
 * impulses and a sliding speed): these measures do not depend on them (up to factors of 2 to 4,
 * the equilibration's rounding to powers of two), nor on the scale of the whole problem. A zero
 * scale comes only with zero quantities, whose measure is 0. docs/certificates.md explains the
 * choice.
 */
typedef struct rs_lcp_certificate {
    size_t size;                    /**< sizeof(rs_lcp_certificate): set by the caller of
                                         rs_lcp_certificate_compute and rs_lcp_solve_relaxed
                                         (the one inside rs_lemke_info is set by the library) */
    double min_z;                   /**< min_i z_i (>= 0 for a solution) */
    double min_w;                   /**< min_i w_i, w = M z + q (>= 0 for a solution) */
    double max_complementarity;     /**< max_i |z_i w_i| */
    double natural_residual;        /**< ||min(z, w)||_inf, zero exactly at a solution */
    double rel_min_z;               /**< min_i (z_i / C_i) / scale_z */
    double rel_min_w;               /**< min_i (D_i w_i) / scale_w_i */
    double rel_max_complementarity; /**< max_i |z_i / C_i / scale_z * D_i w_i / scale_w_i| */
    double rel_natural_residual;    /**< max_i |min(z_i / C_i / scale_z, D_i w_i / scale_w_i)| */
    int finite;                     /**< 1 if z and w are all finite, 0 otherwise */
    int passed;                     /**< 1 if the certificate passes the tolerance it was judged with */
} rs_lcp_certificate;

/** Default certificate tolerance on the relative measures (see rs_lcp_certificate_passes). */
#define RS_LCP_CERT_TOL_DEFAULT 1e-9

/**
 * Compute the certificate of z for LCP(M, q) and judge it with tolerance tol:
 * passed = finite && rel_min_z >= -tol && rel_min_w >= -tol && rel_natural_residual <= tol
 *          && rel_max_complementarity <= tol.
 *
 * @param n     problem size, n >= 1
 * @param M     n*n column-major matrix (read only)
 * @param q     n-vector (read only)
 * @param z     candidate solution, n-vector (read only)
 * @param tol   tolerance on the relative measures, finite and > 0
 * @param w     optional output n-vector receiving M z + q (may be NULL)
 * @param cert  output certificate (cert->size = sizeof *cert)
 * @param detail optional: why the call was refused
 * @return RS_OK; RS_ERR_NULL_ARG, RS_ERR_DIMENSION, RS_ERR_BAD_SETTING (tol, or cert->size),
 *         RS_ERR_NONFINITE (M or q not finite), or RS_ERR_NOMEM (n > 64: 4 n doubles of scratch
 *         could not be allocated); nothing written on an error.
 *         Non-finite entries in z are not an error: they give finite = 0 and passed = 0.
 */
RS_API rs_error rs_lcp_certificate_compute(int n, const double *M, const double *q, const double *z,
                                           double tol, double *w, rs_lcp_certificate *cert,
                                           rs_error_detail *detail);

/* ------------------------------------------------------------------------------------------------
 * Index sets (names from "Differentiating an LCP", Werling & Liu)
 * ---------------------------------------------------------------------------------------------- */

/** Which side of the complementarity pair (z_i, w_i) is active. */
typedef enum rs_lcp_index_class {
    RS_LCP_CLAMPING = 0,        /**< z_i > tol, |w_i| <= tol: the constraint pushes */
    RS_LCP_SEPARATING = 1,      /**< |z_i| <= tol, w_i > tol: the pair is apart */
    RS_LCP_FLOATING = 2,        /**< |z_i| <= tol, |w_i| <= tol: degenerate, both zero */
    RS_LCP_NOT_COMPLEMENTARY = 3/**< neither: z_i > tol and w_i > tol, or a value < -tol or NaN */
} rs_lcp_index_class;

/** Name of an index class: "clamping", "separating", "floating", "not_complementary". */
RS_API const char *rs_lcp_index_class_name(rs_lcp_index_class c);

/**
 * Classify every component of a pair (z, w) with absolute tolerance tol >= 0.
 * @param classes output array of n entries
 * @return RS_OK, RS_ERR_NULL_ARG, RS_ERR_DIMENSION (n < 1) or RS_ERR_BAD_SETTING (tol < 0 or NaN).
 */
RS_API rs_error rs_lcp_classify(int n, const double *z, const double *w, double tol,
                                rs_lcp_index_class *classes,
                                rs_error_detail *detail);

/* ------------------------------------------------------------------------------------------------
 * Lemke's method
 * ---------------------------------------------------------------------------------------------- */

/** Outcome of a Lemke solve (the call itself returned RS_OK). */
typedef enum rs_lemke_status {
    RS_LEMKE_SOLVED = 0,          /**< z0 left the basis and the certificate passed */
    RS_LEMKE_RAY_TERMINATION = 1, /**< no blocking row for the entering variable: the LCP is
                                       infeasible or not processable by Lemke's method (a z
                                       that passes its certificate there is reported solved) */
    RS_LEMKE_MAX_PIVOTS = 2,      /**< the pivot limit was reached */
    RS_LEMKE_BREAKDOWN = 3,       /**< numerical breakdown: a non-finite or vanishing pivot, a
                                       terminal basis whose certificate failed, or a path that
                                       repeats a basis (it cycles on rounding) */
    RS_LEMKE_NOT_CERTIFIED = 4,   /**< set by the time stepper, never by the solver: the LCP was
                                       solved but the step's recomputed physical certificate
                                       failed (the model's LCP admits an unphysical answer) */
    RS_LEMKE_TOO_LARGE = 5        /**< set by the time stepper: the step has more contacts than
                                       the model's LCP takes; nothing was solved */
} rs_lemke_status;

/** Name of a status as used in JSON output: "solved", "ray_termination", "max_pivots", "breakdown",
 *  "not_certified", "too_large". */
RS_API const char *rs_lemke_status_name(rs_lemke_status status);

/** Settings of Lemke's method. Fill with rs_lemke_settings_default() then change fields. */
typedef struct rs_lemke_settings {
    size_t size;        /**< sizeof(rs_lemke_settings): set by rs_lemke_settings_default */
    int max_pivots;     /**< limit on info.pivots, every attempt of a solve together (the
                             balanced problem and other covering vectors, rs_lemke_info); 0
                             means automatic: 10000 + 100 n. Range >= 0. */
    double pivot_tol;   /**< an entering-column entry counts as positive when > pivot_tol
                             (relative to the column's inf-norm). Range (0, 1e-3]. Default 1e-11. */
    double tie_tol;     /**< two ratios are tied when they differ by at most
                             tie_tol * max(1, |ratio|), on the problem scaled to unit size
                             (M, q and d divided by powers of two near their largest entries:
                             scale invariant); ties are broken lexicographically.
                             Range [0, 1e-3]. Default 1e-12. */
    double cert_tol;    /**< certificate tolerance on the relative measures for "solved".
                             Range (0, 1). Default RS_LCP_CERT_TOL_DEFAULT. */
    int refine;         /**< re-solve the final basis by LU with partial pivoting, refine
                             that solve iteratively (up to two sweeps, the residual in long
                             double) and keep whichever z has the smallest natural residual:
                             0 never, 1 only when the pivoted answer fails its certificate,
                             2 always. Default 1. */
} rs_lemke_settings;

/** Fill every field of *settings with its default. No-op on NULL. */
RS_API void rs_lemke_settings_default(rs_lemke_settings *settings);

/**
 * Check every field of settings against its documented range.
 * @param field_out if not NULL, receives the name of the first bad field (static string) or NULL.
 * @return RS_OK, RS_ERR_NULL_ARG or RS_ERR_BAD_SETTING.
 */
RS_API rs_error rs_lemke_settings_validate(const rs_lemke_settings *settings, const char **field_out);

/** Result information of a Lemke solve. The solver reads no clock (at n = 2 two clock reads
 *  would cost a third of a solve): a caller that wants the time measures around the call. */
typedef struct rs_lemke_info {
    size_t size;              /**< sizeof(rs_lemke_info), set by the caller */
    rs_lemke_status status;   /**< outcome */
    int pivots;               /**< complementary pivots after the initial entry of z0 (the
                                   Siconos count: Murty's example of size n takes 2^n - 1) */
    int refined;              /**< 1 if the final LU re-solve of the basis was kept */
    int warm_started;         /**< rs_lemke_solve_warm: 1 if the guessed basis was accepted */
    int equilibrated;         /**< 1 if the problem as given failed (a ray, or an answer its
                                   certificate refuses) and the answer comes from the same
                                   problem balanced, S M S and S q with S a diagonal of powers
                                   of two; 2 if that and other covering vectors failed too and
                                   the answer comes from its rows scaled, R M and R q with R_i a
                                   power of two near 1 / max(max_j |M_ij|, |q_i|): tried only when
                                   a row to push has |q_i| below 1e-9 of q's largest entry, and
                                   its answer held to each row's own terms as well */
    int covering_changed;     /**< 1 if both failed and the answer comes from the problem as
                                   given with another covering vector, d_i (1 + frac((i + 1)
                                   f)) for f the fractional part of phi, sqrt 2, sqrt 3 or
                                   sqrt 5, tried in that order: Lemke's path depends on d, and
                                   on a degenerate contact LCP the path of d can meet a tie that
                                   rounding resolves onto a ray where another's does not. Such
                                   an answer is kept only if its rows also hold in the
                                   problem's own unit (the largest push -D_i q_i). pivots
                                   counts every attempt's pivots. */
    rs_lcp_certificate cert;  /**< certificate of the returned z (judged with cert_tol) */
} rs_lemke_info;

/**
 * Workspace in bytes that rs_lemke_solve needs for a problem of size n (0 if n < 1 or too large).
 * It grows as 3 n^2 doubles: the basis inverse, the LU factors of the final re-solve and the
 * balanced M of the second attempt (3 n^2 + 16 n doubles and 4 n ints).
 */
RS_API size_t rs_lemke_workspace_size(int n);

/**
 * Solve LCP(M, q) by lexicographic Lemke's method with covering vector d. Does not allocate.
 *
 * Pivots on the system  w - M z - d z0 = q  starting from the basis {w}. Ties in the ratio test
 * are broken by the lexicographic rule on the rows of the basis inverse, which makes degenerate
 * problems terminate; when z0 is among the tied leaving candidates it leaves (termination).
 * If q >= 0 the answer is z = 0 with 0 pivots.
 *
 * @param n          problem size, n >= 1
 * @param M          n*n column-major, finite (read only)
 * @param q          n-vector, finite (read only)
 * @param d          covering vector, n entries all > 0 and finite, or NULL for e = (1, ..., 1);
 *                   when the path from it ends on a ray, the balanced problem (with S d, or
 *                   with the balanced problem's own e when d is NULL), another covering
 *                   vector and the problem with its rows scaled are tried
 *                   (rs_lemke_info.equilibrated, covering_changed), each answer kept only if
 *                   its certificate passes
 * @param settings   settings, or NULL for the defaults
 * @param work       workspace of at least rs_lemke_workspace_size(n) bytes, aligned for double
 * @param work_bytes size of work in bytes
 * @param z          output n-vector: the solution (or the last iterate when not solved)
 * @param w          output n-vector: M z + q
 * @param info       output information (info->size = sizeof *info)
 * @param detail     optional: why the call was refused
 * @return RS_OK (then info->status says whether it was solved); RS_ERR_NULL_ARG,
 *         RS_ERR_DIMENSION, RS_ERR_NONFINITE, RS_ERR_BAD_ARG (d has an entry <= 0),
 *         RS_ERR_BAD_SETTING (a field, or a size) or RS_ERR_WORKSPACE, in which case z, w and
 *         info are untouched.
 */
RS_API rs_error rs_lemke_solve(int n, const double *M, const double *q, const double *d,
                               const rs_lemke_settings *settings, void *work, size_t work_bytes,
                               double *z, double *w, rs_lemke_info *info,
                               rs_error_detail *detail);

/**
 * Lemke with a guessed complementary basis, e.g. the previous time step's: basis_guess[i] = 1
 * when z_i is basic (clamping), 0 when w_i is. The basis system B x = q is solved by LU with
 * partial pivoting; if the z it gives passes the certificate (cert_tol), that is the answer, with
 * 0 pivots and info->warm_started = 1. Otherwise (a wrong guess, a singular basis) the call falls
 * back to the cold lexicographic solve of rs_lemke_solve, info->warm_started = 0. A guess can
 * thus cost time but never correctness. Arguments as rs_lemke_solve, plus basis_guess (n flags,
 * not NULL); same workspace.
 */
RS_API rs_error rs_lemke_solve_warm(int n, const double *M, const double *q, const double *d,
                                    const rs_lemke_settings *settings,
                                    const unsigned char *basis_guess, void *work,
                                    size_t work_bytes, double *z, double *w, rs_lemke_info *info,
                                    rs_error_detail *detail);

/**
 * Convenience wrapper: provides the workspace, calls rs_lemke_solve and frees it: on the stack
 * up to 8 KiB (n <= 15), from the heap above. Same arguments and results, plus RS_ERR_NOMEM.
 */
RS_API rs_error rs_lemke_solve_alloc(int n, const double *M, const double *q, const double *d,
                                     const rs_lemke_settings *settings, double *z, double *w,
                                     rs_lemke_info *info, rs_error_detail *detail);

#ifdef __cplusplus
}
#endif

#endif /* RELAXSIM_LCP_H */
