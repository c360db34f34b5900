/*
 * stack.h (internal): stacked solves. K runs of the same model advance in lock-step and, at every
 * step, the NLPs of the runs that need IPOPT are solved as ONE block-diagonal NLP
 * (ipopt_solver.h), so IPOPT's fixed cost per solve (building its algorithm, a MUMPS instance) is
 * paid once for all of them.
 *
 * One step of the stack:
 *   1. each run tries its start points (nlp.check_start): those that pass need no solver;
 *   2. the others are solved path by path, as a run alone would be (stepper.h), but each IPOPT
 *      path is one stacked solve: first the runs that warm start from their previous primal-dual
 *      solutions (ipopt_warm), and separately the runs that cannot (their first step, after a
 *      failed step, warm starts off), from their contact-free predictions (ipopt_cold); then
 *      the runs whose warm start failed and that have a retry left, stacked cold. A warm start
 *      that fails in the stack mostly fails alone too (an impact: the contact set changes), so
 *      its cold retry is shared by all the runs that hit it at once;
 *   3. after a stacked solve that IPOPT reports successful, each block is accepted only if it
 *      passes its own KKT test at nlp.tol (IPOPT's termination test is joint over the stack) and
 *      its certificate; a block of a failed stacked solve is never accepted there;
 *   4. a run alone in its stack, or unsolved after its stacked paths, is solved alone by its
 *      run's own solver along its whole ladder; in the second case it is SPLIT OUT and counted
 *      (rs_step_result.split).
 * Every step of a stacked run therefore meets the same acceptance rules as an unstacked one; the
 * figures differ only within the solver tolerance. A stacked solve of K blocks charges each run
 * 1/K of its iterations (rs_step_result.stack_iterations) and of its time.
 */
#ifndef RS_SIM_STACK_H
#define RS_SIM_STACK_H

#include "sim/compare.h"

/* 1 if scenarios a and b can share a stack: same model, variant, number of steps and every NLP
 * setting (tolerances, iteration limit, eps, penalty and its weight, barrier, warm start,
 * retries, start check): blocks must pose and judge the same problem. Parameters, dt, initial
 * state and inputs may differ. */
int rs_stack_compatible(const rs_scenario *a, const rs_scenario *b);

/* 1 if a scenario's model can be stacked at all: its step NLP has one size for the whole run. A
 * model whose step sizes follow its contacts (rs_model.lcp_size: the bodies model) is never
 * stacked; why names the reason (NULL when it can). */
int rs_stack_supported(const rs_scenario *sc, const char **why);

/* How stacked solves are run. */
typedef struct rs_stack_options {
    int warm_max_iter; /* iteration limit of a stacked warm solve (1 .. max_iter; default 50: a
                          warm start that succeeds takes far fewer, one that stalls goes on to
                          its stacked cold retry sooner) */
} rs_stack_options;

void rs_stack_options_default(rs_stack_options *opts);

/* Run scenarios scs[0..count) (pairwise compatible, count >= 1) in lock-step with stacked NLP
 * solves (opts NULL: the defaults); outs[i] is what rs_compare_run_with(scs[i], mode, &each[i])
 * reports (each NULL: rs_compare_run's defaults, steps kept). On error every out is freed. */
rs_error rs_compare_run_stacked(const rs_scenario *const *scs, int count, rs_run_mode mode,
                                const rs_stack_options *opts, const rs_compare_options *each,
                                rs_compare_result *outs);

#endif
