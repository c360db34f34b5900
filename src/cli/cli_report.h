/* cli_report.h: what `run` and `compare` print: a progress line and the aligned summary. */
#ifndef RS_CLI_REPORT_H
#define RS_CLI_REPORT_H

#include <stdio.h>

#include "sim/compare.h"

/* Time steps' progress on a terminal (cli_progress.h); ctx: the label to show, or NULL. */
void rs_cli_progress(void *ctx, int done, int total);

/* The aligned summary table of a run or a comparison. */
void rs_cli_print_summary(FILE *f, const rs_scenario *sc, const rs_compare_result *r);

/* The contract's verdict and one line per check (a failed check's value in full). */
void rs_cli_print_checks(FILE *f, const rs_check_result *checks, int n);

/* With -q, no table: each failed check still named on f, one line each ("relaxsim: COMMAND:
 * SCENARIO: FAIL check which, actual v"), so that an exit code 1 never comes without a word. */
void rs_cli_name_failed_checks(FILE *f, const char *command, const char *scenario,
                               const rs_check_result *checks, int n);

#endif
