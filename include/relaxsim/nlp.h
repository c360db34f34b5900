/*
 * relaxsim/nlp.h: settings and outcomes of the relaxed-complementarity NLP solves (IPOPT 3.11 with
 * MUMPS), and the relaxation of an LCP as an NLP.
 *
 * Relaxation: a complementarity pair a b = 0 with a, b >= 0 becomes the slack constraint
 * s - a b >= 0 with s >= 0, and the objective penalises s (sum s or sum s^2). Euclidean norms are
 * smoothed as ssqrt(y) = sqrt(y + eps^2) - eps, which is zero and differentiable at y = 0.
 */
#ifndef RELAXSIM_NLP_H
#define RELAXSIM_NLP_H

#include "relaxsim/error.h"
#include "relaxsim/export.h"
#include "relaxsim/lcp.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Outcome of an NLP solve (the call itself returned RS_OK). */
typedef enum rs_nlp_status {
    RS_NLP_SOLVED = 0,              /**< IPOPT converged to tol */
    RS_NLP_ACCEPTABLE = 1,          /**< IPOPT stopped at its acceptable level */
    RS_NLP_INFEASIBLE = 2,          /**< IPOPT detected local infeasibility */
    RS_NLP_MAX_ITER = 3,            /**< iteration limit */
    RS_NLP_RESTORATION_FAILED = 4,  /**< the feasibility restoration phase failed */
    RS_NLP_EVAL_ERROR = 5,          /**< a callback returned a non-finite value */
    RS_NLP_OTHER_FAILURE = 6,       /**< any other IPOPT return code (see info.ipopt_status) */
    RS_NLP_NOT_CERTIFIED = 7,       /**< IPOPT reported success but the recomputed physical
                                         residuals exceed the tolerance */
    RS_NLP_TOO_LARGE = 8,           /**< time stepping: the step has more contacts than the
                                         model's NLP (or LCP) takes; nothing was solved */
    RS_NLP_TINY_STEP = 9            /**< IPOPT stopped on a search direction too small to move
                                         the point (Search_Direction_Becomes_Too_Small): a row's
                                         residual at the rounding of its terms, above tol. Like
                                         acceptable, an answer only once its recomputed physical
                                         residuals pass (else not_certified) */
} rs_nlp_status;

/** Name of a status: "solved", "acceptable", "infeasible", "max_iter", "restoration_failed",
 *  "eval_error", "other_failure", "not_certified", "too_large", "tiny_step". Never NULL. */
RS_API const char *rs_nlp_status_name(rs_nlp_status status);

/** 1 if the status counts as a successful step (solved, acceptable or tiny_step: every one
 *  judged by the recomputed residuals where a caller certifies), else 0. */
RS_API int rs_nlp_status_ok(rs_nlp_status status);

/** Penalty on the complementarity slacks in the objective. */
typedef enum rs_nlp_penalty {
    RS_NLP_PENALTY_L1 = 0, /**< weight * sum s_i (exact penalty: complementarity is exact for a
                                large enough weight) */
    RS_NLP_PENALTY_L2 = 1  /**< weight * sum s_i^2 (the blog post's objective) */
} rs_nlp_penalty;

