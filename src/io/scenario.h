/*
 * scenario.h (internal): a scenario file (INI, parsed with libinih) and its validation.
 *
 * Sections and keys (every unknown section or key is an error naming file and line):
 *   [model]    name = <model>; variant = <variant>; one key per model parameter (m, g, mu, ...)
 *   [initial]  one key per state component, named without its unit (x, z, xd, zd, ...)
 *   [input]    type = constant | piecewise | random; unit = newton | weight (m g)
 *              constant:  <input> = value                     (input names without unit: ux, u)
 *              piecewise: times = t0, t1, ...; <input> = v0, v1, ... (value from t_i on)
 *              random:    seed = S; hold_steps = H; <input>_min = a; <input>_max = b
 *   [run]      steps, dt, backend (nlp | lemke), contact_force_tol, speed_tol, rest_speed,
 *              agree_atol, agree_rtol, on_nlp_failure (continue | lemke)
 *   [nlp]      tol, max_iter, eps, penalty (l1 | l2), penalty_weight, warm_start (yes | no),
 *              mu_init, retries, cert_tol
 *   [lemke]    max_pivots, cert_tol, warm_start (yes | no)
 *   [expect]   the tolerance contract, checked at the end of `relaxsim compare`:
 *              nlp_failed_steps_max = N            nlp_failed_steps_min = N
 *              lemke_failed_steps_max = N          first_contact_step = N
 *              mode_agreement_min = fraction       mode_agreement_max = fraction
 *              rest_time_s = lo .. hi               shadow_max_abs.<column> = bound
 *              drift_max_abs.<column> = bound       min_nlp.<column> = bound
 *              final_nlp.<column> = value +- tol    final_lemke.<column> = value +- tol
 *              final_diff.<column> = atol [+ rtol%] (|final NLP - final Lemke| <= atol + rtol |Lemke|)
 *              (tol may be written as a percentage of |value|: "98.1 +- 0.1%")
 */
#ifndef RS_IO_SCENARIO_H
#define RS_IO_SCENARIO_H

#include <stdint.h>

#include "relaxsim/error.h"
#include "relaxsim/lcp.h"
#include "relaxsim/nlp.h"
#include "sim/model.h"

#define RS_SCENARIO_MAX_PIECES 64
#define RS_SCENARIO_MAX_CHECKS 64
#define RS_SCENARIO_MAX_STEPS 100000000

typedef enum rs_input_kind { RS_INPUT_CONSTANT, RS_INPUT_PIECEWISE, RS_INPUT_RANDOM } rs_input_kind;

typedef struct rs_input_schedule {
    rs_input_kind kind;
    double constant[RS_MODEL_MAX_INPUT];
    int npieces;
    double times[RS_SCENARIO_MAX_PIECES];
    double values[RS_MODEL_MAX_INPUT][RS_SCENARIO_MAX_PIECES];
    int nvalues[RS_MODEL_MAX_INPUT];
    uint64_t seed;
    int hold_steps;
    int in_weights;       /* [input] unit = weight: every value is in multiples of the model's
                             weight m g (rs_model.force_scale), else newtons */
    double lo[RS_MODEL_MAX_INPUT], hi[RS_MODEL_MAX_INPUT];
} rs_input_schedule;

typedef enum rs_check_kind {
    RS_CHECK_AT_MOST,   /* actual <= bound */
    RS_CHECK_AT_LEAST,  /* actual >= bound */
    RS_CHECK_NEAR,      /* |actual - value| <= tol */
    RS_CHECK_RANGE,     /* lo <= actual <= hi */
    RS_CHECK_EQUAL      /* actual == value (integers) */
} rs_check_kind;

typedef struct rs_check {
    char key[96];       /* as written, e.g. "shadow_max_abs.xd_mps" */
    char text[160];     /* the line as a person reads it, for reports */
    rs_check_kind kind;
    double a, b;        /* bound; or value and tol; or lo and hi */
    int line;
} rs_check;

typedef enum rs_failure_policy { RS_ON_FAILURE_CONTINUE, RS_ON_FAILURE_LEMKE } rs_failure_policy;

typedef struct rs_scenario {
    char path[512];
    const rs_model *model;
    int variant;
    double params[RS_MODEL_MAX_PARAMS];
    double initial[RS_MODEL_MAX_STATE];
    rs_input_schedule input;
    int steps;
    double dt;
    int backend_lemke;            /* `relaxsim run`: 0 nlp, 1 lemke */
    rs_nlp_settings nlp;
    rs_lemke_settings lemke;
    int lemke_warm;               /* [lemke] warm_start: previous step's basis first */
    rs_mode_tols mode_tols;
    double rest_speed;            /* m/s: at rest when every velocity is at most this */
    double agree_atol, agree_rtol;/* per-step agreement of the shadow comparison */
    rs_failure_policy on_nlp_failure;
    int ncheck;
    rs_check checks[RS_SCENARIO_MAX_CHECKS];
} rs_scenario;

/*
 * Read and validate a scenario file, then apply overrides "section.key=value" in order.
 * On failure, detail says "FILE:LINE: section.key: what is wrong" (or "--set section.key: ...").
 */
rs_error rs_scenario_load(const char *path, const char *const *overrides, int noverrides,
                          rs_scenario *out, rs_error_detail *detail);

/* The input u_k of step k (0-based) into u (model->ninput values). */
void rs_scenario_input(const rs_scenario *sc, int k, double *u);

#endif
