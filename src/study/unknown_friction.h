/*
 * unknown_friction.h (internal): note 001 section 3.2's question, measured. Fit the sliding
 * block's mu from an observed trajectory, solving the step's LCP in every iteration, with the
 * gradient taken through the LCP's index sets and through the relaxed NLP (sim/gradient.h),
 * against a derivative-free baseline.
 *
 * The observation: the positions x_1 .. x_N of problems/scenarios/sliding_block_traditional.ini
 * (a 1 kg block at 2 m/s pushed by 1 N, mu = 0.5: it slides for 0.52 s, then sticks), from the
 * Lemke trajectory at the true mu. The loss L(mu) = sum_k (x_k(mu) - x_k,observed)^2. Methods,
 * from each start mu0:
 *   lcp      Gauss-Newton on the residuals with dx_k/dmu from the LCP's forward mode and x_k
 *            from the Lemke trajectory: mu <- mu - sum r_k J_k / sum J_k^2;
 *   nlp      the same with the NLP trajectory's positions and the KKT sensitivity's dx_k/dmu;
 *   golden   golden-section search of L (Lemke trajectories) on [0.001, 10], no derivatives.
 * Each stops when its step (or bracket) is below 1e-10 mu, at 60 iterations (golden: 240), or when
 * its gradient vanishes (sum J_k^2 = 0: the block stuck throughout, where the LCP's gradient is 0).
 * A second observation makes that case: the block at rest pushed by 3 N with mu = 0.2 slides;
 * from any mu >= 0.306 the model sticks throughout.
 * Reported: iterations, trajectories solved, the final mu and its error, each method's path of
 * estimates, and the loss curve L(mu) over [0.01, 10].
 */
#ifndef RS_STUDY_UNKNOWN_FRICTION_H
#define RS_STUDY_UNKNOWN_FRICTION_H

#include "study/study_progress.h"
#include "relaxsim/error.h"

#define RS_FIT_MAX_STARTS 8
#define RS_FIT_MAX_PATH 242 /* the start and at most 240 golden-section iterations */
#define RS_FIT_CURVE 61     /* points of the loss curve */

typedef enum rs_fit_method { RS_FIT_LCP = 0, RS_FIT_NLP = 1, RS_FIT_GOLDEN = 2 } rs_fit_method;
#define RS_FIT_METHODS 3
const char *rs_fit_method_name(rs_fit_method m); /* "lcp", "nlp", "golden" */

typedef struct rs_fit_outcome {
    double mu;        /* the final estimate */
    double rel_error; /* |mu - mu_true| / mu_true */
    int iterations;
    int trajectories; /* trajectories solved (an iteration of lcp or nlp solves both: the
                         gradient run) */
    int converged;    /* rel_error <= 1e-6 */
    const char *stop; /* "step below 1e-10 mu", "iteration limit", "zero gradient", ... */
    int npath;
    double path[RS_FIT_MAX_PATH]; /* the estimate at the start and after each iteration (golden:
                                     the bracket's midpoint) */
} rs_fit_outcome;

typedef struct rs_fit_result {
    double mu_true;
    int nstarts;
    double start[RS_FIT_MAX_STARTS];
    rs_fit_outcome out[RS_FIT_MAX_STARTS][RS_FIT_METHODS];
    double curve_mu[RS_FIT_CURVE], curve_loss[RS_FIT_CURVE]; /* L(mu), mu log-spaced over
                                                                 [0.01, 10] (NaN: a failed step) */
    double time_s;
} rs_fit_result;

/* Run the study for the scenario file with its overrides (section.key=value; its mu is the
 * truth) from starts[0..nstarts); progress (may be NULL) is told of the loss curve's points and
 * the fits done, of RS_FIT_CURVE + nstarts RS_FIT_METHODS. An error says why in detail (may be
 * NULL). */
rs_error rs_fit_run(const char *scenario_path, const char *const *sets, int nsets,
                    const double *starts, int nstarts, const rs_study_progress *progress,
                    rs_fit_result *out, rs_error_detail *detail);

#endif
