/*
 * dataset_csv.h (internal): the CSV file of `relaxsim dataset` (sim/dataset.h): header lines
 * starting with '#' that state the scenario, the model's parameters, dt, what a row is, the noise
 * and the rows written; then one header row of column names (each ending in its unit) and one
 * row per step: step, t_s (the step's start time), then the dataset's columns.
 */
#ifndef RS_IO_DATASET_CSV_H
#define RS_IO_DATASET_CSV_H

#include "relaxsim/error.h"
#include "sim/dataset.h"

/* Into the caller's open file (write errors are the file's, checked when it is closed). */
void rs_write_dataset_csv(FILE *f, const rs_scenario *sc, const rs_dataset *d);

#endif
