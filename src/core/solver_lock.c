/* solver_lock.c: the process-wide lock around IPOPT and MUMPS (solver_lock.h). */
#include "core/solver_lock.h"

#include <pthread.h>

static pthread_mutex_t solver_mutex = PTHREAD_MUTEX_INITIALIZER;

void rs_solver_lock(void)
{
    pthread_mutex_lock(&solver_mutex);
}

void rs_solver_unlock(void)
{
    pthread_mutex_unlock(&solver_mutex);
}