/** Settings of the NLP solves. Fill with rs_nlp_settings_default(), then change fields. */
typedef struct rs_nlp_settings {
    size_t size;            /**< sizeof(rs_nlp_settings): set by rs_nlp_settings_default */
    double tol;             /**< IPOPT tol (relative KKT error). Range (0, 1). Default 1e-10. */
    int max_iter;           /**< IPOPT max_iter. Range [1, 100000]. Default 200. */
    double eps;             /**< smoothing of norms, ssqrt(y) = sqrt(y + eps^2) - eps, in the
                                 units of the norm as the NLP poses it: in time stepping, relative
                                 to the step's natural force (dimensionless). Range (0, 1].
                                 Default 1e-10. */
    rs_nlp_penalty penalty; /**< slack penalty shape. Default RS_NLP_PENALTY_L1. */
    double penalty_weight;  /**< weight of the slack penalty. Range (0, 1e12]. Default 1. */
    int warm_start;         /**< 1: start each step from the previous step's primal-dual point
                                 (warm_start_init_point). Default 1. */
    double mu_init;         /**< IPOPT mu_init for warm-started solves; cold solves use IPOPT's
                                 default 0.1. Range (0, 1]. Default 1e-11 (0.1 x tol: the
                                 warm start is already near the solution). */
    int retries;            /**< after a failed first IPOPT solve: at most this many fallback
                                 paths (time stepping: a cold start from the contact-free
                                 prediction, then a barrier homotopy). Range [0, 5]. Default 2. */
    double cert_tol;        /**< tolerance of the recomputed residuals for a step to count as
                                 solved. Range (0, 1). Default 1e-6. */
    int check_start;        /**< time stepping: 1 to run a KKT test of candidate points
                                 before calling IPOPT: the previous step's primal-dual solution,
                                 the contact-free prediction (least-squares multipliers) and,
                                 with polish, the previous solution polished for the step, each
                                 against the step NLP's optimality conditions at tol as posed
                                 (IPOPT itself would first push the point into the interior). A
                                 candidate that passes is the step's solution, 0 iterations (a
                                 body at rest, a free flight, a block sliding on). Default 1. */
    int relax_lcp;          /**< time stepping: 1 to solve the relaxation of the step's LCP even
                                 when the model has an NLP of its own (the scenario's [nlp] form =
                                 relaxation); 0: the model's own NLP when it has one (form = own).
                                 Default 0. */
    int polish;             /**< time stepping: 1 to polish IPOPT's answer on its active set
                                 (every variable and constraint within 1e-4 of a bound, then
                                 1e-6, in the NLP's natural units, held there; the rest solved
                                 by Gauss-Newton steps), kept when the polished point is itself
                                 a solution of the step's NLP to tol with every penalised slack
                                 at 0, and passes the KKT test: the
                                 pairs both of whose sides vanish, which IPOPT leaves near
                                 sqrt(its final barrier parameter), then vanish exactly (no
                                 creep at rest, no repulsion after an impact). With check_start,
                                 the previous answer polished for a step is also tried before
                                 IPOPT (path start_polished). IPOPT's own answer on every step:
                                 polish = 0 and check_start = 0. Default 1. */
    int print_level;        /**< IPOPT's print_level (its iteration log on stdout), 0 .. 12.
                                 Default 0 (silent); relaxsim replay --ipopt-print-level sets it. */
} rs_nlp_settings;

/** Fill every field with its default. No-op on NULL. */
RS_API void rs_nlp_settings_default(rs_nlp_settings *settings);

/** Check each field; on a bad one return RS_ERR_BAD_SETTING and its name in *field_out. */
RS_API rs_error rs_nlp_settings_validate(const rs_nlp_settings *settings, const char **field_out);

/** Result information of one NLP solve (one time step, all attempts). */
typedef struct rs_nlp_info {
    size_t size;           /**< sizeof(rs_nlp_info), set by the caller */
    rs_nlp_status status;  /**< outcome of the last attempt */
    int ipopt_status;      /**< IPOPT's ApplicationReturnStatus of the last attempt */
    int iterations;        /**< IPOPT iterations of all attempts together */
    int attempts;          /**< 1 + the number of retries used */
    double solve_time_s;   /**< wall time of all attempts, seconds */
    double primal_infeasibility; /**< max violation of constraints and bounds, recomputed */
    double complementarity; /**< max physical complementarity product |a b|, recomputed */
} rs_nlp_info;

/**
 * Solve LCP(M, q) through its relaxation as an NLP with IPOPT: variables z and slacks s,
 * constraints w = M z + q >= 0 and s_i - z_i w_i >= 0, bounds z, s >= 0, objective the slack
 * penalty. IPOPT works on a Ruiz-equilibrated copy D M C, D q (same solutions, z = C z'). The
 * certificate of the returned z is recomputed from (M, q, z) as for Lemke and judged with
 * cert_tol; a solve IPOPT reports as successful whose certificate fails has status
 * RS_NLP_NOT_CERTIFIED. Failed attempts are retried settings->retries times from other points.
 * The accuracy on floating pairs (z_i = w_i = 0) is about sqrt(IPOPT's final barrier
 * parameter): an isolated solve wants settings->tol near 1e-14.
 *
 * @param n        size, 1 <= n <= 2000
 * @param settings NULL for the defaults
 * @param cert_tol tolerance of the certificate, in (0, 1)
 * @param z, w     outputs (n-vectors): the solution and M z + q
 * @param cert     output: certificate of z, judged with tolerance cert_tol
 * @param info     output: status, iterations, time (info->size and cert->size set by the caller)
 * @param detail   optional: why the call was refused
 * @return RS_OK or an argument error (RS_ERR_NULL_ARG, RS_ERR_DIMENSION, RS_ERR_NONFINITE,
 *         RS_ERR_BAD_SETTING: a field or a size, RS_ERR_NOMEM).
 */
RS_API rs_error rs_lcp_solve_relaxed(int n, const double *M, const double *q,
                                     const rs_nlp_settings *settings, double cert_tol, double *z,
                                     double *w, rs_lcp_certificate *cert, rs_nlp_info *info,
                                     rs_error_detail *detail);

#ifdef __cplusplus
}
#endif

#endif /* RELAXSIM_NLP_H */
