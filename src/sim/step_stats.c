/* step_stats.c: a trajectory's statistics, one step at a time (see step_stats.h). */
#include <math.h>
#include <string.h>

#include "sim/compare.h"
#include "sim/step_stats.h"

#define TIME_FLOOR_US 1e-3
#define BIN_GROWTH 1.01 /* each bin 1% wider than the one before: 2,800 bins reach 1.2e9 us */

void rs_time_histogram_add(rs_time_histogram *h, double us)
{
    int bin = 0;
    if (us > TIME_FLOOR_US) {
        const double b = log(us / TIME_FLOOR_US) / log(BIN_GROWTH);
        bin = b < RS_TIME_BINS - 1 ? (int)b : RS_TIME_BINS - 1;
    }
    h->count[bin]++;
    h->n++;
}

double rs_time_histogram_median(const rs_time_histogram *h)
{
    if (h->n == 0)
        return NAN;
    const long rank = (h->n + 1) / 2; /* 1-based rank of the (lower) middle step */
    long seen = 0;
    for (int i = 0; i < RS_TIME_BINS; i++) {
        seen += h->count[i];
        if (seen >= rank)
            return TIME_FLOOR_US * pow(BIN_GROWTH, i + 0.5);
    }
    return NAN; /* not reached */
}

void rs_trajectory_acc_init(rs_trajectory_acc *a, int ncol, rs_trajectory_stats *out)
{
    memset(a, 0, sizeof *a);
    a->ncol = ncol;
    a->last_moving = -1;
    double *final = out->final, *min = out->min, *max = out->max; /* the caller's arrays */
    double *unit_final = out->unit_final, *unit_max = out->unit_max;
    memset(out, 0, sizeof *out);
    out->final = final;
    out->min = min;
    out->max = max;
    out->unit_final = unit_final;
    out->unit_max = unit_max;
    out->first_contact_step = -1;
    for (int c = 0; c < ncol; c++) {
        out->final[c] = 0.0;
        out->min[c] = INFINITY;
        out->max[c] = -INFINITY;
        if (out->unit_final)
            out->unit_final[c] = out->unit_max[c] = NAN;
    }
}

void rs_trajectory_acc_add(rs_trajectory_acc *a, const rs_model *m, double rest_speed, int k,
                           const rs_step_result *s, rs_trajectory_stats *out)
{
    a->steps = k + 1;
    out->failed_steps += !s->ok;
    out->retried_steps += s->attempts > 1;
    out->warm_started_steps += s->warm_started;
    out->at_start_steps += s->at_start;
    out->polished_steps += s->polished;
    out->stacked_steps += s->stacked;
    out->split_steps += s->split;
    if (s->status >= 0 && s->status < RS_STATUS_SLOTS)
        out->status_counts[s->status]++;
    if (s->path >= 0 && s->path < RS_PATH_COUNT)
        out->path_counts[s->path]++;
    const double step_iters = s->iterations + s->stack_iterations;
    const double us = 1e6 * s->time_s;
    a->iterations += step_iters;
    a->time_us_sum += us;
    rs_time_histogram_add(&a->all, us);
    out->us_per_step_max = fmax(out->us_per_step_max, us);
    if (s->path != RS_PATH_NONE && !s->at_start) { /* an NLP step that called IPOPT */
        out->ipopt_steps++;
        rs_time_histogram_add(&a->ipopt, us);
        a->ipopt_iterations += step_iters;
        if (step_iters > 0.0) {
            a->iterating++;
            rs_time_histogram_add(&a->ipopt_iterating, us);
        }
        out->warm_from_contact_free_steps += s->path_attempts[RS_PATH_IPOPT_WARM] > 0 &&
                                             s->warm_from == RS_PATH_START_CONTACT_FREE;
    }
    for (int c = 0; c < a->ncol; c++) { /* a NaN, once seen, stays: it fails every check */
        const double v = rs_step_column(m, s, c);
        out->min[c] = isnan(out->min[c]) || isnan(v) ? NAN : fmin(out->min[c], v);
        out->max[c] = isnan(out->max[c]) || isnan(v) ? NAN : fmax(out->max[c], v);
        out->final[c] = v;
    }
    for (int i = 0; i < m->ncontacts && out->first_contact_step < 0; i++)
        if (s->modes[i] != RS_MODE_SEPARATING)
            out->first_contact_step = k;
    int at_rest = 1; /* rest_speed is in units of the step's natural speed */
    for (int v = 0; v < m->nvelocity; v++)
        at_rest &= fabs(s->state_next[m->velocity_index[v]]) <= rest_speed * s->scales.speed;
    if (!at_rest)
        a->last_moving = k;
}

void rs_trajectory_acc_finish(const rs_trajectory_acc *a, double dt, rs_trajectory_stats *out)
{
    const int n = a->steps;
    const int rest_from = a->last_moving + 1; /* from this step on every velocity is at rest */
    out->rest_time_s = rest_from < n ? (rest_from + 1) * dt : NAN;
    out->iterations_mean = n ? a->iterations / n : NAN;
    out->us_per_step_mean = n ? a->time_us_sum / n : NAN;
    out->us_per_step_median = rs_time_histogram_median(&a->all);
    out->us_per_ipopt_step_median = rs_time_histogram_median(&a->ipopt);
    out->ipopt_steps_no_iteration = out->ipopt_steps - a->iterating;
    out->us_per_iterating_ipopt_step_median = rs_time_histogram_median(&a->ipopt_iterating);
    out->iterations_per_ipopt_step = out->ipopt_steps ? a->ipopt_iterations / out->ipopt_steps
                                                      : NAN;
}
