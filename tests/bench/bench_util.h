/* bench_util.h: the median shared by the benchmarks (the clock is core/timer.h's). */
#ifndef RS_BENCH_UTIL_H
#define RS_BENCH_UTIL_H

#include <stdlib.h>

#include "core/timer.h"

static inline int bench_cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of x[0..n-1] (sorts x). */
static inline double bench_median(double *x, int n)
{
    qsort(x, (size_t)n, sizeof *x, bench_cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

#endif
