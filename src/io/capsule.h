/*
 * capsule.h (internal): a step capsule, one self-contained JSON file from which `relaxsim replay`
 * re-solves one step of a comparison both ways (sim/compare.h collects them: every step that
 * failed or got a verdict other than agree, and the steps asked for, at most
 * RS_COMPARE_MAX_CAPSULES per run).
 *
 * Its keys: relaxsim (the version that wrote it), step, t_s (the step's start), scenario {path,
 * text (the scenario file as it was), overrides (the --set of the run), scene_text (the scene
 * file, for models with obstacles)}, model, variant, state {name: value} and state_exact (the
 * state before the step, the NLP trajectory's), input_exact, settings {nlp, lemke} (as the run
 * used them, for reading: the replay takes them from the scenario), start (the stepper's warm
 * start before the step: the previous primal-dual point of the NLP, the previous Lemke basis),
 * nlp and lemke (both answers: status, path, iterations, state, forces, residuals, modes, as in
 * steps.jsonl), verdict, diff, lcp_dat (the step's LCP (M, q) in the Siconos .dat format). Every
 * number is written so that it reads back to the same double.
 */
#ifndef RS_IO_CAPSULE_H
#define RS_IO_CAPSULE_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "relaxsim/error.h"
#include "sim/compare.h"

/* Write capsule c of run r into f (the caller's file step_<k>.json): the scenario and scene
 * texts as the run read them (sc->text, sc->scene_text), the overrides of the run. Write
 * errors are f's (the caller checks them on close). */
rs_error rs_write_capsule(FILE *f, const rs_scenario *sc, const char *const *overrides,
                          int noverrides, const rs_compare_result *r, const rs_capsule *c,
                          rs_error_detail *detail);

/* The capsule's step LCP (M, q) as a Siconos .dat file into f (the text of its lcp_dat), in the C
 * locale; RS_OK when it has none (lcp_n = 0: nothing written). */
rs_error rs_write_capsule_dat(FILE *f, const rs_capsule *c, rs_error_detail *detail);

/* Read an exact array of exactly n numbers (null: NaN) into v; 0 otherwise. */
int rs_capsule_read_array(const cJSON *a, double *v, int n);

/* The snapshot of a capsule's "start" object; 0 if it is malformed. */
int rs_capsule_read_start(const cJSON *start, rs_stepper_snapshot *snap);

/* The solver settings a capsule records of its scenario (its "settings" object; informational,
 * the scenario text is what sets them: a replay checks that the two agree). */
cJSON *rs_capsule_settings_json(const rs_scenario *sc);

#endif
