/*
 * ipopt_solver.c: the IPOPT adapter, the only file that includes IpStdCInterface.h.
 *
 * Turns one rs_nlp_problem, or a stack of nblocks of them (see ipopt_solver.h), into IPOPT 3.11
 * C callbacks. The structure is block-diagonal: block b's dense Jacobian occupies rows
 * [b m, b m + m) x columns [b n, b n + n), its Hessian triangle the same diagonal block. Facts
 * about the Debian build that shape this file:
 *   - one IpoptProblem is reused across steps (options may change between IpoptSolve calls);
 *   - print_level 0 needs sb yes to hide the banner; option_file_name "" stops a stray ipopt.opt
 *     in the working directory from changing the options;
 *   - only linear_solver mumps is allowed (ma97 calls exit() in this build);
 *   - every MUMPS call costs tens of microseconds however small the matrix (MUMPS 5.5 sizes its
 *     own structure after each call), so linear solves are the unit of cost: see
 *     min_refinement_steps below;
 *   - the intermediate callback is the way to count iterations;
 *   - x is overwritten even on failure, so the caller always checks the return status.
 */
#include <IpStdCInterface.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/solver_lock.h"
#include "nlp/ipopt_solver.h"
#include "lcp/lcp_internal.h"

struct rs_ipopt_solver {
    rs_nlp_problem *blocks;        /* nblocks problems of size (n, m) */
    int nblocks, n, m;             /* per block */
    rs_nlp_settings s;
    IpoptProblem ipopt;
    double *x_l, *x_u, *g_l, *g_u; /* constant bounds, whole stack */
    double *H;                     /* one block's dense Hessian */
    double *J;                     /* one block's dense Jacobian (sparse structure only) */
    /* with a sparse structure (rs_nlp_problem.sparsity): each block's nonzeros as offsets into
     * its dense Jacobian and Hessian, block b's from jac_first[b] (hess_first[b]) on */
    int sparse;
    int *jac_at, *hess_at, *jac_first, *hess_first;
    int triplets;                  /* the blocks give triplets (rs_nlp_problem.structure) */
    int *tri_rows;                 /* scratch: one block's Jacobian and Hessian (row, col) */
    double *g;                     /* constraint values at the final point */
    double *mult_g, *mult_x_l, *mult_x_u;
    int iterations;                /* set by the intermediate callback */
};

/* ---- callbacks: each loops over the blocks ---------------------------------------------------- */

static Bool cb_eval_f(Index n, Number *x, Bool new_x, Number *obj, UserDataPtr user)
{
    (void)n;
    (void)new_x;
    const rs_ipopt_solver *s = user;
    double f = 0.0;
    for (int b = 0; b < s->nblocks; b++)
        f += s->blocks[b].eval_f(s->blocks[b].ctx, x + (size_t)b * s->n);
    *obj = f;
    return isfinite(f);
}

static Bool cb_eval_grad_f(Index n, Number *x, Bool new_x, Number *grad, UserDataPtr user)
{
    (void)new_x;
    const rs_ipopt_solver *s = user;
    for (int b = 0; b < s->nblocks; b++) {
        const size_t off = (size_t)b * s->n;
        s->blocks[b].eval_grad_f(s->blocks[b].ctx, x + off, grad + off);
    }
    return rs_all_finite(grad, (size_t)n);
}

static Bool cb_eval_g(Index n, Number *x, Bool new_x, Index m, Number *g, UserDataPtr user)
{
    (void)n;
    (void)new_x;
    const rs_ipopt_solver *s = user;
    for (int b = 0; b < s->nblocks; b++)
        s->blocks[b].eval_g(s->blocks[b].ctx, x + (size_t)b * s->n, g + (size_t)b * s->m);
    return rs_all_finite(g, (size_t)m);
}

