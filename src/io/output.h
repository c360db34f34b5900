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

rs_error rs_write_trajectory_csv(const char *path, const rs_scenario *sc,
                                 const rs_compare_result *r, rs_backend backend,
                                 rs_error_detail *detail);
rs_error rs_write_shadow_csv(const char *path, const rs_scenario *sc, const rs_compare_result *r,
                             rs_error_detail *detail);
rs_error rs_write_steps_jsonl(const char *path, const rs_scenario *sc, const rs_compare_result *r,
                              rs_error_detail *detail);
rs_error rs_write_summary_json(const char *path, const rs_scenario *sc, const rs_compare_result *r,
                               rs_error_detail *detail);

/* A whole file as a NUL-terminated string (malloc'd), or NULL if it cannot be read whole. */
char *rs_read_text_file(const char *path);

/* A JSON file parsed (cJSON_Delete it), or NULL if it cannot be read or is not JSON. */
cJSON *rs_read_json_file(const char *path);

/* One step's result as steps.jsonl writes it (status, iterations, path, time, residuals, modes,
 * state, forces). */
cJSON *rs_step_result_json(const rs_model *m, rs_backend backend, const rs_step_result *s);

/* Write text (a cJSON-printed document, freed here; NULL: out of memory) and a newline to path. */
rs_error rs_write_json_text(const char *path, char *text, rs_error_detail *detail);

/* The summary as a cJSON-printed string (caller frees), as written to summary.json. */
char *rs_summary_json_text(const rs_scenario *sc, const rs_compare_result *r);

/* Create a directory and its parents (like mkdir -p). */
rs_error rs_make_directory(const char *path, rs_error_detail *detail);

/*
 * Outputs are never torn: each is written under a temporary name in its own directory
 * (DIR/.NAME.tmp-PID) and renamed into place once complete, so a reader sees the previous file
 * or the new one, never a part. Messages name the OS error ("No space left on device").
 */
/* fopen(path, "w"), the failure's message naming path and the OS error. */
FILE *rs_open_for_writing(const char *path, rs_error_detail *detail);
/* Flush and close a written file; on failure the message names path and the OS error. */
rs_error rs_close_written(FILE *f, const char *path, rs_error_detail *detail);
/* Close f, written under temp, and rename it onto path if every write succeeded; temp is gone
 * afterwards either way. */
rs_error rs_commit_written(FILE *f, const char *temp, const char *path, rs_error_detail *detail);
/* The temporary twin of path. */
void rs_temp_path(const char *path, char *tmp, size_t len);
/* Rename tmp onto path (the same directory: atomic). */
rs_error rs_rename_into_place(const char *tmp, const char *path, rs_error_detail *detail);
/* Fail early, before any work, if no file can be created in dir (made if missing): a probe file
 * is created and removed. */
rs_error rs_check_writable_directory(const char *dir, rs_error_detail *detail);

#endif
