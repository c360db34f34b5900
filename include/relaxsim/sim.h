/*
 * relaxsim/sim.h: time stepping through the library: scenarios, simulations, comparisons, models.
 *
 * A scenario (rs_sim_scenario) is a model with its parameters, initial state, input schedule,
 * time step, horizon, solver settings and tolerance contract, loaded from a scenario file or
 * from text (the INI format of relaxsim-scenario(5)), with "section.key=value" overrides as the
 * command's --set. A simulation (rs_sim) steps one scenario's model by one backend, the
 * relaxed-complementarity NLP (IPOPT) or the step LCP (Lemke), from the scenario's initial state
 * or any state the caller sets, with the scenario's inputs or the caller's. A comparison runs the
 * scenario as `relaxsim compare` does and calls back after every step.
 *
 * Conventions, as in the LCP API: every function that can refuse returns an rs_error (RS_OK or
 * why the call could not be carried out) and takes an rs_error_detail *detail, its last
 * parameter, which may be NULL: on a refusal it says why, naming the argument, the column or the
 * file, line and key ("input: ux_N = nan is not finite"); it is emptied on success. A solver
 * that fails is not an error but a status in an info struct. Handles are opaque; arrays are
 * plain doubles in the order the scenario's column names give (rs_sim_scenario_column). Nothing
 * here prints or exits.
 *
 * Structs: every settings and info struct the caller allocates starts with size_t size, which
 * says which layout the caller was compiled with. Settings are filled by their _default function
 * (which sets size); an info struct the library writes into is given with size = sizeof of its
 * type, as the caller's header has it (rs_sim_step_info si = {.size = sizeof si}). A struct whose
 * size this library does not know is refused with RS_ERR_BAD_SETTING, the struct and both sizes
 * named in detail, and nothing is written into it. rs_sim_struct_size gives the library's sizes
 * by name, for a binding (Python's ctypes) to compare its own with.
 *
 * Lifetimes: a scenario is reference counted; a simulation, a snapshot and a comparison each
 * keep the scenario they were made from alive, so rs_sim_scenario_free may come in any order.
 *
 * Threads: one handle is used by one thread at a time. Different handles may be used from
 * different threads: the library serialises its calls into IPOPT and MUMPS (Debian's IPOPT
 * 3.11 runs sequential MUMPS, which is not thread-safe) with one process-wide lock, so NLP steps
 * of simulations in different threads run one at a time; Lemke steps run in parallel.
 */
#ifndef RELAXSIM_SIM_H
#define RELAXSIM_SIM_H

#include <stddef.h>

#include "relaxsim/error.h"
#include "relaxsim/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * sizeof of a public struct as this library was compiled with it, by its name: "rs_sim_settings",
 * "rs_sim_scenario_info", "rs_sim_param", "rs_sim_step_info", "rs_sim_compare_step",
 * "rs_sim_compare_info", "rs_sim_check", "rs_sim_model_info", "rs_error_detail",
 * "rs_lcp_certificate", "rs_lemke_settings", "rs_lemke_info", "rs_nlp_settings", "rs_nlp_info",
 * "rs_lcp_derivative_settings", "rs_lcp_derivative_info". 0 for another name or NULL.
 */
RS_API size_t rs_sim_struct_size(const char *name);

/* ---- scenarios ------------------------------------------------------------------------------ */

/** A loaded, validated scenario (immutable once loaded). */
typedef struct rs_sim_scenario rs_sim_scenario;

/**
 * Load the scenario file at path, then apply overrides ("section.key=value", e.g.
 * "model.mu=0.3", "initial.box.xd=2", "run.steps=100") in order. A scene the scenario names is
 * read relative to the scenario's directory. On failure *out is NULL and detail (may be NULL)
 * says "FILE:LINE: section.key: what is wrong" (or which argument is missing). Errors:
 * RS_ERR_NULL_ARG, RS_ERR_DIMENSION (noverrides < 0), RS_ERR_IO, RS_ERR_PARSE, RS_ERR_NOMEM.
 */
