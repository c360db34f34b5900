/*
 * cli_progress.h: the progress line of a long command, on stderr and only when stderr is a
 * terminal: one line rewritten in place ("\r ... \033[K"), at most ten times a second, erased
 * when the work is done, so that nothing of it reaches a log, a pipe or a file. It shows with -q
 * too: -q silences the report, not a terminal's line that leaves no trace. RELAXSIM_PROGRESS=0
 * in the environment turns it off.
 */
#ifndef RS_CLI_PROGRESS_H
#define RS_CLI_PROGRESS_H

typedef struct rs_cli_meter {
    int on;            /* stderr is a terminal */
    double t0, shown;  /* wall seconds: the start, the last line drawn */
    long done0;        /* done at t0 (a resumed batch's runs are not this run's rate) */
    char label[96];
} rs_cli_meter;

/* Start a meter labelled label ("check", "study noisy-sticking", ...). */
void rs_cli_meter_start(rs_cli_meter *m, const char *label);

/* done of total units, with what is being done now (may be NULL): the line with its percentage,
 * rate and time left. The last unit (done == total) erases it. */
void rs_cli_meter_show(rs_cli_meter *m, long done, long total, const char *unit,
                       const char *now);

/* Erase the line (the work stopped before its end). */
void rs_cli_meter_clear(rs_cli_meter *m);

#endif
