/*
 * step_stats.h (internal): the statistics of a trajectory, gathered one step at a time, so that
 * a run keeps nothing per step and its memory does not grow with its length.
 *
 * Counts, sums, extremes, the final state, the first contact and the rest time are exact. The
 * medians of the step times come from a histogram of logarithmic bins 1% wide, from 1e-3 us to
 * 1e9 us (2,800 bins): the median reported is the geometric centre of the bin that holds the
 * middle step, within 0.5% of a step time in that bin (for an even number of steps, of the lower
 * of the two middle ones).
 */
#ifndef RS_SIM_STEP_STATS_H
#define RS_SIM_STEP_STATS_H

#include "sim/stepper.h"

#define RS_TIME_BINS 2800

typedef struct rs_time_histogram {
    unsigned count[RS_TIME_BINS];
    long n;
} rs_time_histogram;

/* Add a time (us); the median (us) of the times added, NaN if none. */
void rs_time_histogram_add(rs_time_histogram *h, double us);
double rs_time_histogram_median(const rs_time_histogram *h);

typedef struct rs_trajectory_stats rs_trajectory_stats; /* compare.h */

/* What a trajectory's statistics need between its steps. */
typedef struct rs_trajectory_acc {
    int steps, ncol;
    double iterations, time_us_sum, ipopt_iterations;
    int iterating;
    int last_moving; /* the last step after which some velocity exceeded the rest speed; -1 */
    rs_time_histogram all, ipopt, ipopt_iterating;
} rs_trajectory_acc;

/* Start out (every field reset; its final, min and max arrays, of ncol entries, are the
 * caller's) and its accumulator for ncol state and force columns. */
void rs_trajectory_acc_init(rs_trajectory_acc *a, int ncol, rs_trajectory_stats *out);

/* Step k's result s into the statistics: rest_speed is relative to the step's natural speed. */
void rs_trajectory_acc_add(rs_trajectory_acc *a, const rs_model *m, double rest_speed, int k,
                           const rs_step_result *s, rs_trajectory_stats *out);

/* The figures that need every step (means, medians, rest time) into out. */
void rs_trajectory_acc_finish(const rs_trajectory_acc *a, double dt, rs_trajectory_stats *out);

#endif
