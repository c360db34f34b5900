/*
 * output.h (internal): the files a run or a comparison writes.
 *   trajectory_nlp.csv, trajectory_lemke.csv   one row per step (columns below)
 *   shadow.csv                                 per-step |NLP - Lemke| and verdicts (for plots)
 *   steps.jsonl                                one JSON object per step
 *   summary.json                               the statistics and the contract
 * Trajectory columns: step, t_s (end of the step), the inputs, the state, the forces,
 * mode (one per contact), status, iterations (IPOPT iterations or Lemke pivots), primal,
 * complementarity (the physical residuals). A non-finite value is written as "nan" and its row's
 * status says the step failed.
 */
#ifndef RS_IO_OUTPUT_H
#define RS_IO_OUTPUT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "sim/compare.h"

typedef enum rs_backend { RS_BACKEND_NLP, RS_BACKEND_LEMKE } rs_backend;

/* Status name of a step result of that backend. */
const char *rs_step_status_name(rs_backend backend, const rs_step_result *s);

/* The files are written a row at a time, as the run goes (a header, then one row per step from
 * the run's step sink, sim/compare.h): nothing per step is kept. Write errors are the stream's
 * (the caller checks them when it closes the file). */
void rs_trajectory_csv_header(FILE *f, const rs_scenario *sc, rs_backend backend);

/* contacts_nlp.csv / contacts_lemke.csv, for a model with rs_model.contact_geometry (the bodies):
 * one row per contact per step, `step`, `t_s`, `contact` (its index in the step), `a`, `b` (the
 * bodies' names; `static` for an obstacle), `x_m`, `z_m` (the point on a's surface), `nx`, `nz`
 * (the unit normal from b into a), `gap_m` (at the step's start), `fn_N` (the normal force on
 * a, along n), `ft_N` (the friction force on a, along t = (nz, -nx)); b gets the opposite. */
void rs_contacts_csv_header(FILE *f);
void rs_contacts_csv_rows(FILE *f, const rs_scenario *sc, rs_backend backend, int k,
                          const rs_compare_step *st);
void rs_trajectory_csv_row(FILE *f, const rs_scenario *sc, rs_backend backend, int k,
                           const rs_compare_step *st);
void rs_shadow_csv_header(FILE *f, const rs_scenario *sc);
void rs_shadow_csv_row(FILE *f, const rs_scenario *sc, int k, const rs_compare_step *st);
/* One line of steps.jsonl (RS_ERR_NOMEM: the line could not be made). */
rs_error rs_steps_jsonl_row(FILE *f, const rs_scenario *sc, int k, const rs_compare_step *st);

/* A whole file as a NUL-terminated string (malloc'd), or NULL if it cannot be read whole. */
char *rs_read_text_file(const char *path);

/* A JSON file parsed (cJSON_Delete it), or NULL if it cannot be read or is not JSON. */
cJSON *rs_read_json_file(const char *path);

/* One step's result as steps.jsonl writes it (status, iterations, path, time, residuals, modes,
 * state, forces). */
cJSON *rs_step_result_json(const rs_model *m, rs_backend backend, const rs_step_result *s);

/* Write text (a cJSON-printed document, freed here; NULL: out of memory) and a newline to f. */
rs_error rs_write_json_stream(FILE *f, char *text);

/* The summary as a cJSON-printed string (caller frees), as written to summary.json. */
char *rs_summary_json_text(const rs_scenario *sc, const rs_compare_result *r);

/* The contract's checks r did not evaluate, [{check, reason}], added to o as name. */
void rs_add_skipped_checks(cJSON *o, const char *name, const rs_compare_result *r);

/* Create a directory and its parents (like mkdir -p). */
rs_error rs_make_directory(const char *path, rs_error_detail *detail);

/* Files are opened for writing only through io/outset.h: in a staging directory or under an
 * unpredictable temporary name, never through a link, put in place whole. */
/* Flush and close a written file; on failure the message names path and the OS error. */
rs_error rs_close_written(FILE *f, const char *path, rs_error_detail *detail);

#endif
