/*
 * gradient.h (internal): gradients of a run's outputs with respect to the scenario's numbers, by
 * three methods side by side (relaxsim grad).
 *
 *   lcp  forward mode through the Lemke trajectory: at every step the model's exact step
 *        derivatives (lcp_tangent) give (dM, dq) along each key's tangent, the LCP derivative
 *        (lcp_derivative.h, its EXACT rule: at a floating index, the right derivative along the
 *        tangent) gives dz, and lcp_recover_tangent the next state's tangent. Exact for the LCP
 *        model; it jumps where a contact switches.
 *   nlp  forward mode through the NLP trajectory, the step posed as the relaxation of the same
 *        LCP ([nlp] form = relaxation, whatever the scenario says), solved by IPOPT: the KKT
 *        sensitivity at IPOPT's final iterate (kkt_sensitivity.h; a start point's exact zeros on
 *        the central path at mu = tol / 11), with the relaxation's units frozen at each step's
 *        values: the derivative of the NLP's own trajectory. Smooth across switches, over a
 *        window that shrinks with tol, and biased by the relaxation there.
 *   fd   central differences of the Lemke trajectory, (y(v + h) - y(v - h)) / (2 h), with
 *        h = fd_rel |v| (fd_rel when v = 0); one-sided for a parameter at the end of its range. A
 * difference whose two runs saw other LCP index sets than the nominal run at some step up to the
 * output's step straddles a switch.
 *
 * Verdict of each (output, key): failed (a step or a derivative failed before the output's
 * step), non_smooth (the difference straddles a switch), disagree (the LCP gradient and the
 * difference differ by more than rtol relative and the difference's noise), relaxation_bias (the
 * LCP gradient agrees, the NLP one does not), agree. Relative differences are
 * |a - fd| / max(|a|, |fd|, noise / rtol), with the difference's noise 1e-13 max|y| / h (a
 * trajectory's rounding, relative to the column's largest size over the run up to the output's
 * step, over the difference step): values within the noise agree.
 */
#ifndef RS_SIM_GRADIENT_H
#define RS_SIM_GRADIENT_H

#include "sim/compare.h"
#include "sim/run_config.h"

#define RS_GRAD_MAX_KEYS 8
#define RS_GRAD_MAX_OUTPUTS 32

typedef enum rs_grad_key_kind {
    RS_GRAD_KEY_PARAM = 0,   /* [model] parameter */
    RS_GRAD_KEY_INITIAL = 1, /* [initial] state component */
    RS_GRAD_KEY_INPUT = 2,   /* [input] a constant input component, or one piece's value of a
                                piecewise input */
    RS_GRAD_KEY_DT = 3       /* [run] dt */
} rs_grad_key_kind;

typedef struct rs_grad_key {
    rs_grad_key_kind kind;
    int index;     /* into params, state or input */
    int piece;     /* an input key of a piecewise input: its piece (0-based); else -1 */
    char name[64]; /* "model.mu", "initial.xd", "input.ux", "input.u@1", "run.dt" */
} rs_grad_key;

typedef struct rs_grad_output {
    int column;    /* state columns, then forces (rs_compare_result.col_names order) */
    int step;      /* the value after this many steps, 1 .. steps (the trajectory CSV's step
                      step - 1, at t = step dt) */
    char name[64]; /* "x_m@1199": column@CSV step */
} rs_grad_output;

/* Parse a key ("mu", "model.mu", "xd", "initial.xd", "ux", "input.ux", "dt", "run.dt"; of a
 * piecewise input, one piece's value: "u@1", "input.u@1", the value from times[1] on) or an
 * output ("x", "x_m", "fz_N@599": the value in row 599 of the trajectory CSV, at t = 600 dt; no
 * @: the last step) of scenario sc. RS_OK, or RS_ERR_PARSE and what is wrong in detail (may be
 * NULL). */
rs_error rs_grad_parse_key(const rs_scenario *sc, const char *text, rs_grad_key *key,
                           rs_error_detail *detail);
rs_error rs_grad_parse_output(const rs_scenario *sc, const char *text, rs_grad_output *out,
                              rs_error_detail *detail);

/* The value of a key in sc, and sc with the key set to v. */
double rs_grad_key_value(const rs_scenario *sc, const rs_grad_key *key);
void rs_grad_key_set(rs_scenario *sc, const rs_grad_key *key, double v);

typedef struct rs_grad_config {
    int nkeys;
    rs_grad_key keys[RS_GRAD_MAX_KEYS];
    int noutputs;
    rs_grad_output outputs[RS_GRAD_MAX_OUTPUTS];
    double fd_rel;     /* relative difference step, (0, 0.1]; default 1e-6 */
    double rtol;       /* agreement, relative; default 1e-6 */
    int skip_fd;       /* 1: no differences (verdicts from lcp and nlp only: agree or
                          relaxation_bias), for timing the gradients alone */
    int fd_nlp;        /* 1: also central differences of the NLP trajectory (fd_nlp_rel |v|):
                          the audit of the NLP gradient on its own trajectory */
    double fd_nlp_rel; /* default 1e-4: the NLP's answers are exact to its tol only, a
                          difference over h carries tol / h */
} rs_grad_config;

void rs_grad_config_default(rs_grad_config *cfg);

