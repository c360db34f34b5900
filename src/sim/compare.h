/*
 * compare.h (internal): running a scenario, and the step-by-step comparison of the NLP and Lemke
 * backends.
 *
 * A comparison runs (a) the NLP trajectory with, at every step, a "shadow" Lemke solve of the same
 * step from the same state, and (b) an independent Lemke trajectory. Per step it records both
 * statuses, iterations or pivots, the differences |NLP - Lemke| of every state and force column,
 * the physical residuals, the contact modes and a verdict; at the end it evaluates the scenario's
 * tolerance contract.
 */
#ifndef RS_SIM_COMPARE_H
#define RS_SIM_COMPARE_H

#include "sim/run_config.h"
#include "sim/stepper.h"

typedef enum rs_verdict {
    RS_VERDICT_AGREE = 0,           /* same modes, differences within agree_atol/agree_rtol */
    RS_VERDICT_RELAXATION_BIAS = 1, /* same modes, differences beyond the agreement tolerance */
    RS_VERDICT_MODE_MISMATCH = 2,   /* the contact modes differ */
    RS_VERDICT_NLP_FAILED = 3,      /* the NLP step failed (after its retries) */
    RS_VERDICT_LEMKE_FAILED = 4,    /* the shadow Lemke step failed */
    RS_VERDICT_APPROXIMATION_BIAS = 5 /* beyond the agreement tolerance (or other modes), but
                                         within what the model's LCP approximation explains
                                         (rs_model.shadow_bias: point3d's polygonal cone) */
} rs_verdict;
#define RS_VERDICT_COUNT 6

const char *rs_verdict_name(rs_verdict v); /* "agree", "relaxation_bias", ... */

typedef enum rs_run_mode { RS_RUN_COMPARE, RS_RUN_NLP, RS_RUN_LEMKE } rs_run_mode;

/* One step of a comparison. Its arrays have the model's sizes and are owned: rs_compare_step_init
 * allocates them, rs_compare_step_free frees them, rs_compare_step_copy copies the values. */
typedef struct rs_compare_step {
    double *input;          /* model->ninput */
    rs_step_result nlp;     /* the NLP trajectory's step */
    rs_step_result shadow;  /* Lemke from the NLP trajectory's state */
    rs_step_result lemke;   /* the independent Lemke trajectory's step */
    double *diff;           /* |nlp - shadow| per column (state, then forces) */
    rs_verdict verdict;
    int fallback;           /* 1: the NLP trajectory continued from Lemke's answer */
    void *storage;          /* input and diff */
} rs_compare_step;

rs_error rs_compare_step_init(rs_compare_step *st, const rs_model *m);
void rs_compare_step_free(rs_compare_step *st);
/* Every value zero, the arrays kept. */
void rs_compare_step_clear(rs_compare_step *st, const rs_model *m);
/* dst's values = src's (dst initialised for m); RS_ERR_NOMEM (a contact array that cannot grow). */
rs_error rs_compare_step_copy(rs_compare_step *dst, const rs_compare_step *src, const rs_model *m);

#define RS_STATUS_SLOTS 10 /* enough for every rs_nlp_status and rs_lemke_status */

/* Statistics of one trajectory. */
typedef struct rs_trajectory_stats {
    int failed_steps;
    int retried_steps;                  /* NLP steps that needed more than one attempt */
    int warm_started_steps;             /* Lemke steps solved by the previous step's basis */
    int at_start_steps;                 /* NLP steps whose start point passed the KKT check */
    int polished_steps;                 /* NLP steps whose answer is polished (IPOPT's, or the
                                           previous one's: start_polished) */
    int stacked_steps;                  /* NLP steps solved in a stacked NLP (stack.h) */
    int split_steps;                    /* ... whose block failed there and was re-solved alone */
    int status_counts[RS_STATUS_SLOTS]; /* steps per status of the backend */
    int path_counts[RS_PATH_COUNT];     /* NLP steps per path that gave the answer (stepper.h) */
    double iterations_mean;      /* IPOPT iterations (own and stacked share) or Lemke pivots per
                                    step, over all steps */
    double us_per_step_median;   /* over all steps */
    double us_per_step_mean;
    double us_per_step_max;      /* the slowest step, a failing one included */
    /* NLP only: the steps that called IPOPT (any IPOPT path, stacked or not: not solved by a
     * start point), and the figures over those steps alone: the NLP solver's own speed. */
    int ipopt_steps;
    double us_per_ipopt_step_median;   /* NaN if no step called IPOPT */
    double iterations_per_ipopt_step;  /* NaN if no step called IPOPT */
    int ipopt_steps_no_iteration;      /* IPOPT accepted its start at its first test */
    double us_per_iterating_ipopt_step_median; /* over the others; NaN if none */
    int warm_from_contact_free_steps; /* ipopt_warm started from the contact-free prediction */
    int first_contact_step;      /* first step with a closed contact, -1 if none */
    double rest_time_s;          /* from then on every velocity <= rest_speed; NaN if never */
    double *final;               /* per column (the result's storage) */
    double *min;                 /* over the trajectory's steps (NaN once a NaN is seen) */
    double *max;
    double *unit_final;          /* per column: its natural unit in the last step (the unit its
                                    tolerances are stated in: compare.c's column_unit) */
    double *unit_max;            /* ... the largest over the steps */
} rs_trajectory_stats;

