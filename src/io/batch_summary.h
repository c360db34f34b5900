/*
 * batch_summary.h (internal): the end of a batch: results.jsonl (finishing order) sorted by run
 * into summary.json and results.csv, without timings, so both are the same whatever the number
 * of workers; and per varied key and value, the runs that passed and the worst differences.
 */
#ifndef RS_IO_BATCH_SUMMARY_H
#define RS_IO_BATCH_SUMMARY_H

#include "io/sweep.h"

#define RS_BATCH_MAX_GROUP_VALUES 64

typedef struct rs_batch_group {
    double value;
    long runs, passed;
    double worst;            /* largest shadow |NLP - Lemke| over the runs and columns */
    char worst_column[32];
} rs_batch_group;

/* A value of a key of words as results.csv writes it: a quoted text's commas as semicolons
 * ("1, 3" becomes "1; 3"), so that every field of the file is one CSV field without quoting and
 * gnuplot, awk or a spreadsheet split it alike (results.jsonl and summary.json keep the text). */
const char *rs_results_csv_text(const char *word, char *buf, size_t size);

typedef struct rs_batch_summary {
    long runs, passed, contract_failed, bad_input, crashed;
    long keep_errors;                /* runs whose --keep outputs could not be written */
    int ngroups[RS_SWEEP_MAX_KEYS];  /* values per key (at most RS_BATCH_MAX_GROUP_VALUES shown) */
    rs_batch_group groups[RS_SWEEP_MAX_KEYS][RS_BATCH_MAX_GROUP_VALUES];
} rs_batch_summary;

/* Read DIR/results.jsonl, write DIR/summary.json and DIR/results.csv, fill *out. */
rs_error rs_batch_summarize(const char *dir, const rs_sweep *sweep, rs_batch_summary *out,
                            rs_error_detail *detail);

#endif