static Bool cb_eval_jac(Index n, Number *x, Bool new_x, Index m, Index nele, Index *irow,
                        Index *jcol, Number *values, UserDataPtr user)
{
    (void)n;
    (void)m;
    (void)new_x;
    rs_ipopt_solver *s = user;
    const int bn = s->n, bm = s->m;
    if (s->triplets) { /* each block's own triplets, shifted to its rows and columns */
        const int nj = s->blocks[0].nnz_jac, nh = s->blocks[0].nnz_hess;
        for (int b = 0; b < s->nblocks; b++) {
            const rs_nlp_problem *p = &s->blocks[b];
            if (values) {
                p->jac_values(p->ctx, x + (size_t)b * bn, values + (size_t)b * nj);
                continue;
            }
            int *jr = s->tri_rows, *jc = jr + nj, *hr = jc + nj, *hc = hr + nh;
            p->structure(p->ctx, jr, jc, hr, hc);
            for (int k = 0; k < nj; k++) {
                irow[(size_t)b * nj + k] = b * bm + jr[k];
                jcol[(size_t)b * nj + k] = b * bn + jc[k];
            }
        }
        return values ? rs_all_finite(values, (size_t)nele) : TRUE;
    }
    if (s->sparse) { /* the given structure; values gathered from the dense Jacobian */
        for (int b = 0; b < s->nblocks; b++) {
            if (values)
                s->blocks[b].eval_jac(s->blocks[b].ctx, x + (size_t)b * bn, s->J);
            for (int k = s->jac_first[b]; k < s->jac_first[b + 1]; k++) {
                const int at = s->jac_at[k];
                if (values)
                    values[k] = s->J[at];
                else {
                    irow[k] = b * bm + at % bm;
                    jcol[k] = b * bn + at / bm;
                }
            }
        }
        return values ? rs_all_finite(values, (size_t)nele) : TRUE;
    }
    if (!values) { /* structure: block by block, each dense, column by column */
        for (Index b = 0, k = 0; b < s->nblocks; b++)
            for (Index j = 0; j < bn; j++)
                for (Index i = 0; i < bm; i++, k++) {
                    irow[k] = b * bm + i;
                    jcol[k] = b * bn + j;
                }
        return TRUE;
    }
    const size_t per_block = (size_t)bm * (size_t)bn;
    for (int b = 0; b < s->nblocks; b++) /* dense column-major = the structure's order */
        s->blocks[b].eval_jac(s->blocks[b].ctx, x + (size_t)b * bn, values + b * per_block);
    return rs_all_finite(values, (size_t)nele);
}

static Bool cb_eval_h(Index n, Number *x, Bool new_x, Number obj_factor, Index m, Number *lambda,
                      Bool new_lambda, Index nele, Index *irow, Index *jcol, Number *values,
                      UserDataPtr user)
{
    (void)n;
    (void)m;
    (void)new_x;
    (void)new_lambda;
    rs_ipopt_solver *s = user;
    const int bn = s->n;
    if (s->triplets) {
        const int nj = s->blocks[0].nnz_jac, nh = s->blocks[0].nnz_hess;
        for (int b = 0; b < s->nblocks; b++) {
            const rs_nlp_problem *p = &s->blocks[b];
            if (values) {
                p->hess_values(p->ctx, x + (size_t)b * bn, obj_factor, lambda + (size_t)b * s->m,
                               values + (size_t)b * nh);
                continue;
            }
            int *jr = s->tri_rows, *jc = jr + nj, *hr = jc + nj, *hc = hr + nh;
            p->structure(p->ctx, jr, jc, hr, hc);
            for (int k = 0; k < nh; k++) {
                irow[(size_t)b * nh + k] = b * bn + hr[k];
                jcol[(size_t)b * nh + k] = b * bn + hc[k];
            }
        }
        return values ? rs_all_finite(values, (size_t)nele) : TRUE;
    }
    if (s->sparse) {
        for (int b = 0; b < s->nblocks; b++) {
            const rs_nlp_problem *p = &s->blocks[b];
            if (values)
                p->eval_hess(p->ctx, x + (size_t)b * bn, obj_factor, lambda + (size_t)b * s->m,
                             s->H);
            for (int k = s->hess_first[b]; k < s->hess_first[b + 1]; k++) {
                const int at = s->hess_at[k];
                if (values)
                    values[k] = s->H[at];
                else {
                    irow[k] = b * bn + at % bn;
                    jcol[k] = b * bn + at / bn;
                }
            }
        }
        return values ? rs_all_finite(values, (size_t)nele) : TRUE;
    }
    if (!values) { /* structure: each block's lower triangle, column by column */
        for (Index b = 0, k = 0; b < s->nblocks; b++)
            for (Index j = 0; j < bn; j++)
                for (Index i = j; i < bn; i++, k++) {
                    irow[k] = b * bn + i;
                    jcol[k] = b * bn + j;
                }
        return TRUE;
    }
    Index k = 0;
    for (int b = 0; b < s->nblocks; b++) {
        const rs_nlp_problem *p = &s->blocks[b];
        p->eval_hess(p->ctx, x + (size_t)b * bn, obj_factor, lambda + (size_t)b * s->m, s->H);
        for (int j = 0; j < bn; j++)
            for (int i = j; i < bn; i++, k++)
                values[k] = s->H[i + (size_t)j * (size_t)bn];
    }
    return rs_all_finite(values, (size_t)nele);
}

