/*
 * study_cli.h (internal): what the `relaxsim study` subcommands share (cmd_study.c,
 * cmd_study_fit.c).
 */
#ifndef RS_CLI_STUDY_CLI_H
#define RS_CLI_STUDY_CLI_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "cli/cli_progress.h"
#include "study/study_progress.h"

/* The usage line of `relaxsim study`. */
extern const char rs_study_usage[];

/* The options every study shares, -o DIR and -q: 1 if argv[*i] was one of them (consumed), 0
 * (the message printed) if it is unknown or lacks its value. */
int rs_study_common_option(int argc, char **argv, int *i, const char **dir, int *quiet);

/* DIR given and writable (made if missing): the study's output set begins there (every file
 * below is staged in it); 0 with the message printed otherwise. */
int rs_study_output_ready(const char *dir);

/* A file of the set created for writing, and closed (0 / NULL: message printed). */
FILE *rs_study_create(const char *name);
int rs_study_close(FILE *f, const char *name);

/* plot.gp of the set, and its run drawing picture (0: gnuplot failed, message printed). */
FILE *rs_study_open_script(void);
int rs_study_run_plot(FILE *g, const char *picture);

/* Put the set in place; owned: the files of this study that a new set replaces (those it lacks
 * are removed). 0 (message printed) if it cannot be. */
int rs_study_commit(const char *const *owned, int nowned);

/* Parse a comma-separated list of at most max numbers in [lo, hi] into v; returns the count, 0
 * (message printed) on a bad list. */
int rs_study_parse_list(const char *option, const char *text, double lo, double hi, double *v,
                        int max);

/* report.md of the set opened for writing; NULL (message printed) if it cannot be. */
FILE *rs_study_open_report(void);

/* Finish a study's summary o (expectations_met, time_s), write it to summary.json of the set and
 * free it; 0 (message printed) if it cannot be written. */
int rs_study_write_summary(cJSON *o, int passed, double time_s);

/* A study's progress line on a terminal: start m (label: "study noisy-sticking", unit:
 * "samples") and hand the returned progress to the study; the study's last report erases it. */
typedef struct rs_study_meter {
    rs_cli_meter meter;
    const char *unit;
} rs_study_meter;
rs_study_progress rs_study_meter_start(rs_study_meter *m, const char *label, const char *unit);

/* The known-friction (note 000 section 3.1) and decomposed-velocities (Remark 4) studies. */
int rs_study_known_friction(int argc, char **argv);
int rs_study_decomposed_velocities(int argc, char **argv);

#endif
