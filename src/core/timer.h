/* timer.h (internal): monotonic wall clock in seconds. */
#ifndef RS_CORE_TIMER_H
#define RS_CORE_TIMER_H

#include <time.h>

static inline double rs_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
