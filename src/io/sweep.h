/*
 * sweep.h (internal): a sweep file (INI) names a base scenario and the keys to vary; the set of
 * runs is their product (or, with combine = zip, their element-wise pairing).
 *
 *   [sweep]
 *   scenario = point2d_friction.ini       (relative to the sweep file's directory)
 *   combine = product | zip               (default product)
 *   [vary]
 *   model.mu = 0.05, 0.1, 0.2             an explicit list
 *   model.formulation = egan_simple, egan_accurate     a list of words (a choice key)
 *   input.u = "1, 3", "2, 6"              quoted values, each a text: a list (a piecewise input)
 *   initial.xd = 0.5 .. 2 / 4             a range: 4 values from 0.5 to 2 inclusive
 *   model.m = random 5 .. 20 / 3 seed 7   3 seeded uniform samples in [5, 20)
 *   run.dt = lograndom 1e-4 .. 1e-2 / 3 seed 8   3 seeded log-uniform samples (0 < lo)
 *   [set]
 *   nlp.check_start = no                  fixed for every run (any scenario value)
 *
 * Run i is numbered in the order of the product with the first key varying slowest; its
 * overrides are "section.key=value" strings with values printed exactly (%.17g).
 */
#ifndef RS_IO_SWEEP_H
#define RS_IO_SWEEP_H

#include <cjson/cJSON.h>

#include "relaxsim/error.h"

#define RS_SWEEP_MAX_KEYS 8
#define RS_SWEEP_MAX_VALUES 10000
#define RS_SWEEP_MAX_RUNS 10000000
#define RS_SWEEP_MAX_SETS 8
#define RS_SWEEP_MAX_OVERRIDES (RS_SWEEP_MAX_SETS + RS_SWEEP_MAX_KEYS)
#define RS_SWEEP_WORD_LEN 48

typedef struct rs_sweep_key {
    char name[96];        /* section.key */
    int line;             /* its line in the sweep file */
    int nvalues;
    double *values;       /* owned; for a list of words, 0 .. nvalues-1 (the word's index) */
    char (*words)[RS_SWEEP_WORD_LEN]; /* owned; NULL: the values are numbers (words, or quoted
                                         texts, which may hold commas and spaces) */
} rs_sweep_key;

typedef struct rs_sweep {
    char path[512];
    char scenario[1024];  /* resolved path of the base scenario */
    int scenario_line;    /* the line of sweep.scenario, for messages */
    int zip;              /* 1: combine = zip */
    int nkeys;
    rs_sweep_key keys[RS_SWEEP_MAX_KEYS];
    int nsets;                              /* [set]: "section.key=value" for every run */
    char sets[RS_SWEEP_MAX_SETS][128];
    int set_line[RS_SWEEP_MAX_SETS];        /* each [set] line's number, for messages */
    long nruns;
} rs_sweep;

/* Read a sweep file; errors name file:line and key. The base scenario is checked to load. */
rs_error rs_sweep_load(const char *path, rs_sweep *out, rs_error_detail *detail);
void rs_sweep_free(rs_sweep *sweep);

/* The values of run i, one per key, into values[nkeys] (a word's index for a key of words). */
void rs_sweep_run_values(const rs_sweep *sweep, long run, double *values);

/* The value v of key k as written in an override, a results line and results.csv: the word of a
 * key of words, else the number (%.17g); buf has room for RS_SWEEP_WORD_LEN. */
const char *rs_sweep_value_text(const rs_sweep_key *k, double v, char *buf, size_t size);

/* The value of a results line's parameter for key k: a key of words takes only one of its words
 * (a string: its index), a key of numbers only a number. Returns 1 and writes *value, or 0 when
 * the parameter is not a value of the key (a hand-edited line). */
int rs_sweep_param_value(const rs_sweep_key *k, const cJSON *param, double *value);

/* Override strings of run i: the [set] ones, then one "section.key=value" per varied key,
 * written into buf (RS_SWEEP_MAX_OVERRIDES * 128 bytes); returns their number. */
int rs_sweep_run_overrides(const rs_sweep *sweep, long run, char (*buf)[128]);

#endif