RS_API rs_error rs_sim_scenario_load(const char *path, const char *const *overrides,
                                     int noverrides, rs_sim_scenario **out,
                                     rs_error_detail *detail);

/**
 * The same from the scenario's text, named name in messages. A model that needs a scene gets it
 * as text too (scene_text: the scene, whether or not the text has a [model] scene line, whose
 * file is never opened); a model without a scene takes scene_text = NULL and refuses any other
 * (RS_ERR_PARSE). No file is opened, and an override of model.scene is refused (RS_ERR_PARSE).
 */
RS_API rs_error rs_sim_scenario_load_text(const char *name, const char *text,
                                          const char *scene_text, const char *const *overrides,
                                          int noverrides, rs_sim_scenario **out,
                                          rs_error_detail *detail);

/** Release the caller's reference to a scenario (NULL is accepted): it is freed when the
 *  simulations, snapshots and comparisons made from it are gone too. */
RS_API void rs_sim_scenario_free(rs_sim_scenario *scenario);

/** A scenario's sizes and run settings. */
typedef struct rs_sim_scenario_info {
    size_t size;          /**< sizeof(rs_sim_scenario_info), set by the caller */
    const char *model;    /**< the model's name, e.g. "point2d_friction" */
    const char *variant;  /**< the formulation's variant, e.g. "corrected" */
    int nstate;           /**< state columns (positions, then velocities, as the model names
                               them) */
    int ninput;           /**< input columns */
    int nforce;           /**< force columns (the step's contact forces) */
    int nparams;          /**< the model's parameters (rs_sim_scenario_param) */
    int steps;            /**< the scenario's horizon, in steps */
    double dt;            /**< the time step, s */
} rs_sim_scenario_info;

/** The scenario's sizes into *info (info->size set by the caller). Errors: RS_ERR_NULL_ARG,
 *  RS_ERR_BAD_SETTING (an info->size this library does not know). */
RS_API rs_error rs_sim_scenario_get_info(const rs_sim_scenario *scenario,
                                         rs_sim_scenario_info *info, rs_error_detail *detail);

/** The scenario's [run] backend, "nlp" or "lemke": a simulation's when rs_sim_create is given no
 *  settings. NULL for a NULL scenario. */
RS_API const char *rs_sim_scenario_backend(const rs_sim_scenario *scenario);

/** Which columns rs_sim_scenario_column names. */
typedef enum rs_sim_column_kind {
    RS_SIM_STATE = 0, /**< e.g. "x_m", "xd_mps", "box.theta_rad" */
    RS_SIM_INPUT = 1, /**< e.g. "ux_N" */
    RS_SIM_FORCE = 2  /**< e.g. "fz_N", "box.tau_Nm" */
} rs_sim_column_kind;

/** The name of column i of a kind, ending in its unit; NULL when i or kind is out of range. */
RS_API const char *rs_sim_scenario_column(const rs_sim_scenario *scenario,
                                          rs_sim_column_kind kind, int i);

/** The scenario's initial state into state (nstate values). RS_ERR_NULL_ARG. */
RS_API rs_error rs_sim_scenario_initial(const rs_sim_scenario *scenario, double *state,
                                        rs_error_detail *detail);

/** The scenario's input for step k (0-based; constant, piecewise or random as the file says)
 *  into input (ninput values). RS_ERR_NULL_ARG; RS_ERR_DIMENSION when k < 0. */
RS_API rs_error rs_sim_scenario_input(const rs_sim_scenario *scenario, int k, double *input,
                                      rs_error_detail *detail);

/** A model parameter's key, value in this scenario, documented range and meaning. */
typedef struct rs_sim_param {
    size_t size;       /**< sizeof(rs_sim_param), set by the caller */
    const char *name;  /**< the key after "model.", e.g. "mu", "box.m" */
    double value;      /**< the default in a model's list; this scenario's value otherwise */
    double lo, hi;     /**< the documented range, inclusive */
    const char *doc;   /**< meaning and unit */
} rs_sim_param;

