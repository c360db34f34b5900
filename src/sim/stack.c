/* stack.c: K runs in lock-step, their step NLPs solved as one block-diagonal NLP (see stack.h). */
#include <stdlib.h>
#include <string.h>

#include "sim/stack.h"
#include "core/timer.h"
#include "nlp/ipopt_solver.h"

int rs_stack_compatible(const rs_scenario *a, const rs_scenario *b)
{
    return a->model == b->model && a->variant == b->variant && a->steps == b->steps &&
           a->nlp.tol == b->nlp.tol && a->nlp.max_iter == b->nlp.max_iter &&
           a->nlp.mu_init == b->nlp.mu_init && a->nlp.warm_start && b->nlp.warm_start;
}

typedef struct stack {
    int count;                   /* runs */
    rs_compare_session **runs;
    rs_step_result *res;         /* this step's NLP result of each run */
    int *member;                 /* runs in this step's stacked NLP, in block order */
    int nmember;
    int *solver_member;          /* the runs the cached solver was built for */
    int solver_nmember;
    rs_ipopt_solver *solver;     /* reused while the membership stays the same */
    rs_nlp_problem *blocks;
    double *x;                   /* the stack's iterate */
    rs_nlp_settings nlp;
    int n, m;                    /* one block */
} stack;

/* The block-diagonal solver for this step's members: the cached one if they are the same. */
static rs_error stack_solver(stack *st)
{
    if (st->solver && st->solver_nmember == st->nmember &&
        memcmp(st->solver_member, st->member, sizeof(int) * (size_t)st->nmember) == 0)
        return RS_OK;
    rs_ipopt_destroy(st->solver);
    st->solver = NULL;
    for (int i = 0; i < st->nmember; i++)
        st->blocks[i] = *rs_stepper_nlp_problem(rs_compare_stepper(st->runs[st->member[i]]));
    const rs_error err = rs_ipopt_create_blocks(st->blocks, st->nmember, &st->nlp, &st->solver);
    if (err == RS_OK) {
        memcpy(st->solver_member, st->member, sizeof(int) * (size_t)st->nmember);
        st->solver_nmember = st->nmember;
    }
    return err;
}

/* A run's step by its own solver; the time already spent on the step (its start check) kept. */
static void solve_alone_timed(rs_stepper *run, rs_step_result *r)
{
    const double before = r->time_s, t0 = rs_wall_seconds();
    rs_stepper_nlp_solve_alone(run, r);
    r->time_s = before + (rs_wall_seconds() - t0);
}

/* Solve the members' NLPs as one; accept or split out each block (stack.h, steps 3 and 4). */
static void solve_members(stack *st)
{
    const size_t n = (size_t)st->n, m = (size_t)st->m;
    if (st->nmember < 2 || stack_solver(st) != RS_OK) {
        for (int i = 0; i < st->nmember; i++)
            solve_alone_timed(rs_compare_stepper(st->runs[st->member[i]]),
                              &st->res[st->member[i]]);
        return;
    }
    double *mg, *ml, *mu;
    rs_ipopt_multipliers(st->solver, &mg, &ml, &mu);
    for (int i = 0; i < st->nmember; i++)
        rs_stepper_nlp_warm_point(rs_compare_stepper(st->runs[st->member[i]]), st->x + i * n,
                                  mg + i * m, ml + i * n, mu + i * n);
    const double t0 = rs_wall_seconds();
    int iters = 0;
    const rs_nlp_status status = rs_ipopt_solve(st->solver, st->x, 1, NULL, &iters);
    const double share = (rs_wall_seconds() - t0) / st->nmember;
    for (int i = 0; i < st->nmember; i++) {
        rs_stepper *run = rs_compare_stepper(st->runs[st->member[i]]);
        rs_step_result *r = &st->res[st->member[i]];
        const double *xi = st->x + i * n;
        const int ok = rs_nlp_status_ok(status)
                           ? rs_stepper_nlp_accept(run, xi, mg + i * m, ml + i * n, mu + i * n,
                                                   status, r)
                           : rs_stepper_nlp_check_point(run, xi, mg + i * m, ml + i * n,
                                                        mu + i * n, r);
        if (!ok) {
            solve_alone_timed(run, r);
            r->split = 1;
        }
        r->stacked = 1;
        r->iterations += iters;
        r->attempts += !ok;
        r->time_s += share;
    }
}

/* Step k of every run: start points, the stacked solve, then each run's comparison step. */
static void stack_step(stack *st, int k)
{
    st->nmember = 0;
    for (int b = 0; b < st->count; b++) {
        rs_stepper *run = rs_compare_stepper(st->runs[b]);
        rs_step_result *r = &st->res[b];
        memset(r, 0, sizeof *r);
        const double *input = rs_compare_input(st->runs[b], k);
        rs_stepper_nlp_begin(run, rs_compare_nlp_state(st->runs[b]), input);
        const double t0 = rs_wall_seconds();
        if (!rs_stepper_nlp_try_start(run, r)) {
            if (rs_stepper_nlp_can_warm_start(run))
                st->member[st->nmember++] = b;
            else
                rs_stepper_nlp_solve_alone(run, r);
        }
        r->time_s = rs_wall_seconds() - t0;
    }
    solve_members(st);
    for (int b = 0; b < st->count; b++)
        rs_compare_advance(st->runs[b], k, &st->res[b]);
}

static void stack_free(stack *st)
{
    rs_ipopt_destroy(st->solver);
    free(st->runs);
    free(st->res);
    free(st->member);
    free(st->blocks);
    free(st->x);
}

rs_error rs_compare_run_stacked(const rs_scenario *const *scs, int count, rs_run_mode mode,
                                rs_compare_result *outs)
{
    if (!scs || !outs)
        return RS_ERR_NULL_ARG;
    if (count < 1)
        return RS_ERR_DIMENSION;
    for (int b = 1; b < count; b++)
        if (!rs_stack_compatible(scs[0], scs[b]))
            return RS_ERR_BAD_ARG;
    stack st = {0};
    st.count = count;
    st.nlp = scs[0]->nlp;
    st.runs = calloc((size_t)count, sizeof *st.runs);
    st.res = calloc((size_t)count, sizeof *st.res);
    st.member = malloc(sizeof(int) * 2 * (size_t)count);
    st.blocks = malloc(sizeof *st.blocks * (size_t)count);
    rs_error err = st.runs && st.res && st.member && st.blocks ? RS_OK : RS_ERR_NOMEM;
    int started = 0;
    for (; err == RS_OK && started < count; started++)
        err = rs_compare_begin(scs[started], mode, &outs[started], &st.runs[started]);
    if (err == RS_OK) {
        const rs_nlp_problem *p = rs_stepper_nlp_problem(rs_compare_stepper(st.runs[0]));
        st.n = p->n;
        st.m = p->m;
        st.solver_member = st.member + count;
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
    const int run_nlp = mode != RS_RUN_LEMKE;
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