/* A check applies to at most two trajectories (first_contact_step, rest_time_s: NLP and Lemke),
 * and a contract gets two implied gates: room for every result of the largest contract. */
#define RS_COMPARE_MAX_CHECK_RESULTS (2 * RS_SCENARIO_MAX_CHECKS + 2)

typedef struct rs_check_result {
    const rs_check *check;
    int passed;
    double actual;
    char which[16];              /* "nlp" / "lemke" when a check applies to both */
    /* A check on a column (final_*, min_*, max_*, shadow_max_abs, drift_max_abs, final_diff):
     * the column's natural unit where the check reads it (the last step's for final_*, the
     * largest over the steps otherwise), and the floor no error bound on it can go below and
     * hold on every machine: the NLP's cert_tol in that unit for a quantity of the NLP (the
     * accuracy its certificate guarantees), RS_LEMKE_FLOOR_ULPS unit roundoffs of the quantity's
     * scale (its bound's value or its unit, the larger) for one of Lemke's. NaN for the other
     * checks (counts, times, fractions). */
    double unit, floor;
} rs_check_result;

/* The rounding a Lemke quantity's bound allows at least, in unit roundoffs of its scale. */
#define RS_LEMKE_FLOOR_ULPS 64.0

/* A check of the contract that a run did not evaluate, and why (which command does). */
typedef struct rs_skipped_check {
    const rs_check *check;
    const char *reason;          /* e.g. "checked by relaxsim grad" */
} rs_skipped_check;

/* A step kept for replay (io/capsule.h writes it, relaxsim replay re-solves it): every step that
 * failed or got a verdict other than agree, and the steps the scenario asks for
 * (rs_scenario.capsule_steps, always kept), the first RS_COMPARE_MAX_CAPSULES of the former
 * (the others are counted in capsules_omitted). Only comparisons that
 * solve their own NLP steps keep them (not the stacked runs of a batch). */
#define RS_COMPARE_MAX_CAPSULES 20
typedef struct rs_capsule {
    int step;
    int requested;                    /* asked for, rather than kept for its verdict */
    double *state;                    /* before the step (the NLP trajectory's), owned */
    rs_stepper_snapshot before;       /* the warm start before the step, owned */
    int lcp_n;                        /* the shadow solve's LCP (M, q), owned; 0: none */
    double *M, *q;
    rs_compare_step record;           /* the step as judged: input, both answers, verdict */
} rs_capsule;

/* Free what a capsule owns (its state, snapshot, record and LCP). */
void rs_capsule_free(rs_capsule *c);