typedef enum rs_grad_verdict {
    RS_GRAD_AGREE = 0,
    RS_GRAD_RELAXATION_BIAS = 1,
    RS_GRAD_NON_SMOOTH = 2,
    RS_GRAD_DISAGREE = 3,
    RS_GRAD_FAILED = 4
} rs_grad_verdict;
#define RS_GRAD_VERDICT_COUNT 5
const char *rs_grad_verdict_name(rs_grad_verdict v); /* "agree", "relaxation_bias", ... */

typedef struct rs_grad_entry {
    double value;        /* the output in the nominal Lemke run */
    double lcp, nlp, fd; /* d output / d key by each method (NaN: failed or not run) */
    double fd_step;      /* h */
    int fd_sided;        /* 0 central; 1 forward, -1 backward (a key at the edge of the
                            model's domain: the difference stays inside it); 2: neither side
                            is inside, no difference (fd NaN) */
    double fd_nlp;       /* with cfg.fd_nlp: the NLP trajectory's central difference (else
                            NaN), and nlp's distance to it (relative, no floor) */
    double rel_nlp_fdnlp;
    double rel_lcp, rel_nlp; /* |method - fd| / max(|method|, |fd|, noise / rtol) (header) */
    int switch_step;         /* first step at which a difference run's index sets differ from the
                                nominal run's (-1: none up to the output's step) */
    rs_grad_verdict verdict;
} rs_grad_entry;

/* A step's derivative status besides the derivatives' own (rs_lcp_derivative_status,
 * rs_kkt_sensitivity_status): the step's solve failed; or no tangent is carried, an earlier
 * step's derivative having failed. */
#define RS_GRAD_STEP_FAILED (-1)
#define RS_GRAD_AFTER_FAILURE (-2)

/* What one step of a trajectory's derivative did. */
typedef struct rs_grad_step {
    int lcp_ok;     /* Lemke solved and the LCP derivative's status ok/singular/
                       floating (a tie-break counts) */
    int lcp_status; /* rs_lcp_derivative_status, RS_GRAD_STEP_FAILED or RS_GRAD_AFTER_FAILURE */
    int nfloating;  /* floating indices at the Lemke solution */
    int nlp_ok;     /* the NLP step solved and the KKT sensitivity solved */
    int nlp_status; /* rs_kkt_sensitivity_status, RS_GRAD_STEP_FAILED or RS_GRAD_AFTER_FAILURE */
    double sens_residual; /* the KKT solve's relative residual */
} rs_grad_step;

typedef struct rs_grad_result {
    int steps, ncol, nkeys;
    const char *const *col_names; /* the model's state names, then its force names (owned
                                     storage: col_storage) */
    void *col_storage;
    /* per step k (0-based: the value after k + 1 steps) and key j, column c:
     * tangent[(k nkeys + j) ncol + c]; values[k ncol + c] */
    double *lcp_tangent, *nlp_tangent;
    double *lcp_values, *nlp_values;
    rs_grad_step *step;
    int noutputs;
    rs_grad_entry entries[RS_GRAD_MAX_OUTPUTS * RS_GRAD_MAX_KEYS]; /* [output nkeys + key] */
    int verdicts[RS_GRAD_VERDICT_COUNT];
    int lcp_failed_steps, nlp_failed_steps; /* steps whose solve or derivative failed (the
                                               steps after them carry no tangent) */
    int lcp_singular_steps, floating_steps; /* minimum-norm answers; one-sided ones */
    int tiebreak_steps;                     /* floating, where the exact rule's clamping block
                                               was singular: the clamping tie-break */
    double lcp_fd_max_rel, nlp_fd_max_rel;  /* the largest relative difference to FD over the
                                               smooth entries where both were computed; NaN if
                                               there is none, or one is NaN (an infinite
                                               tangent) */
    double max_sens_residual;
    double lcp_time_s, nlp_time_s, fd_time_s; /* trajectory and derivatives, per method */
    int nchecks;
    rs_check_result checks[RS_SCENARIO_MAX_CHECKS];
    int contract_passed;
} rs_grad_result;

/* Run the gradients of sc (not changed) for cfg; progress as for compare. RS_ERR_BAD_ARG when
 * the model has no step derivatives or a key cannot be differentiated (the caller checks
 * rs_grad_check_scenario first for a message). */
rs_error rs_grad_run(const rs_scenario *sc, const rs_grad_config *cfg, rs_progress_fn progress,
                     void *progress_ctx, rs_grad_result *out);
void rs_grad_free(rs_grad_result *r);

/* RS_OK if sc is valid at its first step (parameters in their ranges, dt in [1e-12, 10] s, the
 * model's check_step of the initial state and input), else RS_ERR_BAD_ARG and why in detail
 * (may be NULL): the difference runs and the sweep points are checked with it. */
rs_error rs_grad_scenario_valid(const rs_scenario *sc, rs_error_detail *detail);

/* RS_OK if sc's model and input can be differentiated with respect to cfg's keys, else
 * RS_ERR_BAD_ARG and why in detail (may be NULL). */
rs_error rs_grad_check_scenario(const rs_scenario *sc, const rs_grad_config *cfg,
                                rs_error_detail *detail);

#endif
