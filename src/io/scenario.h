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
 *              lemke_failed_steps_max = N          lemke_failed_steps_min = N
 *              first_contact_step = N
 *              mode_agreement_min = fraction       mode_agreement_max = fraction
 *              rest_time_s = lo .. hi               shadow_max_abs.<column> = bound
 *              drift_max_abs.<column> = bound
 *              min_nlp.<column> = bound (>=)        max_nlp.<column> = bound (<=)
 *              min_lemke.<column> = bound (>=)      max_lemke.<column> = bound (<=)
 *              final_nlp.<column> = value +- tol    final_lemke.<column> = value +- tol
 *              final_diff.<column> = atol [+ rtol%] (|final NLP - final Lemke| <= atol + rtol |Lemke|)
 *              (tol may be written as a percentage of |value|: "98.1 +- 0.1%")
 */
#ifndef RS_IO_SCENARIO_H
#define RS_IO_SCENARIO_H

#include "relaxsim/error.h"
#include "sim/run_config.h"

/*
 * Read and validate a scenario file, then apply overrides "section.key=value" in order.
 * On failure, detail says "FILE:LINE: section.key: what is wrong" (or "--set section.key: ...").
 */
rs_error rs_scenario_load(const char *path, const char *const *overrides, int noverrides,
                          rs_scenario *out, rs_error_detail *detail);

/* 1 if the override ("section.key=value") sets model.scene as the loader reads it, however it is
 * spaced: what a scenario given as text must not take from a capsule or a caller that promised
 * to open no file. */
int rs_override_sets_scene(const char *override);

/*
 * The same from a scenario's text in memory, named name in messages ("step_3.json: scenario").
 * A scene comes as text too (scene_text, NULL for a model without one): a scene file the text
 * names is never opened, so text from elsewhere (a capsule) cannot make relaxsim read a file.
 */
rs_error rs_scenario_load_text(const char *name, const char *text, const char *scene_text,
                               const char *const *overrides, int noverrides, rs_scenario *out,
                               rs_error_detail *detail);

#endif
