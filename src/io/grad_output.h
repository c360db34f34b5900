/*
 * grad_output.h (internal): the files of `relaxsim grad` (formats in docs/commands/grad.md):
 *   gradients.csv  one row per (output, key): the three gradients, the difference step, the
 *                  relative differences, the switch step and the verdict;
 *   tangents.csv   one row per (step, key, method): d column / d key for every column after that
 *                  step (the per-step records of both forward-mode runs), with each step's
 *                  derivative status;
 *   grad.json      the summary: scenario, keys, outputs, verdict counts, timings, the contract;
 *   sweep.csv      (--sweep) one row per (swept value, output, key).
 */
#ifndef RS_IO_GRAD_OUTPUT_H
#define RS_IO_GRAD_OUTPUT_H

#include <stdio.h>

#include "relaxsim/error.h"
#include "sim/gradient.h"

/* Into the caller's open file (write errors are the file's, checked when it is closed). */
void rs_write_gradients_csv(FILE *f, const rs_grad_config *cfg, const rs_grad_result *r);
void rs_write_tangents_csv(FILE *f, const rs_scenario *sc, const rs_grad_config *cfg,
                           const rs_grad_result *r);
/* RS_ERR_NOMEM if the document could not be made. */
rs_error rs_write_grad_json(FILE *f, const rs_scenario *sc, const rs_grad_config *cfg,
                            const rs_grad_result *r);

/* sweep.csv: the header, then one block of rows per swept value. */
void rs_sweep_csv_header(FILE *f, const char *swept_key);
void rs_sweep_csv_rows(FILE *f, double swept_value, const rs_grad_config *cfg,
                       const rs_grad_result *r);

#endif
