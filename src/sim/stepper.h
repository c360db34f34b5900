/*
 * stepper.h (internal): one time step of a model, solved by either backend from a given state.
 *
 * NLP backend: the model's NLP (or the relaxation of its LCP) through one IPOPT solver reused for
 * the whole run. With nlp.check_start, the previous step's primal-dual solution and then the
 * model's starting points are first tested against the new step's KKT conditions (kkt_check.h):
 * one that passes is the step's solution, with 0 iterations. Otherwise attempt 0 warm-starts
 * IPOPT from the previous step's primal-dual solution when enabled; on failure, retries are cold
 * starts from the model's other initial guesses. A step counts as solved only if its solution
 * (from IPOPT or the check) passes, and the physical residuals recomputed from the recovered
 * state and forces are within nlp.cert_tol (else status "not_certified").
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
    int at_start;            /* NLP: a start point passed the KKT check; IPOPT was not called */
    int stacked;             /* NLP: solved in a stacked NLP with other runs (stack.h) */
    int split;               /* NLP: its block failed in the stacked NLP; re-solved alone */
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

/*
 * The pieces of rs_stepper_nlp, for a caller that solves the NLPs of several runs as one
 * (stack.c). Call begin first; then the step is solved by try_start, by accept (or check_point)
 * of a point the caller found, or by solve_alone. None of them sets out->time_s.
 */
void rs_stepper_nlp_begin(rs_stepper *stepper, const double *state, const double *input);
const rs_nlp_problem *rs_stepper_nlp_problem(const rs_stepper *stepper);
/* 1 if a start point passed the KKT check and the certificate (out filled, at_start = 1). */
int rs_stepper_nlp_try_start(rs_stepper *stepper, rs_step_result *out);
/* 1 if the next solve can be warm-started (nlp.warm_start, and a previous solution exists). */
int rs_stepper_nlp_can_warm_start(const rs_stepper *stepper);
/* The previous step's primal-dual solution (n, m, n, n entries); 0 if there is none. */
int rs_stepper_nlp_warm_point(const rs_stepper *stepper, double *x, double *mult_g,
                              double *mult_x_l, double *mult_x_u);
/* The start of attempt `attempt` (0 .. nlp.retries) as a solve alone takes it: at attempt 0 the
 * previous primal-dual solution if the run can warm start (returns 1), else the model's starting
 * point number `attempt` in x (returns 0, multipliers untouched). */
int rs_stepper_nlp_start_point(rs_stepper *stepper, int attempt, double *x, double *mult_g,
                               double *mult_x_l, double *mult_x_u);
/* Take x (with its multipliers) as the step's solution if status is a success and the
 * certificate passes; fills out's state, forces, residuals, modes, status and ok; returns ok. */
int rs_stepper_nlp_accept(rs_stepper *stepper, const double *x, const double *mult_g,
                          const double *mult_x_l, const double *mult_x_u, rs_nlp_status status,
                          rs_step_result *out);
/* accept x if it passes the KKT check (kkt_check.h), trying the given multipliers first (NULL:
 * none); returns ok. */
int rs_stepper_nlp_check_point(rs_stepper *stepper, const double *x, const double *mult_g,
                               const double *mult_x_l, const double *mult_x_u,
                               rs_step_result *out);
/* The step by this run's own IPOPT solver: warm attempt, then the retries (out reset first). */
void rs_stepper_nlp_solve_alone(rs_stepper *stepper, rs_step_result *out);
void rs_stepper_lemke(rs_stepper *stepper, const double *state, const double *input,
                      rs_step_result *out);

#endif
