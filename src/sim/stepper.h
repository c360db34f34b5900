/*
 * stepper.h (internal): one time step of a model, solved by either backend from a given state.
 *
 * NLP backend: the model's NLP (or the relaxation of its LCP) through one IPOPT solver reused for
 * the whole run. Attempt 0 warm-starts from the previous step's solution when enabled; on
 * failure, retries are cold starts from the model's other initial guesses. A step counts as
 * solved only if IPOPT succeeded AND the physical residuals recomputed from the recovered state
 * and forces are within nlp.cert_tol (else status "not_certified").
 * Lemke backend: the model's step LCP, solved on a workspace allocated once; with lemke_warm,
 * the basis of the previous Lemke step is tried first (a wrong guess falls back to the cold
 * lexicographic solve, see rs_lemke_solve_warm).
 */
#ifndef RS_SIM_STEPPER_H
#define RS_SIM_STEPPER_H

#include "relaxsim/lcp.h"
#include "relaxsim/nlp.h"
#include "sim/model.h"

typedef struct rs_step_result {
    double state_next[RS_MODEL_MAX_STATE];
    double forces[RS_MODEL_MAX_FORCE];
    rs_contact_mode modes[RS_MODEL_MAX_CONTACTS];
    double primal;           /* physical residuals, see rs_model.residuals */
    double complementarity;
    int ok;                  /* solved and certified */
    int status;              /* rs_nlp_status or rs_lemke_status */
    int iterations;          /* IPOPT iterations (all attempts) or Lemke pivots */
    int attempts;            /* NLP: 1 + retries used; Lemke: 1 */
    int warm_started;        /* Lemke: the previous step's basis was right (0 pivots) */
    double time_s;           /* wall time of the solve */
} rs_step_result;

typedef struct rs_stepper_config {
    const rs_model *model;
    const double *params;
    int variant;
    double dt;
    rs_nlp_settings nlp;
    rs_lemke_settings lemke;
    int lemke_warm;          /* 1: try the previous step's basis first (rs_lemke_solve_warm) */
    rs_mode_tols mode_tols;
} rs_stepper_config;

typedef struct rs_stepper rs_stepper;

rs_error rs_stepper_create(const rs_stepper_config *config, rs_stepper **out);
void rs_stepper_destroy(rs_stepper *stepper);

/* Forget the warm start (e.g. before an independent trajectory). */
void rs_stepper_reset(rs_stepper *stepper);

void rs_stepper_nlp(rs_stepper *stepper, const double *state, const double *input,
                    rs_step_result *out);
void rs_stepper_lemke(rs_stepper *stepper, const double *state, const double *input,
                      rs_step_result *out);

#endif
