/*
 * stack.h (internal): stacked solves. K runs of the same model advance in lock-step and, at every
 * step, the NLPs of the runs that need IPOPT are solved as ONE block-diagonal NLP
 * (ipopt_solver.h), so IPOPT's fixed cost per solve (building its algorithm, a MUMPS instance) is
 * paid once for all of them.
 *
 * One step of the stack:
 *   1. each run tries its start points (nlp.check_start): those that pass need no solver;
 *   2. a run without a previous solution (its first step, or after a failed step) is solved
 *      alone, cold, as in an unstacked run;
 *   3. the others form the stack, warm-started from their previous primal-dual solutions (with
 *      one member it is simply solved alone);
 *   4. after the stacked solve, a block is accepted if IPOPT succeeded and the block's own
 *      certificate passes, or, when IPOPT failed, if the block's final point passes the KKT
 *      check on its own. Any other block is SPLIT OUT: re-solved alone by its run's own solver,
 *      with the usual retries, and counted (rs_step_result.split).
 * Every step of a stacked run therefore meets the same acceptance rules as an unstacked one; the
 * figures differ only within the solver tolerance (the stack's iterations are shared). A step's
 * time_s is its share of the stacked solve plus its own work.
 */
#ifndef RS_SIM_STACK_H
#define RS_SIM_STACK_H

#include "sim/compare.h"

/* 1 if scenarios a and b can share a stack: same model, variant, number of steps and IPOPT
 * options (tol, max_iter, mu_init), both warm-started. Parameters, dt, initial state, inputs,
 * eps and the penalty may differ. */
int rs_stack_compatible(const rs_scenario *a, const rs_scenario *b);

/* Run scenarios scs[0..count) (pairwise compatible, count >= 1) in lock-step with stacked NLP
 * solves; outs[i] is what rs_compare_run(scs[i], mode) reports. On error every out is freed. */
rs_error rs_compare_run_stacked(const rs_scenario *const *scs, int count, rs_run_mode mode,
                                rs_compare_result *outs);

#endif
