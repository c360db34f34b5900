/* stack.c: K runs in lock-step, their step NLPs solved as one block-diagonal NLP (see stack.h). */
#include <stdlib.h>
#include <string.h>

#include "sim/stack.h"
#include "core/timer.h"
#include "nlp/ipopt_solver.h"

int rs_stack_supported(const rs_scenario *sc, const char **why)
{
    const int supported = !sc->model->lcp_size;
    if (why)
        *why = supported ? NULL
                         : "its steps change size with their contacts, and a stack solves "
                           "every run's step as one block-diagonal NLP of a fixed layout";
    return supported;
}

int rs_stack_compatible(const rs_scenario *a, const rs_scenario *b)
{
    const rs_nlp_settings *x = &a->nlp, *y = &b->nlp;
    return a->model == b->model && rs_stack_supported(a, NULL) && a->variant == b->variant &&
           a->steps == b->steps &&
           x->tol == y->tol && x->max_iter == y->max_iter && x->eps == y->eps &&
           x->penalty == y->penalty && x->penalty_weight == y->penalty_weight &&
           x->warm_start == y->warm_start && x->mu_init == y->mu_init &&
           x->retries == y->retries && x->cert_tol == y->cert_tol &&
           x->check_start == y->check_start && x->relax_lcp == y->relax_lcp &&
           x->polish == y->polish;
}

/*
 * Default iteration limit of a stacked warm solve. A warm start that stalls (an impact: the
 * contact set changes) would run on to max_iter, 200 iterations of the whole stack, before its
 * cold retry. A warm solve stopped here goes on to that retry, then alone with the full limit,
 * so no step is given up earlier than alone.
 */
void rs_stack_options_default(rs_stack_options *opts)
{
    opts->warm_max_iter = 50;
}

typedef struct stack {
    int count;                   /* runs */
    const rs_scenario *const *scs; /* each run's scenario */
    rs_compare_session **runs;
    rs_step_result *res;         /* this step's NLP result of each run */
    int *need;                   /* this step's runs not solved by their start point */
    int *cold;                   /* those of them that cannot warm start */
    int *solver_member;          /* the runs the cached solver was built for, in block order */
    int solver_nmember;
    rs_ipopt_solver *solver;     /* reused while the membership stays the same */
    rs_nlp_problem *blocks;
    double *x;                   /* the stack's iterate */
    rs_nlp_settings nlp;
    int warm_max_iter;           /* rs_stack_options */
    int n, m;                    /* one block */
} stack;

/* The block-diagonal solver for the runs group[0..count), in block order: the cached one if it
 * was built for the same runs. */
static rs_error stack_solver(stack *st, const int *group, int count)
{
    if (st->solver && st->solver_nmember == count &&
        memcmp(st->solver_member, group, sizeof(int) * (size_t)count) == 0)
        return RS_OK;
    rs_ipopt_destroy(st->solver);
    st->solver = NULL;
    for (int i = 0; i < count; i++)
        st->blocks[i] = *rs_stepper_nlp_problem(rs_compare_stepper(st->runs[group[i]]));
    const rs_error err = rs_ipopt_create_blocks(st->blocks, count, &st->nlp, &st->solver);
    if (err == RS_OK) {
        memcpy(st->solver_member, group, sizeof(int) * (size_t)count);
        st->solver_nmember = count;
    }
    return err;
}

/* Run b's step by its own solver: the time, attempts and stacked iterations already spent on
 * the step (its start check, its stacked paths) are kept; after stacked paths it is split out. */
static void solve_run_alone(stack *st, int b)
{
    rs_stepper *run = rs_compare_stepper(st->runs[b]);
    rs_step_result *r = &st->res[b];
    /* what the step has spent so far (the solve below clears r) */
    const double time_s = r->time_s, stack_iterations = r->stack_iterations;
    const int attempts = r->attempts, stacked = r->stacked;
    int path_attempts[RS_PATH_COUNT];
    memcpy(path_attempts, r->path_attempts, sizeof path_attempts);
    const double t0 = rs_wall_seconds();
    rs_stepper_nlp_solve_alone(run, r);
    r->time_s = time_s + (rs_wall_seconds() - t0);
    r->attempts += attempts;
    r->stack_iterations = stack_iterations;
    for (int p = 0; p < RS_PATH_COUNT; p++)
        r->path_attempts[p] += path_attempts[p];
    r->stacked = stacked;
    r->split = stacked;
}

