/*
 * stack.h (internal): stacked solves. K runs of the same model advance in lock-step and, at every
 * step, the NLPs of the runs that need IPOPT are solved as ONE block-diagonal NLP
 * (ipopt_solver.h), so IPOPT's fixed cost per solve (building its algorithm, a MUMPS instance) is
 * paid once for all of them.
 *
 * One step of the stack:
 *   1. each run tries its start points (nlp.check_start): those that pass need no solver;
 *   2. the others are solved attempt by attempt, as a run alone would be, but each attempt is one
 *      stacked solve: attempt 0 stacks the runs that warm start from their previous primal-dual
 *      solutions, and separately the runs that cannot (their first step, or after a failed
 *      step), from the model's starting point 0; attempt a >= 1 stacks every run still unsolved
 *      that has a retry left, from the model's starting point a. A warm start that fails in
 *      the stack mostly fails alone too (an impact: the contact set changes), so its cold
 *      retries, 50 iterations or more, are shared by all the runs that hit it at once;
 *   3. after each stacked solve, a block is accepted if IPOPT succeeded and the block's own
 *      certificate passes, or, when IPOPT failed, if the block's final point passes the KKT
 *      check on its own;
 *   4. a run alone in its attempt-0 stack, or unsolved after its last stacked attempt, is
 *      solved alone by its run's own solver with the usual retries; in the second case it is
 *      SPLIT OUT and counted (rs_step_result.split).
 * Every step of a stacked run therefore meets the same acceptance rules as an unstacked one; the
 * figures differ only within the solver tolerance (the stack's iterations are shared). A step's
 * time_s is its share of the stacked solves plus its own work.
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
