/*
 * noisy_sticking.h (internal): note 001 section 3.1.3's question, measured. If a learned model's
 * LCP is the traditional sliding block's with errors in f and G, does it still stick?
 *
 * The block (m = 1 kg, mu = 0.5, g = 9.81 m/s^2, dt = 0.01 s, the note's unit mass): the
 * traditional 3x3 LCP of problems/sliding_block_traditional.c, unknowns (lambda+, lambda-,
 * gamma),
 *     G = [[c, -c, 1], [-c, c, 1], [-1, -1, 0]],   f = (v + c u, -v - c u, mu m g),   c = dt/m.
 * A learned (G, f) is the true one with independent Gaussian noise of standard deviation sigma
 * added to each of its 12 entries (in the LCP's own units: m/s for f1, f2 and G's last column, N
 * for f3, s/kg for c, 1 for G's last row). Lemke solves each noisy LCP; the next velocity follows
 * from the true integrator with the learned friction, v' = v + c (u + lambda+ - lambda-), and the
 * step sticks when |v'| <= stick_tol (1e-9 m/s).
 * Two cases, as in the note: (A) u = v = 0, where z = 0 solves the LCP whenever f1, f2 >= 0 and
 * sticks (the note: 25% of the time whatever sigma); (B) v = 0.03 m/s, u = 0, where the true step
 * sticks only by an exact force (the note: about 0.1%). The Lemke failures (the note: "the LCP
 * might not even be solvable") are counted apart.
 */
#ifndef RS_STUDY_NOISY_STICKING_H
#define RS_STUDY_NOISY_STICKING_H

#include <stdint.h>

#include "relaxsim/error.h"
#include "study/study_progress.h"

#define RS_STICK_MAX_SIGMAS 16

typedef struct rs_stick_config {
    int nsigma;
    double sigma[RS_STICK_MAX_SIGMAS];
    long samples; /* per sigma and case, >= 100 */
    uint64_t seed;
    double stick_tol; /* m/s */
    double near_tol;  /* a looser test, |v'| <= near_tol (m/s), counted beside it: the note does
                         not state its own */
    double v_b;       /* case B's velocity, m/s */
    rs_study_progress progress; /* samples done of 2 nsigma samples; zero: none */
} rs_stick_config;

void rs_stick_config_default(rs_stick_config *cfg);

/* The intervals are simultaneous: a study compares 3 fractions per sigma (A's and B's sticking,
 * B's looser test) against stated values, so each Wilson interval is taken at confidence
 * 1 - 0.05 / (3 nsigma) (Bonferroni), and all of them hold together with probability at least
 * 95%. With 95% each, a true statement would fail somewhere 1 - 0.95^21 = 66% of the time over
 * the 7 default sigmas. */
#define RS_STICK_INTERVALS_PER_SIGMA 3

/* The normal quantile of those intervals for nsigma sigmas (3.04 for 7). */
double rs_stick_simultaneous_z(int nsigma);

typedef struct rs_stick_case {
    long solved, stuck, unsolved;
    double fraction; /* stuck / samples (an unsolved LCP gives no sticking step) */
    double lo, hi;   /* its simultaneous 95% Wilson score interval (above) */
    long near;             /* steps with |v'| <= near_tol */
    double near_fraction;  /* near / samples */
    double near_lo, near_hi; /* its interval, likewise */
} rs_stick_case;

typedef struct rs_stick_result {
    int nsigma;
    double z; /* the intervals' normal quantile, rs_stick_simultaneous_z(nsigma) */
    rs_stick_case a[RS_STICK_MAX_SIGMAS], b[RS_STICK_MAX_SIGMAS];
    double time_s;
} rs_stick_result;

/* The Monte Carlo; RS_ERR_BAD_SETTING for a configuration out of range. */
rs_error rs_stick_run(const rs_stick_config *cfg, rs_stick_result *out);

#endif
