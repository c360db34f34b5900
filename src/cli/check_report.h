/*
 * check_report.h (internal): the results of `relaxsim check` (cmd_check.c) and their reports:
 * the JUnit XML file (check_report.c) and the JSON summary.
 *
 * One file checked is one test suite. A scenario's cases are its contract's checks (each with
 * the part of the run it applies to, the actual value, and the check as written, which states
 * the bound); a sweep's cases are its runs (each with its failed checks). A file that could not
 * be loaded has one case, "load", in error; a crashed child one case, "run", in error.
 */
#ifndef RS_CLI_CHECK_REPORT_H
#define RS_CLI_CHECK_REPORT_H

#include "io/outset.h"
#include <stdio.h>

typedef enum rs_check_outcome {
    RS_CHECK_PASSED = 0,
    RS_CHECK_FAILED = 1,    /* a check of the contract failed (exit 1 of the child) */
    RS_CHECK_BAD_INPUT = 2, /* the file was refused (exit 2) */
    RS_CHECK_CRASHED = 3,   /* killed by a signal, or an exit code or output it may not give */
    RS_CHECK_NO_CONTRACT = 4 /* it ran, but its scenario states no [expect] contract: nothing
                                was checked beyond the implied gates (not a pass) */
} rs_check_outcome;
#define RS_CHECK_OUTCOMES 5

const char *rs_check_outcome_name(rs_check_outcome o); /* "passed", "failed", ... */

typedef struct rs_check_case {
    char *name;    /* the check as written with what it applies to, or "run 12 (model.mu=0.1)" */
    char *failure; /* NULL when it passed; else the message (actual value and bound) */
    int error;     /* 1: an error (bad input, crash), not a failed assertion */
    double time_s;
} rs_check_case;

typedef struct rs_check_file {
    char *path;
    int is_sweep;
    rs_check_outcome outcome;
    char *message; /* bad input or crash: what the child said (its first stderr line) */
    double time_s;
    int ncases, failures, errors;
    rs_check_case *cases;
} rs_check_file;

/* Write the JUnit XML of files[0..n) into out and commit it (see io/outset.h); 0 (message
 * printed) if it cannot be written. */
int rs_check_write_junit(rs_outfile *out, const rs_check_file *files, int n, double time_s);

/* The JSON summary the same way (every string made valid UTF-8). */
int rs_check_write_json(rs_outfile *out, const rs_check_file *files, int n, double time_s);

#endif