/** Parameter i of the scenario's model, with the scenario's value (out->size set by the
 *  caller); RS_ERR_NULL_ARG, RS_ERR_BAD_SETTING (out->size), RS_ERR_DIMENSION out of range. */
RS_API rs_error rs_sim_scenario_param(const rs_sim_scenario *scenario, int i, rs_sim_param *out,
                                      rs_error_detail *detail);

/* ---- simulations ---------------------------------------------------------------------------- */

/** The backend that solves each step. */
typedef enum rs_sim_backend {
    RS_SIM_NLP = 0,  /**< the relaxed-complementarity NLP, by IPOPT */
    RS_SIM_LEMKE = 1 /**< the step LCP, by Lemke's method */
} rs_sim_backend;

/** A simulation's settings: fill with rs_sim_settings_default, then change fields (fields are
 *  only ever added at the end, so that a struct of an earlier layout is known by its size). */
typedef struct rs_sim_settings {
    size_t size;            /**< sizeof(rs_sim_settings): set by rs_sim_settings_default */
    rs_sim_backend backend; /**< default RS_SIM_NLP */
} rs_sim_settings;

/** The defaults (size = sizeof(rs_sim_settings); backend RS_SIM_NLP, whatever the scenario says:
 *  rs_sim_create with settings NULL takes the scenario's). The solvers' own settings come from
 *  the scenario. No-op on NULL. */
RS_API void rs_sim_settings_default(rs_sim_settings *settings);

/** A simulation of one scenario: a state, a step counter and the solver's warm start. */
typedef struct rs_sim rs_sim;

/**
 * Create a simulation at the scenario's initial state, step 0. settings NULL: the scenario's
 * backend (rs_sim_scenario_backend: [run] backend, nlp unless it says lemke); given settings
 * decide it.
 * The simulation keeps the scenario alive. Errors: RS_ERR_NULL_ARG, RS_ERR_BAD_SETTING (an
 * unknown backend, or a settings->size this library does not know: settings not filled by
 * rs_sim_settings_default), RS_ERR_NOMEM, or the solver's set-up error; detail says which.
 */
RS_API rs_error rs_sim_create(const rs_sim_scenario *scenario, const rs_sim_settings *settings,
                              rs_sim **out, rs_error_detail *detail);

/** Destroy a simulation (NULL is accepted). */
RS_API void rs_sim_destroy(rs_sim *sim);

/** The record of one step. */
typedef struct rs_sim_step_info {
    size_t size;            /**< sizeof(rs_sim_step_info), set by the caller (the library sets
                                 it in the records it hands out, rs_sim_compare_step's) */
    int step;               /**< the step's index k (it went from t = k dt to (k + 1) dt) */
    int ok;                 /**< 1: solved, and its answer passed the physical certificate */
    int status;             /**< rs_nlp_status (NLP) or rs_lemke_status (Lemke) */
    const char *status_name;/**< "solved", "not_certified", "ray_termination", ... */
    const char *path;       /**< how the NLP step was solved ("ipopt_warm", "start_previous",
                                 "no_contact", ...); "lemke" for Lemke */
    int iterations;         /**< IPOPT iterations (every attempt) or Lemke pivots */
    int fallback;           /**< 1: the NLP failed and the scenario's [run] on_nlp_failure =
                                 lemke took Lemke's answer for this step (the state and forces
                                 are Lemke's; ok, status and the residuals the NLP's) */
    int lcp_size;           /**< the step LCP's size (it follows the active contacts) */
    double primal;          /**< the largest violation of the step's physics, in natural units */
    double complementarity; /**< the largest complementarity product, in natural units */
    double time_s;          /**< wall time of the solve */
} rs_sim_step_info;