static Bool cb_intermediate(Index alg_mod, Index iter_count, Number obj_value, Number inf_pr,
                            Number inf_du, Number mu, Number d_norm, Number regularization_size,
                            Number alpha_du, Number alpha_pr, Index ls_trials, UserDataPtr user)
{
    (void)alg_mod;
    (void)obj_value;
    (void)inf_pr;
    (void)inf_du;
    (void)mu;
    (void)d_norm;
    (void)regularization_size;
    (void)alpha_du;
    (void)alpha_pr;
    (void)ls_trials;
    rs_ipopt_solver *s = user;
    s->iterations = iter_count;
    return TRUE;
}

/* ---- life cycle ----------------------------------------------------------------------------- */

void rs_ipopt_destroy(rs_ipopt_solver *s)
{
    if (!s)
        return;
    if (s->ipopt) {
        rs_solver_lock(); /* frees its MUMPS instance */
        FreeIpoptProblem(s->ipopt);
        rs_solver_unlock();
    }
    free(s->blocks);
    free(s->x_l);
    free(s->J);
    free(s->jac_at);
    free(s->jac_first);
    free(s->tri_rows);
    free(s);
}

/* The sparse structure from each block's masks (rs_nlp_problem.sparsity): offsets of the
 * nonzeros into the block's dense Jacobian and Hessian (lower triangle), and their counts. */
static rs_error sparse_structure(rs_ipopt_solver *s, size_t *nele_jac, size_t *nele_hess)
{
    const size_t n = (size_t)s->n, m = (size_t)s->m, K = (size_t)s->nblocks;
    unsigned char *mask = calloc(m * n + n * n + 1, 1);
    s->J = malloc(sizeof(double) * (m * n + 1));
    s->jac_at = malloc(sizeof(int) * (K * (m * n + n * (n + 1) / 2) + 1));
    s->jac_first = malloc(sizeof(int) * 2 * (K + 1));
    if (!mask || !s->J || !s->jac_at || !s->jac_first) {
        free(mask);
        return RS_ERR_NOMEM;
    }
    s->hess_first = s->jac_first + K + 1;
    int nj = 0, nh = 0;
    int *hess_tmp = malloc(sizeof(int) * (K * n * (n + 1) / 2 + 1));
    if (!hess_tmp) {
        free(mask);
        return RS_ERR_NOMEM;
    }
    for (size_t b = 0; b < K; b++) {
        memset(mask, 0, m * n + n * n);
        s->blocks[b].sparsity(s->blocks[b].ctx, mask, mask + m * n);
        s->jac_first[b] = nj;
        s->hess_first[b] = nh;
        for (size_t at = 0; at < m * n; at++)
            if (mask[at])
                s->jac_at[nj++] = (int)at;
        for (size_t j = 0; j < n; j++) /* the lower triangle only */
            for (size_t i = j; i < n; i++)
                if (mask[m * n + i + j * n])
                    hess_tmp[nh++] = (int)(i + j * n);
    }
    s->jac_first[K] = nj;
    s->hess_first[K] = nh;
    s->hess_at = s->jac_at + nj; /* after the Jacobian's offsets, in the same allocation */
    memcpy(s->hess_at, hess_tmp, sizeof(int) * (size_t)nh);
    free(hess_tmp);
    free(mask);
    *nele_jac = (size_t)nj;
    *nele_hess = (size_t)nh;
    s->sparse = 1;
    return RS_OK;
}

rs_error rs_ipopt_create(const rs_nlp_problem *p, const rs_nlp_settings *settings,
                         rs_ipopt_solver **out)
{
    return rs_ipopt_create_blocks(p, 1, settings, out);
}

static void set_options(IpoptProblem ip, const rs_nlp_settings *st)
{
    AddIpoptStrOption(ip, "option_file_name", "");
    AddIpoptIntOption(ip, "print_level", st->print_level);
    AddIpoptStrOption(ip, "sb", "yes");
    AddIpoptStrOption(ip, "linear_solver", "mumps");
    AddIpoptStrOption(ip, "hessian_approximation", "exact");
    /* Bounds exactly as posed: a relaxed z' >= 0 would be projected back after the solve and
     * leave the velocities inconsistent with the positions (zd' = (z' - z)/dt). */
    AddIpoptNumOption(ip, "bound_relax_factor", 0.0);
    AddIpoptNumOption(ip, "tol", st->tol);
    AddIpoptIntOption(ip, "max_iter", st->max_iter);
    /* IPOPT's default forces one iterative-refinement solve per search direction; without it a
     * refinement still runs whenever the residual of the solve is above residual_ratio_max
     * (1e-10). One MUMPS solve fewer per iteration (a fifth of the time per step). */
    AddIpoptIntOption(ip, "min_refinement_steps", 0);
    /* Used only when warm_start_init_point is yes: keep the previous primal-dual point as it is
     * (IPOPT still moves a value at its bound strictly inside). With pushes of 1e-9 the pushed
     * complementarity pairs and multipliers cost point2d 2.87 iterations per warm step (its
     * free flight 5); with 1e-16, 1.29. */
    AddIpoptNumOption(ip, "warm_start_bound_push", 1e-16);
    AddIpoptNumOption(ip, "warm_start_bound_frac", 1e-16);
    AddIpoptNumOption(ip, "warm_start_slack_bound_push", 1e-16);
    AddIpoptNumOption(ip, "warm_start_slack_bound_frac", 1e-16);
    AddIpoptNumOption(ip, "warm_start_mult_bound_push", 1e-16);
    SetIntermediateCallback(ip, cb_intermediate);
}