/*
 * One stacked solve of the runs group[0..count) (count >= 2) by IPOPT path `path` (ipopt_warm:
 * each block from its previous primal-dual solution; ipopt_cold: from its contact-free
 * prediction). When IPOPT succeeds, each block is accepted on its polish (nlp.polish, as alone)
 * or its own KKT test at tol, and its certificate (stack.h, 3). The runs not accepted are moved to the front of group; returns their
 * number.
 */
static int stack_attempt(stack *st, int *group, int count, int path)
{
    const size_t n = (size_t)st->n, m = (size_t)st->m;
    if (stack_solver(st, group, count) != RS_OK)
        return count; /* no stacked solver (out of memory): every run goes on alone */
    double *mg, *ml, *mu;
    rs_ipopt_multipliers(st->solver, &mg, &ml, &mu);
    const int warm = path == RS_PATH_IPOPT_WARM;
    for (int i = 0; i < count; i++)
        rs_stepper_nlp_start_point(rs_compare_stepper(st->runs[group[i]]), path, st->x + i * n,
                                   mg + i * m, ml + i * n, mu + i * n,
                                   &st->res[group[i]].warm_from);
    const int max_iter = st->nlp.max_iter;
    rs_ipopt_set_max_iter(st->solver, warm && max_iter > st->warm_max_iter ? st->warm_max_iter
                                                                           : max_iter);
    const double t0 = rs_wall_seconds();
    int iters = 0;
    const rs_nlp_status status = rs_ipopt_solve(st->solver, st->x, warm, NULL, &iters);
    const double share = (rs_wall_seconds() - t0) / count;
    int left = 0;
    for (int i = 0; i < count; i++) {
        rs_stepper *run = rs_compare_stepper(st->runs[group[i]]);
        rs_step_result *r = &st->res[group[i]];
        /* its own polish first (the same as alone), then its KKT test at tol */
        const double *xb = st->x + i * n;
        const int ok = rs_nlp_status_ok(status) &&
                       (rs_stepper_nlp_accept_polished(run, xb, mg + i * m, ml + i * n,
                                                       mu + i * n, RS_NLP_SOLVED, r) ||
                        rs_stepper_nlp_check_point(run, xb, mg + i * m, ml + i * n, mu + i * n,
                                                   r));
        r->stacked = 1;
        r->path = path;
        r->path_attempts[path]++;
        r->stack_iterations += (double)iters / count;
        r->attempts++;
        r->time_s += share;
        if (!ok)
            group[left++] = group[i];
    }
    return left;
}

/*
 * Solve the NLPs of the runs in need[0..count) (stack.h, step 2): the warm stack and the cold
 * stack, then the failed warm runs with a retry left stacked cold; a run alone in its stack is
 * solved alone, and a run unsolved after its stacked paths is split out and solved alone.
 */
static void solve_members(stack *st, int *need, int count)
{
    int *cold = st->cold;
    int nwarm = 0, ncold = 0;
    for (int i = 0; i < count; i++) {
        if (rs_stepper_nlp_can_warm_start(rs_compare_stepper(st->runs[need[i]])))
            need[nwarm++] = need[i];
        else
            cold[ncold++] = need[i];
    }
    int left = 0;
    if (nwarm >= 2)
        left = stack_attempt(st, need, nwarm, RS_PATH_IPOPT_WARM);
    else if (nwarm == 1)
        solve_run_alone(st, need[0]);
    /* failed warm starts with a retry left join the cold stack */
    int unsolved_warm = 0;
    for (int i = 0; i < left; i++) {
        if (st->scs[need[i]]->nlp.retries >= 1)
            cold[ncold++] = need[i];
        else
            need[unsolved_warm++] = need[i];
    }
    left = unsolved_warm;
    if (ncold >= 2)
        ncold = stack_attempt(st, cold, ncold, RS_PATH_IPOPT_COLD);
    memcpy(need + left, cold, sizeof(int) * (size_t)ncold);
    left += ncold;
    for (int i = 0; i < left; i++)
        solve_run_alone(st, need[i]);
}