/**
 * Take one step from the current state. input: ninput values, or NULL for the scenario's input
 * of this step. The state then moves to the step's answer, as the command's runs do: also when
 * the step failed (info->ok = 0, counted in rs_sim_failed_steps) if that answer is finite, else it
 * stays. A failed step is a status, not an error. Errors: RS_ERR_NULL_ARG, RS_ERR_NONFINITE (an
 * input that is not finite), RS_ERR_BAD_ARG (an input beyond 1e12, or outside the model's domain
 * on its own, such as a backward push of sliding_block_forward), RS_ERR_BAD_SETTING (an
 * info->size this library does not know); no step is taken, and detail says why as
 * rs_sim_check_input does ("input: ux_N = nan is not finite"). info may be NULL.
 */
RS_API rs_error rs_sim_step(rs_sim *sim, const double *input, rs_sim_step_info *info,
                            rs_error_detail *detail);

/**
 * Take up to n steps. inputs: n x ninput values (row k: step k's input), or NULL for the
 * scenario's; every row is checked to be finite and within 1e12 before the first step
 * (RS_ERR_NONFINITE, RS_ERR_BAD_ARG: none taken), and against the model's domain before its own
 * step (as rs_sim_step: RS_ERR_BAD_ARG, the steps before it taken, *done says how many).
 * states, forces (may be NULL): n x nstate and n x nforce values, row k the state after step k
 * and its forces. Stops after the first step that fails when stop_on_failure is 1. *done (may be
 * NULL): the steps taken. info (may be NULL): the last step's record (n = 0: step -1, status
 * "none"; info->size set by the caller, RS_ERR_BAD_SETTING otherwise, no step taken).
 * RS_ERR_NULL_ARG; RS_ERR_DIMENSION when n < 0. detail: why, naming the row ("inputs row 3:
 * input: ux_N = 2e+12 is beyond 1e+12 (a scenario's range); no step taken").
 */
RS_API rs_error rs_sim_run(rs_sim *sim, int n, const double *inputs, double *states,
                           double *forces, int stop_on_failure, int *done,
                           rs_sim_step_info *info, rs_error_detail *detail);

/**
 * Whether state (nstate values) is in the model's domain, as a state a successful run can reach
 * with the scenario's next input (a failed step can leave one outside it): finite, each within
 * 1e12 as in a scenario file, and within what the model allows (a body below the ground or
 * inside an obstacle by at most one step's length, the penetration a step can leave; bodies that
 * overlap by at most that; velocities a one-way model allows). RS_OK; RS_ERR_NONFINITE or
 * RS_ERR_BAD_ARG with what is wrong in detail (may be NULL); RS_ERR_NULL_ARG.
 */
RS_API rs_error rs_sim_check_state(const rs_sim *sim, const double *state,
                                   rs_error_detail *detail);

/** Whether input (ninput values) is a step's input the model allows: finite and within 1e12,
 *  and, for a model whose domain depends on its input (sliding_block_forward's forward push),
 *  allowed from the current state. A state outside the domain (a failed step can leave one) is
 *  not the input's fault: the step reports it as a failed status. What rs_sim_step checks before
 *  a step with an input of its own. */
RS_API rs_error rs_sim_check_input(const rs_sim *sim, const double *input,
                                   rs_error_detail *detail);

/** The current state (nstate values). RS_ERR_NULL_ARG. */
RS_API rs_error rs_sim_state(const rs_sim *sim, double *state, rs_error_detail *detail);

/** The forces of the last step (nforce values; zero before the first step and after
 *  rs_sim_set_state). RS_ERR_NULL_ARG. */
RS_API rs_error rs_sim_forces(const rs_sim *sim, double *forces, rs_error_detail *detail);

