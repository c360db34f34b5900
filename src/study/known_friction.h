/*
 * known_friction.h (internal): note 000 section 3.1's question, measured. Given the friction
 * forces, can the sliding block's step be learned as
 *
 *     xhat_{k+1} = f(xd_k, u_{k+1}) + G(xd_k, u_{k+1}) lambda_{k+1},   xhat = (xd+, xd-),
 *
 * with f (2x1) and G (2x2) affine in (xd_k, u_{k+1}) with biases (Remark 5), by minimising the
 * note's cost over the data,
 *
 *     c = sum_k  a1 |xhat_k - x_k|_2 + a2 |lambda_k (.) xhat_k|_1 + a3 |max(0, -xhat_k)|_1 .
 *
 * Two variants (section 3.1.1 and 3.1.2): lambda the friction components (lambda+, lambda-)
 * ("direct"), or the slack friction (lambda'-, lambda'+) = (mu m g - lambda-, mu m g - lambda+)
 * ("slack"), the LCP's own w. With c = dt/m the true maps are
 *     direct  f = (xd + c u, -xd - c u),                 G = [[0, -c], [-c, 0]]
 *     slack   f = (xd + c u - c mu m g, -xd - c u - c mu m g),   G = c I.
 * Row i of the prediction is phi_k . theta_i with the 9 features
 *     phi = (1, xd, u, l1, xd l1, u l1, l2, xd l2, u l2)
 * and 9 coefficients per row: 18 in all.
 *
 * The data: `relaxsim dataset` of a sliding_block_direct scenario with random input (default
 * sliding_block_direct_random.ini: seeded random pushes, the block slides both ways and sticks);
 * training on its first train_steps rows, held out: the same scenario with another input seed.
 * Measurement noise (dataset.h): every measured column gets Gaussian noise of standard deviation
 * sigma times its RMS; the input does not.
 *
 * The fit is one IPOPT solve (the relaxation relaxsim uses for steps): the 2-norm smoothed,
 * ssqrt(y) = sqrt(y + eps^2) - eps, and the l1 terms written with slacks,
 *     p_ki >= +-lambda_ki xhat_ki,   q_ki >= -xhat_ki,  q_ki >= 0,
 * penalised by a2 and a3 (each only when its weight is positive), in scaled variables (each
 * feature by its RMS, speeds by the data's RMS speed V), from the least-squares fit. Reported per
 * variant, noise level and weighting: IPOPT's status and iterations; the coefficient error
 * max |theta - theta_true| s_j / V (a coefficient's error times its feature's RMS, in units of V:
 * what it adds to a typical prediction); the note's cost (unsmoothed) at the fit and at the truth
 * on the training data; on the held-out data (noise-free inputs and targets) the RMS prediction
 * error / V and, of the steps where the true block sticks (xd+' = xd-' = 0 exactly), the share the
 * fit predicts to stick, |xd+ - xd-| <= stick_tol V, as it is (affine) and with both outputs
 * clamped at 0 (Remark 4: max(0, xhat)), with the false sticks of each.
 */
#ifndef RS_STUDY_KNOWN_FRICTION_H
#define RS_STUDY_KNOWN_FRICTION_H

#include <stdint.h>

#include "study/study_progress.h"
#include "relaxsim/error.h"
#include "relaxsim/nlp.h"

#define RS_KF_VARIANTS 2 /* 0 direct, 1 slack */
#define RS_KF_MAX_NOISES 8
#define RS_KF_MAX_WEIGHTS 4
#define RS_KF_FEATURES 9
#define RS_KF_MAX_STEPS 500 /* the fit's NLP is posed with dense derivatives: O(steps^2) memory */
const char *rs_kf_variant_name(int variant); /* "direct", "slack" */

typedef struct rs_kf_config {
    int train_steps, test_steps; /* 20 .. RS_KF_MAX_STEPS each */
    int nnoise;
    double noise[RS_KF_MAX_NOISES]; /* sigma, relative to each column's RMS, in [0, 1] */
    int nweight;
    double alpha[RS_KF_MAX_WEIGHTS][3]; /* a1 > 0, a2, a3 >= 0 */
    uint64_t noise_seed;
    double stick_tol; /* relative to V (the data's RMS speed) */
    double eps;       /* the smoothing of the 2-norm, relative to V */
    rs_study_progress progress; /* fits done of RS_KF_VARIANTS nnoise nweight; zero: none */
} rs_kf_config;

void rs_kf_config_default(rs_kf_config *cfg);

typedef struct rs_kf_fit {
    double theta[2][RS_KF_FEATURES]; /* the fitted coefficients, SI */
    rs_nlp_status status;
    int iterations;
    double coef_error;       /* max_ij |theta_ij - theta*_ij| s_j / V */
    double cost, cost_truth; /* the note's cost on the training data at the fit, at the truth */
    double test_rms;         /* held-out RMS |xhat - x| / V */
    int stick_affine, stick_clamped;             /* held-out sticking steps predicted to stick */
    int false_stick_affine, false_stick_clamped; /* held-out sliding steps predicted to stick */
} rs_kf_fit;

typedef struct rs_kf_result {
    double m, mu, g, dt; /* the scenario's block */
    double theta_true[RS_KF_VARIANTS][2][RS_KF_FEATURES];
    double cond[RS_KF_VARIANTS]; /* condition number of the scaled training features (noise-free) */
    double speed_rms;            /* V, m/s */
    int train_steps, train_stuck, test_steps, test_stuck;
    rs_kf_fit fit[RS_KF_VARIANTS][RS_KF_MAX_NOISES][RS_KF_MAX_WEIGHTS];
    double time_s;
} rs_kf_result;

/* Run every fit for the scenario file (a sliding_block_direct scenario; RS_ERR_BAD_ARG with the
 * reason in detail otherwise, or when it cannot be read). RS_ERR_BAD_SETTING for a configuration
 * out of range. detail may be NULL. */
rs_error rs_kf_run(const char *scenario_path, const rs_kf_config *cfg, rs_kf_result *out,
                   rs_error_detail *detail);

#endif
