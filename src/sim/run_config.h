/*
 * run_config.h (internal): the configuration of one run, owned by sim: the model and its
 * parameters, the initial state, the input schedule, the horizon, the solver settings, the
 * comparison's tolerances and the tolerance contract. io fills it from a scenario file
 * (io/scenario.h, which documents the file's sections and keys); sim never includes io.
 */
#ifndef RS_SIM_RUN_CONFIG_H
#define RS_SIM_RUN_CONFIG_H

#include <stdint.h>

#include "relaxsim/lcp.h"
#include "relaxsim/nlp.h"
#include "sim/model.h"
#include "sim/stepper.h"

#define RS_SCENARIO_MAX_PIECES 64
#define RS_SCENARIO_MAX_CHECKS 64
#define RS_SCENARIO_MAX_CAPSULE_STEPS 16
#define RS_SCENARIO_MAX_STEPS 100000000
/* The longest run whose every step is kept in memory (a run with keep_steps, relaxsim grad and
 * relaxsim dataset: about 0.9 KB per step, 1.7 GB at this limit). run and compare keep nothing
 * per step and take RS_SCENARIO_MAX_STEPS. */
#define RS_RUN_MAX_STEPS 2000000

typedef enum rs_input_kind { RS_INPUT_CONSTANT, RS_INPUT_PIECEWISE, RS_INPUT_RANDOM } rs_input_kind;

/* Per input i (model->ninput of them, arrays owned by the scenario): */
typedef struct rs_input_schedule {
    rs_input_kind kind;
    double *constant;
    int npieces;
    double times[RS_SCENARIO_MAX_PIECES];
    double (*values)[RS_SCENARIO_MAX_PIECES]; /* values[i][piece] */
    int *nvalues;
    uint64_t seed;
    int hold_steps;
    int in_weights;       /* [input] unit = weight: every value is in multiples of the model's
                             weight m g (rs_model.force_scale), else newtons */
    double *lo, *hi;
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

/* How a trajectory goes on after a step, the one rule of every run loop (the comparison's, which
 * `relaxsim run` and `compare` drive, and the library's rs_sim_step). rs_run_next: the answer
 * it goes on from, the NLP's own or, when that failed, policy is RS_ON_FAILURE_LEMKE and the
 * Lemke answer from the same state (lemke, NULL when none was solved) is certified, that one
 * (*fallback = 1: an explicit fallback, counted by the caller). rs_run_advance: x = r's next
 * state when every component of it is finite (returns 1); else x stays (0): a failed step with
 * no finite state goes on from the last finite state, never from a made-up one. */
const rs_step_result *rs_run_next(rs_failure_policy policy, const rs_step_result *nlp,
                                  const rs_step_result *lemke, int *fallback);
int rs_run_advance(const rs_model *m, const rs_step_result *r, double *x);

typedef struct rs_scenario {
    char path[512];
    const rs_model *model;
    rs_model *model_instance;     /* a model built from the scene (rs_model.instantiate), owned:
                                     model points at it; else NULL */
    int variant;
    rs_scene *scene;              /* the obstacles of a model with needs_scene ([model] scene =
                                     FILE), owned: rs_scenario_release frees it; else NULL */
    char scene_path[512];         /* as resolved (relative to the scenario's directory) */
    char *text;                   /* the scenario file as it was read (what capsules keep), owned,
                                     NUL-terminated; NULL for a scenario built in code */
    char *scene_text;             /* the scene file as it was read, owned; NULL without a scene */
    double *params;               /* model->nparams, owned (rs_scenario_alloc_values) */
    double *initial;              /* model->nstate, owned */
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
    double agree_force_rtol;      /* and each force within this fraction of itself (compare.c) */
    rs_failure_policy on_nlp_failure;
    int ncheck;
    rs_check checks[RS_SCENARIO_MAX_CHECKS];
    int ncapsule_steps; /* steps whose capsule a comparison keeps whatever their
                           verdict (relaxsim compare --capsule STEP) */
    int capsule_steps[RS_SCENARIO_MAX_CAPSULE_STEPS];
    void *values_block;           /* the storage of params, initial and the input arrays */
    int borrowed;                 /* a copy (rs_scenario_copy): its model instance, scene and
                                     texts are the original's, which must outlive it */
} rs_scenario;

/* Free what the scenario owns (its values, model instance, scene and texts); a loaded scenario is
 * released before it is discarded or loaded again. NULL and a zeroed scenario are accepted. */
void rs_scenario_release(rs_scenario *sc);

/* Allocate sc's value arrays for its model (sc->model set; params, initial, the input arrays
 * zeroed); any arrays it had are freed first. RS_ERR_NOMEM. */
rs_error rs_scenario_alloc_values(rs_scenario *sc);

/* dst = src with its own value arrays (a run with a changed parameter, initial state or input),
 * borrowing src's model instance, scene and texts: release dst before src. RS_ERR_NOMEM. */
rs_error rs_scenario_copy(rs_scenario *dst, const rs_scenario *src);

/* The input u_k of step k (0-based) into u (model->ninput values). */
void rs_scenario_input(const rs_scenario *sc, int k, double *u);

/* The piece of a piecewise input step k (0-based) takes its values from (the last piece whose
 * time is at or before k dt); -1 for an input of another type. */
int rs_scenario_input_piece(const rs_scenario *sc, int k);

/* The configuration of a stepper for sc's model, parameters, variant, time step, solver settings,
 * mode tolerances and scene (sc must outlive the stepper). */
rs_stepper_config rs_scenario_stepper_config(const rs_scenario *sc);

#endif