/** A contact of the last step (a scene of bodies), rs_sim_contacts. */
typedef struct rs_sim_contact {
    size_t size;          /**< sizeof(rs_sim_contact), set by the caller in contacts[0] */
    int a, b;             /**< the bodies, in the scene's order; b = -1: a static obstacle */
    const char *a_name;   /**< a's name in the scene (valid while the scenario lives) */
    const char *b_name;   /**< b's name, "static" for an obstacle */
    double point[2];      /**< the contact point on a's surface, (x, z), m */
    double normal[2];     /**< unit, from b into a */
    double gap;           /**< the gap at the step's start, m */
    double normal_force;  /**< on a along the normal, N (b gets the opposite) */
    double tangent_force; /**< on a along t = (normal[1], -normal[0]), N: the friction */
} rs_sim_contact;

/** The contacts of the last step, each with its bodies, point, normal and gap at the step's start
 *  (where the step poses it) and its forces: the first
 *  cap of them into contacts (contacts[0].size = sizeof(rs_sim_contact) when cap > 0), how many
 *  the step had into *n (0 before the first step and after a state was set or restored; call
 *  with cap = 0 to size the array). Their forces sum, per body, to rs_sim_forces's (their
 *  moments about the body's centre at the step's start). Errors:
 *  RS_ERR_NULL_ARG; RS_ERR_BAD_ARG for a model without per-contact outputs (every model but a
 *  scene of bodies: its forces are rs_sim_forces's), RS_ERR_BAD_SETTING for an unknown size,
 *  RS_ERR_DIMENSION when cap < 0; detail says why. */
RS_API rs_error rs_sim_contacts(const rs_sim *sim, rs_sim_contact *contacts, int cap, int *n,
                                rs_error_detail *detail);

/** Set the current state (nstate values): RS_ERR_NONFINITE or RS_ERR_BAD_ARG, and the state
 *  stays, when rs_sim_check_state refuses it (a body set below the ground would be thrown out at
 *  the speed that closes the gap in one step), with rs_sim_check_state's reason in detail. The
 *  step counter stays; the solver's warm start is forgotten. */
RS_API rs_error rs_sim_set_state(rs_sim *sim, const double *state, rs_error_detail *detail);

/** The steps taken (the next step's index), and the time, steps x dt. */
RS_API int rs_sim_step_count(const rs_sim *sim);
RS_API double rs_sim_time(const rs_sim *sim);

/** The steps taken that failed (info.ok = 0). */
RS_API int rs_sim_failed_steps(const rs_sim *sim);

/** A simulation's state, step counter and warm start, to go back to (it keeps its scenario
 *  alive). */
typedef struct rs_sim_snapshot rs_sim_snapshot;

/** Save the simulation into a new snapshot. RS_ERR_NULL_ARG, RS_ERR_NOMEM. */
RS_API rs_error rs_sim_save(const rs_sim *sim, rs_sim_snapshot **out, rs_error_detail *detail);

/** Go back to a snapshot saved from this simulation or another of the same scenario handle
 *  (RS_ERR_BAD_ARG otherwise): the next step is then the one after the save, solved the same.
 *  RS_ERR_NULL_ARG. */
RS_API rs_error rs_sim_restore(rs_sim *sim, const rs_sim_snapshot *snapshot,
                               rs_error_detail *detail);

RS_API void rs_sim_snapshot_free(rs_sim_snapshot *snapshot);

/* ---- comparisons --------------------------------------------------------------------------- */

/** A step's verdict: how the NLP's answer compares with Lemke's from the same state. */
typedef enum rs_sim_verdict {
    RS_SIM_AGREE = 0,              /**< same contact modes, within the agreement tolerance */
    RS_SIM_RELAXATION_BIAS = 1,    /**< same modes, beyond the tolerance */
    RS_SIM_MODE_MISMATCH = 2,      /**< the contact modes differ */
    RS_SIM_NLP_FAILED = 3,         /**< the NLP step failed */
    RS_SIM_LEMKE_FAILED = 4,       /**< the Lemke step failed */
    RS_SIM_APPROXIMATION_BIAS = 5  /**< beyond the tolerance, as far as the model's LCP
                                        approximates its physics (a polygonal friction cone) */
} rs_sim_verdict;
#define RS_SIM_VERDICT_COUNT 6