rs_error rs_ipopt_create_blocks(const rs_nlp_problem *blocks, int nblocks,
                                const rs_nlp_settings *settings, rs_ipopt_solver **out)
{
    if (!blocks || !out)
        return RS_ERR_NULL_ARG;
    *out = NULL;
    if (nblocks < 1 || blocks[0].n < 1 || blocks[0].m < 0)
        return RS_ERR_DIMENSION;
    for (int b = 1; b < nblocks; b++)
        if (blocks[b].n != blocks[0].n || blocks[b].m != blocks[0].m)
            return RS_ERR_DIMENSION;
    const size_t n = (size_t)blocks[0].n, m = (size_t)blocks[0].m, K = (size_t)nblocks;
    const int triplets = blocks[0].structure != NULL;
    for (int b = 1; b < nblocks; b++)
        if (!blocks[b].structure != !triplets || blocks[b].nnz_jac != blocks[0].nnz_jac ||
            blocks[b].nnz_hess != blocks[0].nnz_hess)
            return RS_ERR_DIMENSION;
    /* IPOPT indexes with int: the whole stack and its nonzeros must fit. */
    if (triplets ? K * ((size_t)blocks[0].nnz_jac + (size_t)blocks[0].nnz_hess + n + m) >
                       100000000u
                 : K * n * (m + n) > 100000000u)
        return RS_ERR_DIMENSION;
    rs_nlp_settings st;
    if (settings)
        st = *settings;
    else
        rs_nlp_settings_default(&st);
    if (rs_nlp_settings_validate(&st, NULL) != RS_OK)
        return RS_ERR_BAD_SETTING;
    rs_ipopt_solver *s = calloc(1, sizeof *s);
    if (!s)
        return RS_ERR_NOMEM;
    s->nblocks = nblocks;
    s->n = (int)n;
    s->m = (int)m;
    s->s = st;
    s->blocks = malloc(sizeof *s->blocks * K);
    /* one allocation: the stack's vectors, then one block's dense Hessian (none with
     * triplets) */
    s->x_l = malloc(sizeof(double) * (K * (4 * n + 4 * m) + (triplets ? 0 : n * n) + 1));
    if (!s->blocks || !s->x_l) {
        rs_ipopt_destroy(s);
        return RS_ERR_NOMEM;
    }
    memcpy(s->blocks, blocks, sizeof *s->blocks * K);
    s->x_u = s->x_l + K * n;
    s->mult_x_l = s->x_u + K * n;
    s->mult_x_u = s->mult_x_l + K * n;
    s->g_l = s->mult_x_u + K * n;
    s->g_u = s->g_l + K * m;
    s->g = s->g_u + K * m;
    s->mult_g = s->g + K * m;
    s->H = s->mult_g + K * m;
    memset(s->mult_x_l, 0, sizeof(double) * 2 * K * n);
    memset(s->mult_g, 0, sizeof(double) * K * m);
    for (size_t b = 0; b < K; b++)
        blocks[b].bounds(blocks[b].ctx, s->x_l + b * n, s->x_u + b * n, s->g_l + b * m,
                         s->g_u + b * m);
    size_t nele_jac = K * m * n, nele_hess = K * n * (n + 1) / 2;
    if (triplets) {
        const size_t nj = (size_t)blocks[0].nnz_jac, nh = (size_t)blocks[0].nnz_hess;
        s->triplets = 1;
        s->tri_rows = malloc(sizeof(int) * (2 * nj + 2 * nh + 1));
        if (!s->tri_rows) {
            rs_ipopt_destroy(s);
            return RS_ERR_NOMEM;
        }
        nele_jac = K * nj;
        nele_hess = K * nh;
    } else if (blocks[0].sparsity) {
        const rs_error err = sparse_structure(s, &nele_jac, &nele_hess);
        if (err != RS_OK) {
            rs_ipopt_destroy(s);
            return err;
        }
    }
    s->ipopt = CreateIpoptProblem((Index)(K * n), s->x_l, s->x_u, (Index)(K * m), s->g_l,
                                  s->g_u, (Index)nele_jac, (Index)nele_hess, 0, cb_eval_f,
                                  cb_eval_g, cb_eval_grad_f, cb_eval_jac, cb_eval_h);
    if (!s->ipopt) {
        rs_ipopt_destroy(s);
        return RS_ERR_BAD_ARG;
    }
    set_options(s->ipopt, &st);
    if (blocks[0].natural_units) {
        /* the blocks are posed in natural units: IPOPT's gradient-based scaling and MUMPS's
         * scaling and permutation would only cost time (about a tenth of an IPOPT step) */
        AddIpoptStrOption(s->ipopt, "nlp_scaling_method", "none");
        AddIpoptIntOption(s->ipopt, "mumps_scaling", 0);
        AddIpoptIntOption(s->ipopt, "mumps_permuting_scaling", 0);
    }
    /* MUMPS's ordering of the KKT system: QAMD (6) where a few variables are in almost every row
     * (it finds quasi-dense rows), else AMD (0) for the small systems posed in natural units,
     * else MUMPS's own choice */
    if (blocks[0].dense_columns)
        AddIpoptIntOption(s->ipopt, "mumps_pivot_order", 6);
    else if (blocks[0].natural_units)
        AddIpoptIntOption(s->ipopt, "mumps_pivot_order", 0);
    *out = s;
    return RS_OK;
}