typedef struct rs_compare_result {
    rs_run_mode mode;
    int steps;
    int ncol;
    const char **col_names;      /* ncol: the model's state and force names */
    rs_compare_step *step;       /* steps entries, owned, when the run keeps its steps
                                    (rs_compare_options.keep_steps), else NULL */
    rs_trajectory_stats nlp, lemke;
    int shadow_failed_steps;     /* shadow Lemke failures */
    int fallback_steps;
    double *shadow_max_abs;      /* ncol */
    double *drift_max_abs;       /* ncol */
    void *storage;               /* the per-column arrays above and in nlp, lemke */
    const rs_model *model;       /* the model its steps and capsules are sized for */
    double mode_agreement;       /* fraction of steps whose modes agree */
    int verdicts[RS_VERDICT_COUNT];
    /* per check of the scenario (its index in rs_scenario.checks): for max_speed_nlp. and
     * max_speed_lemke., the body's largest speed over the states after each step from the
     * check's time on; speed_seen: 1 once a state was (a check whose window the run does not
     * reach is skipped, with that reason) */
    double speed_max[RS_SCENARIO_MAX_CHECKS];
    int speed_seen[RS_SCENARIO_MAX_CHECKS];
    int nchecks;
    rs_check_result checks[RS_COMPARE_MAX_CHECK_RESULTS];
    int checks_unrecorded;       /* results that found no room (never; each fails the contract) */
    int declared_checks;         /* the checks the scenario's [expect] states (0: no contract,
                                    only the implied gates) */
    int applied_checks;          /* those this run evaluated (0: nothing stated was checked) */
    int nskipped;                /* those it could not: another command checks them */
    rs_skipped_check skipped[RS_SCENARIO_MAX_CHECKS];
    int contract_passed;
    double wall_time_s;
    rs_capsule *capsules; /* ncapsules entries, owned */
    int ncapsules;
    int capsules_omitted; /* steps that qualified beyond the limit */
} rs_compare_result;

/* Step st's verdict (and st->diff) from the state x before it (compare.c's rule). */
rs_verdict rs_compare_judge(const rs_scenario *sc, rs_compare_step *st, int ncol, const double *x);

/* 1 if actual passes check ck (NaN never does). */
int rs_check_passes(const rs_check *ck, double actual);

/* Progress report: called every few steps; return nothing, never print in the library. */
typedef void (*rs_progress_fn)(void *ctx, int done, int total);

/* Each step as soon as it is solved and judged (st is valid during the call only). */
typedef void (*rs_step_sink)(void *ctx, int k, const rs_compare_step *st);

/* How a run reports its steps. */
typedef struct rs_compare_options {
    rs_step_sink sink;          /* NULL: none */
    void *sink_ctx;
    rs_progress_fn progress;    /* NULL: none */
    void *progress_ctx;
    int keep_steps;             /* 1: out->step holds every step (memory grows with the run);
                                   0: nothing is kept per step, the statistics are gathered as
                                   the run goes (sim/step_stats.h) */
} rs_compare_options;

/* No sink, no progress, keep_steps = 1. */
void rs_compare_options_default(rs_compare_options *opt);

rs_error rs_compare_run_with(const rs_scenario *sc, rs_run_mode mode,
                             const rs_compare_options *opt, rs_compare_result *out);
/* rs_compare_run_with with the defaults and this progress report (steps kept). */
rs_error rs_compare_run(const rs_scenario *sc, rs_run_mode mode, rs_progress_fn progress,
                        void *progress_ctx, rs_compare_result *out);
void rs_compare_free(rs_compare_result *r);

/*
 * The same comparison advanced one step at a time, for a caller that drives several runs in
 * lock-step and solves their NLP steps itself (stack.c). rs_compare_run is begin; for every
 * step k: input, advance; end. Between input and advance of step k, the run's NLP step goes
 * from rs_compare_nlp_state with that input, by rs_compare_stepper's stepper (the NLP
 * trajectory's own; NULL in a Lemke-only run).
 */
typedef struct rs_compare_session rs_compare_session;

rs_error rs_compare_begin_with(const rs_scenario *sc, rs_run_mode mode,
                               const rs_compare_options *opt, rs_compare_result *out,
                               rs_compare_session **session);
/* rs_compare_begin_with the defaults (steps kept). */
rs_error rs_compare_begin(const rs_scenario *sc, rs_run_mode mode, rs_compare_result *out,
                          rs_compare_session **session);
rs_stepper *rs_compare_stepper(rs_compare_session *session);
const double *rs_compare_nlp_state(const rs_compare_session *session);
/* The input of step k (the start of the step's record). */
const double *rs_compare_input(rs_compare_session *session, int k);
/* Step k: the NLP step is *nlp when given, else solved here; then the shadow and independent
 * Lemke steps and the verdict. */
void rs_compare_advance(rs_compare_session *session, int k, const rs_step_result *nlp);
/* Statistics and the contract into out; frees the session (also on error). */
rs_error rs_compare_end(rs_compare_session *session);
/* Give up a session before its end: frees it and its result (no statistics, no contract). */
void rs_compare_abort(rs_compare_session *session);

#endif