/** "agree", "relaxation_bias", "mode_mismatch", "nlp_failed", "lemke_failed",
 *  "approximation_bias"; "unknown" otherwise. Never NULL. */
RS_API const char *rs_sim_verdict_name(int verdict);

/** One step of a comparison, valid during the callback only (the library's: it sets size, and
 *  the nested records' sizes). */
typedef struct rs_sim_compare_step {
    size_t size;                /**< sizeof(rs_sim_compare_step) as the library has it */
    int step;                   /**< k */
    rs_sim_verdict verdict;
    const double *input;        /**< ninput */
    const double *nlp_state;    /**< the NLP trajectory's state after the step (nstate): on a
                                     fallback step (nlp.fallback), Lemke's answer, which the
                                     trajectory went on from */
    const double *nlp_forces;   /**< nforce, likewise */
    const double *shadow_state; /**< Lemke's answer from the same state as the NLP's */
    const double *shadow_forces;
    const double *lemke_state;  /**< the independent Lemke trajectory's state after the step */
    const double *lemke_forces;
    const double *difference;   /**< |NLP - shadow| per column: the states, then the forces */
    rs_sim_step_info nlp, shadow, lemke; /**< each answer's record */
} rs_sim_compare_step;

/** Called after every step of a comparison: return 0 to go on, anything else to stop it
 *  (rs_sim_compare then returns RS_ERR_STOPPED and no comparison). */
typedef int (*rs_sim_step_fn)(void *ctx, const rs_sim_compare_step *step);

/** A finished comparison. */
typedef struct rs_sim_comparison rs_sim_comparison;

/**
 * Run the scenario's comparison (as `relaxsim compare`: the NLP trajectory, Lemke from each of
 * its states, an independent Lemke trajectory, a verdict per step, the contract at the end).
 * on_step (may be NULL) is called after every step; nothing is kept per step, so memory does not
 * grow with the run (a comparison keeps at most a few dozen failing or disagreeing steps, as
 * `relaxsim compare` does for its capsules). The comparison keeps the scenario alive. Errors:
 * RS_ERR_NULL_ARG, RS_ERR_NOMEM, a solver's set-up error, RS_ERR_STOPPED (on_step asked to stop).
 */
RS_API rs_error rs_sim_compare(const rs_sim_scenario *scenario, rs_sim_step_fn on_step,
                               void *ctx, rs_sim_comparison **out, rs_error_detail *detail);

/** A comparison's totals. */
typedef struct rs_sim_compare_info {
    size_t size;               /**< sizeof(rs_sim_compare_info), set by the caller */
    int steps;
    int nlp_failed_steps;      /**< the NLP trajectory's failed steps */
    int lemke_failed_steps;    /**< the independent Lemke trajectory's */
    int shadow_failed_steps;   /**< Lemke's from the NLP's states */
    int fallback_steps;        /**< NLP steps that took Lemke's answer (on_nlp_failure = lemke) */
    int verdicts[RS_SIM_VERDICT_COUNT]; /**< steps per verdict */
    double mode_agreement;     /**< fraction of steps with the same contact modes */
    int nchecks;               /**< results of the contract (rs_sim_comparison_check) */
    int contract_passed;       /**< 1: every check passed (and no step failed, unless allowed) */
    double wall_time_s;
} rs_sim_compare_info;

/** A comparison's totals into *info (info->size set by the caller). RS_ERR_NULL_ARG,
 *  RS_ERR_BAD_SETTING (info->size). */
RS_API rs_error rs_sim_comparison_get_info(const rs_sim_comparison *comparison,
                                           rs_sim_compare_info *info, rs_error_detail *detail);