static rs_nlp_status map_status(enum ApplicationReturnStatus st)
{
    switch (st) {
    case Solve_Succeeded: return RS_NLP_SOLVED;
    case Solved_To_Acceptable_Level: return RS_NLP_ACCEPTABLE;
    /* IPOPT can move the point no further: its primal residual is the rounding of the rows'
     * terms, which can exceed tol (a 1 kg box under a 1e6 kg disc: the box's velocity row sums
     * contact forces of 1e6 times its weight, in natural units 1e6 that cancel, whose rounding
     * is 2.3e-10 against tol = 1e-10); the answer is judged by its certificate, as acceptable */
    case Search_Direction_Becomes_Too_Small: return RS_NLP_TINY_STEP;
    case Infeasible_Problem_Detected: return RS_NLP_INFEASIBLE;
    case Maximum_Iterations_Exceeded: return RS_NLP_MAX_ITER;
    case Restoration_Failed: return RS_NLP_RESTORATION_FAILED;
    case Invalid_Number_Detected: return RS_NLP_EVAL_ERROR;
    default: return RS_NLP_OTHER_FAILURE;
    }
}

rs_nlp_status rs_ipopt_solve_barrier(rs_ipopt_solver *s, double *x, int warm, double mu_init,
                                     double mu_target, int *ipopt_status, int *iterations)
{
    IpoptProblem ip = s->ipopt;
    AddIpoptStrOption(ip, "warm_start_init_point", warm ? "yes" : "no");
    AddIpoptNumOption(ip, "mu_init", mu_init);
    AddIpoptNumOption(ip, "mu_target", mu_target);
    s->iterations = 0;
    double obj = 0.0;
    rs_solver_lock(); /* sequential MUMPS is not thread-safe (core/solver_lock.h) */
    const enum ApplicationReturnStatus st =
        IpoptSolve(ip, x, s->g, &obj, s->mult_g, s->mult_x_l, s->mult_x_u, s);
    rs_solver_unlock();
    if (ipopt_status)
        *ipopt_status = (int)st;
    if (iterations)
        *iterations = s->iterations;
    return map_status(st);
}

rs_nlp_status rs_ipopt_solve(rs_ipopt_solver *s, double *x, int warm, int *ipopt_status,
                             int *iterations)
{
    return rs_ipopt_solve_barrier(s, x, warm, warm ? s->s.mu_init : 0.1, 0.0, ipopt_status,
                                  iterations);
}

void rs_ipopt_set_max_iter(rs_ipopt_solver *s, int max_iter)
{
    AddIpoptIntOption(s->ipopt, "max_iter", max_iter);
}

void rs_ipopt_multipliers(rs_ipopt_solver *s, double **mult_g, double **mult_x_l,
                          double **mult_x_u)
{
    *mult_g = s->mult_g;
    *mult_x_l = s->mult_x_l;
    *mult_x_u = s->mult_x_u;
}