/* Step k of every run: start points, the stacked solves, then each run's comparison step. */
static void stack_step(stack *st, int k)
{
    int count = 0;
    for (int b = 0; b < st->count; b++) {
        rs_stepper *run = rs_compare_stepper(st->runs[b]);
        rs_step_result *r = &st->res[b];
        rs_step_result_clear(r, st->scs[b]->model);
        const double *input = rs_compare_input(st->runs[b], k);
        rs_stepper_nlp_begin(run, rs_compare_nlp_state(st->runs[b]), input);
        const double t0 = rs_wall_seconds();
        if (!rs_stepper_nlp_try_start(run, r))
            st->need[count++] = b;
        r->time_s = rs_wall_seconds() - t0;
    }
    solve_members(st, st->need, count);
    for (int b = 0; b < st->count; b++)
        rs_compare_advance(st->runs[b], k, &st->res[b]);
}

static void stack_free(stack *st)
{
    rs_ipopt_destroy(st->solver);
    free(st->runs);
    for (int b = 0; st->res && b < st->count; b++)
        rs_step_result_free(&st->res[b]);
    free(st->res);
    free(st->solver_member);
    free(st->blocks);
    free(st->x);
}

rs_error rs_compare_run_stacked(const rs_scenario *const *scs, int count, rs_run_mode mode,
                                const rs_stack_options *opts, const rs_compare_options *each,
                                rs_compare_result *outs)
{
    if (!scs || !outs)
        return RS_ERR_NULL_ARG;
    if (count < 1)
        return RS_ERR_DIMENSION;
    rs_stack_options defaults;
    rs_stack_options_default(&defaults);
    if (!opts)
        opts = &defaults;
    if (opts->warm_max_iter < 1)
        return RS_ERR_BAD_SETTING;
    for (int b = 1; b < count; b++)
        if (!rs_stack_compatible(scs[0], scs[b]))
            return RS_ERR_BAD_ARG;
    stack st = {0};
    st.count = count;
    st.nlp = scs[0]->nlp;
    st.warm_max_iter = opts->warm_max_iter;
    st.runs = calloc((size_t)count, sizeof *st.runs);
    st.res = calloc((size_t)count, sizeof *st.res);
    st.scs = scs;
    st.solver_member = malloc(sizeof(int) * 3 * (size_t)count); /* then need, cold */
    st.blocks = malloc(sizeof *st.blocks * (size_t)count);
    rs_error err = st.runs && st.res && st.solver_member && st.blocks ? RS_OK : RS_ERR_NOMEM;
    for (int b = 0; err == RS_OK && b < count; b++)
        err = rs_step_result_init(&st.res[b], scs[b]->model);
    int started = 0;
    for (; err == RS_OK && started < count; started++)
        err = each ? rs_compare_begin_with(scs[started], mode, &each[started], &outs[started],
                                           &st.runs[started])
                   : rs_compare_begin(scs[started], mode, &outs[started], &st.runs[started]);
    const int run_nlp = mode != RS_RUN_LEMKE;
    if (err == RS_OK && run_nlp) { /* (a Lemke-only run has no NLP stepper, nothing stacked) */
        const rs_nlp_problem *p = rs_stepper_nlp_problem(rs_compare_stepper(st.runs[0]));
        st.n = p->n;
        st.m = p->m;
        st.need = st.solver_member + count;
        st.cold = st.need + count;
        st.x = malloc(sizeof(double) * (size_t)count * (size_t)st.n);
        if (!st.x)
            err = RS_ERR_NOMEM;
    }
    if (err != RS_OK) {
        for (int b = 0; b < started; b++)
            if (st.runs[b])
                rs_compare_abort(st.runs[b]);
        stack_free(&st);
        return err;
    }
    for (int k = 0; k < scs[0]->steps; k++) {
        if (run_nlp) {
            stack_step(&st, k);
        } else {
            for (int b = 0; b < count; b++) {
                rs_compare_input(st.runs[b], k);
                rs_compare_advance(st.runs[b], k, NULL);
            }
        }
    }
    for (int b = 0; b < count; b++) {
        const rs_error e = rs_compare_end(st.runs[b]);
        if (e != RS_OK && err == RS_OK)
            err = e;
    }
    stack_free(&st);
    if (err != RS_OK)
        for (int b = 0; b < count; b++)
            rs_compare_free(&outs[b]);
    return err;
}
