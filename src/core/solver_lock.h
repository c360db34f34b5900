/*
 * solver_lock.h (internal): one process-wide lock around the calls into IPOPT and MUMPS.
 *
 * Debian's IPOPT 3.11 runs its linear systems through sequential MUMPS, which keeps global state
 * (its Fortran runtime, its load-balancing module) and is not thread-safe: two simulations
 * solving NLP steps in two threads at once crash in MUMPS (IPOPT serialises MUMPS itself only
 * from 3.14 on). Every IpoptSolve, FreeIpoptProblem and dmumps_c call holds this lock, so that
 * handles used from different threads stay independent; within one thread nothing changes.
 */
#ifndef RS_CORE_SOLVER_LOCK_H
#define RS_CORE_SOLVER_LOCK_H

void rs_solver_lock(void);
void rs_solver_unlock(void);

#endif
