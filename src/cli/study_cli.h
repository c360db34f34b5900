/*
 * study_cli.h (internal): what the `relaxsim study` subcommands share (cmd_study.c,
 * cmd_study_fit.c).
 */
#ifndef RS_CLI_STUDY_CLI_H
#define RS_CLI_STUDY_CLI_H

#include <cjson/cJSON.h>
#include <stdio.h>

/* The usage line of `relaxsim study`. */
extern const char rs_study_usage[];

/* The options every study shares, -o DIR and -q: 1 if argv[*i] was one of them (consumed), 0
 * (the message printed) if it is unknown or lacks its value. */
int rs_study_common_option(int argc, char **argv, int *i, const char **dir, int *quiet);

/* DIR given and writable (made if missing); 0 with the message printed otherwise. */
int rs_study_output_ready(const char *dir);

/* Parse a comma-separated list of at most max numbers in [lo, hi] into v; returns the count, 0
 * (message printed) on a bad list. */
int rs_study_parse_list(const char *option, const char *text, double lo, double hi, double *v,
                        int max);

/* DIR/report.md opened for writing; NULL (message printed) if it cannot be. */
FILE *rs_study_open_report(const char *dir);

/* Finish a study's summary o (expectations_met, time_s), write it to DIR/summary.json and free
 * it; 0 (message printed) if it cannot be written. */
int rs_study_write_summary(const char *dir, cJSON *o, int passed, double time_s);

/* The known-friction (note 000 section 3.1) and decomposed-velocities (Remark 4) studies. */
int rs_study_known_friction(int argc, char **argv);
int rs_study_decomposed_velocities(int argc, char **argv);

#endif