/** One result of the contract. */
typedef struct rs_sim_check {
    size_t size;             /**< sizeof(rs_sim_check), set by the caller */
    const char *text;        /**< the check as written, e.g. "final_nlp.x_m = 0.609 +- 2e-7" */
    const char *trajectory;  /**< what it measured: "nlp" or "lemke" (a trajectory), "shadow"
                                  (the NLP against Lemke from the same states), "drift" (the
                                  two trajectories apart), "final" (their final states apart) */
    int passed;
    double actual;           /**< the value measured */
} rs_sim_check;

/** Result i (0 <= i < nchecks; out->size set by the caller). RS_ERR_NULL_ARG,
 *  RS_ERR_BAD_SETTING (out->size), RS_ERR_DIMENSION out of range. */
RS_API rs_error rs_sim_comparison_check(const rs_sim_comparison *comparison, int i,
                                        rs_sim_check *out, rs_error_detail *detail);

/** The final state and forces of one trajectory (RS_SIM_NLP or RS_SIM_LEMKE) into columns
 *  (nstate + nforce values): its last step's answer, as summary.json's "final" and the
 *  contract's final_nlp / final_lemke checks read it (a failed last NLP step's answer, even where
 *  on_nlp_failure = lemke went on from Lemke's). RS_ERR_NULL_ARG, RS_ERR_BAD_ARG (another
 *  trajectory). */
RS_API rs_error rs_sim_comparison_final(const rs_sim_comparison *comparison,
                                        rs_sim_backend trajectory, double *columns,
                                        rs_error_detail *detail);

RS_API void rs_sim_comparison_free(rs_sim_comparison *comparison);

/* ---- models -------------------------------------------------------------------------------- */

/** The number of models. */
RS_API int rs_sim_model_count(void);

typedef struct rs_sim_model_info {
    size_t size;          /**< sizeof(rs_sim_model_info), set by the caller */
    const char *name;     /**< the scenario's [model] name */
    const char *summary;  /**< one line */
    const char *source;   /**< the note and section it comes from */
    int nparams;          /**< its parameters (rs_sim_model_param) */
    int nvariants;        /**< its variants (rs_sim_model_variant; the first is the default) */
    int needs_scene;      /**< 1: a scenario names a scene file ([model] scene) */
    int from_scene;       /**< 1: its bodies, columns and per-body parameters come from the
                               scene (the bodies model); the columns listed are a template */
    const char *variant_key; /**< the [model] key that names the variant ("variant",
                                  "formulation") */
    int nstate, ninput, nforce; /**< its columns (rs_sim_model_column) */
    int lcp_per_step;     /**< 1: the step LCP's size follows the step's contacts */
    int lcp_n;            /**< the step LCP's size; with lcp_per_step its largest, 0: none */
    int own_nlp;          /**< 1: an NLP of its own; 0: the relaxation of its step LCP */
} rs_sim_model_info;

/** Model i (0 <= i < rs_sim_model_count(); info->size set by the caller). RS_ERR_NULL_ARG,
 *  RS_ERR_BAD_SETTING (info->size), RS_ERR_DIMENSION out of range. */
RS_API rs_error rs_sim_model_get_info(int i, rs_sim_model_info *info, rs_error_detail *detail);

/** Parameter j of model i, with its default (out->size set by the caller). RS_ERR_NULL_ARG,
 *  RS_ERR_BAD_SETTING (out->size), RS_ERR_DIMENSION out of range. */
RS_API rs_error rs_sim_model_param(int i, int j, rs_sim_param *out, rs_error_detail *detail);

/** Variant v of model i; NULL out of range. */
RS_API const char *rs_sim_model_variant(int i, int v);

/** Column j of a kind of model i, ending in its unit; NULL out of range. */
RS_API const char *rs_sim_model_column(int i, rs_sim_column_kind kind, int j);

/** Model i's default initial state (nstate values). RS_ERR_DIMENSION out of range,
 *  RS_ERR_NULL_ARG. */
RS_API rs_error rs_sim_model_initial(int i, double *state, rs_error_detail *detail);

#ifdef __cplusplus
}
#endif

#endif /* RELAXSIM_SIM_H */
