/*
 * ipopt_solver.c: the IPOPT adapter, the only file that includes IpStdCInterface.h.
 *
 * Turns an rs_nlp_problem (dense derivatives) into IPOPT 3.11 C callbacks with a fixed dense
 * structure: every Jacobian entry and the whole lower triangle of the Hessian. Facts about the
 * Debian build that shape this file:
 *   - one IpoptProblem is reused across steps (options may change between IpoptSolve calls);
 *   - print_level 0 needs sb yes to hide the banner; option_file_name "" stops a stray ipopt.opt
 *     in the working directory from changing the options;
 *   - only linear_solver mumps is allowed (ma97 calls exit() in this build);
 *   - the intermediate callback is the way to count iterations;
 *   - x is overwritten even on failure, so the caller always checks the return status.
 */
#include <IpStdCInterface.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nlp/ipopt_solver.h"
#include "lcp/lcp_internal.h"

struct rs_ipopt_solver {
    rs_nlp_problem p;
    rs_nlp_settings s;
    IpoptProblem ipopt;
    double *x_l, *x_u, *g_l, *g_u; /* constant bounds */
    double *J, *H;                 /* dense derivative buffers */
    double *g;                     /* constraint values at the final point */
    double *mult_g, *mult_x_l, *mult_x_u; /* multipliers of the last successful solve */
    int have_multipliers;
    int iterations;                /* set by the intermediate callback */
};

/* ---- callbacks ------------------------------------------------------------------------------ */

static Bool cb_eval_f(Index n, Number *x, Bool new_x, Number *obj, UserDataPtr user)
{
    (void)n;
    (void)new_x;
    rs_ipopt_solver *s = user;
    *obj = s->p.eval_f(s->p.ctx, x);
    return isfinite(*obj);
}

static Bool cb_eval_grad_f(Index n, Number *x, Bool new_x, Number *grad, UserDataPtr user)
{
    (void)new_x;
    rs_ipopt_solver *s = user;
    s->p.eval_grad_f(s->p.ctx, x, grad);
    return rs_all_finite(grad, (size_t)n);
}

static Bool cb_eval_g(Index n, Number *x, Bool new_x, Index m, Number *g, UserDataPtr user)
{
    (void)n;
    (void)new_x;
    rs_ipopt_solver *s = user;
    s->p.eval_g(s->p.ctx, x, g);
    return rs_all_finite(g, (size_t)m);
}

static Bool cb_eval_jac(Index n, Number *x, Bool new_x, Index m, Index nele, Index *irow,
                        Index *jcol, Number *values, UserDataPtr user)
{
    (void)new_x;
    (void)nele;
    rs_ipopt_solver *s = user;
    if (!values) { /* structure: every entry, column by column */
        for (Index j = 0, k = 0; j < n; j++)
            for (Index i = 0; i < m; i++, k++) {
                irow[k] = i;
                jcol[k] = j;
            }
        return TRUE;
    }
    s->p.eval_jac(s->p.ctx, x, s->J);
    memcpy(values, s->J, sizeof(double) * (size_t)m * (size_t)n);
    return rs_all_finite(values, (size_t)m * (size_t)n);
}

static Bool cb_eval_h(Index n, Number *x, Bool new_x, Number obj_factor, Index m, Number *lambda,
                      Bool new_lambda, Index nele, Index *irow, Index *jcol, Number *values,
                      UserDataPtr user)
{
    (void)new_x;
    (void)new_lambda;
    (void)m;
    rs_ipopt_solver *s = user;
    if (!values) { /* structure: the lower triangle, column by column */
        for (Index j = 0, k = 0; j < n; j++)
            for (Index i = j; i < n; i++, k++) {
                irow[k] = i;
                jcol[k] = j;
            }
        return TRUE;
    }
    s->p.eval_hess(s->p.ctx, x, obj_factor, lambda, s->H);
    for (Index j = 0, k = 0; j < n; j++)
        for (Index i = j; i < n; i++, k++)
            values[k] = s->H[i + (size_t)j * (size_t)n];
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
    if (s->ipopt)
        FreeIpoptProblem(s->ipopt);
    free(s->x_l);
    free(s->J);
    free(s);
}

rs_error rs_ipopt_create(const rs_nlp_problem *p, const rs_nlp_settings *settings,
                         rs_ipopt_solver **out)
{
    if (!p || !out)
        return RS_ERR_NULL_ARG;
    *out = NULL;
    if (p->n < 1 || p->m < 0)
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
    s->p = *p;
    s->s = st;
    const size_t n = (size_t)p->n, m = (size_t)p->m;
    /* one block for the vectors, one for the dense derivatives */
    s->x_l = malloc(sizeof(double) * (3 * n + 4 * m + 2 * n + 1));
    s->J = malloc(sizeof(double) * (m * n + n * n + 1));
    if (!s->x_l || !s->J) {
        rs_ipopt_destroy(s);
        return RS_ERR_NOMEM;
    }
    s->x_u = s->x_l + n;
    s->mult_x_l = s->x_u + n;
    s->mult_x_u = s->mult_x_l + n;
    s->g_l = s->mult_x_u + n;
    s->g_u = s->g_l + m;
    s->g = s->g_u + m;
    s->mult_g = s->g + m;
    s->H = s->J + m * n;
    p->bounds(p->ctx, s->x_l, s->x_u, s->g_l, s->g_u);
    s->ipopt = CreateIpoptProblem(p->n, s->x_l, s->x_u, p->m, s->g_l, s->g_u, p->m * p->n,
                                  p->n * (p->n + 1) / 2, 0, cb_eval_f, cb_eval_g, cb_eval_grad_f,
                                  cb_eval_jac, cb_eval_h);
    if (!s->ipopt) {
        rs_ipopt_destroy(s);
        return RS_ERR_BAD_ARG;
    }
    IpoptProblem ip = s->ipopt;
    AddIpoptStrOption(ip, "option_file_name", "");
    AddIpoptIntOption(ip, "print_level", 0);
    AddIpoptStrOption(ip, "sb", "yes");
    AddIpoptStrOption(ip, "linear_solver", "mumps");
    AddIpoptStrOption(ip, "hessian_approximation", "exact");
    /* Bounds exactly as posed: a relaxed z' >= 0 would be projected back after the solve and
     * leave the velocities inconsistent with the positions (zd' = (z' - z)/dt). */
    AddIpoptNumOption(ip, "bound_relax_factor", 0.0);
    AddIpoptNumOption(ip, "tol", st.tol);
    AddIpoptIntOption(ip, "max_iter", st.max_iter);
    /* Used only when warm_start_init_point is yes: keep the previous point almost unchanged. */
    AddIpoptNumOption(ip, "warm_start_bound_push", 1e-9);
    AddIpoptNumOption(ip, "warm_start_bound_frac", 1e-9);
    AddIpoptNumOption(ip, "warm_start_slack_bound_push", 1e-9);
    AddIpoptNumOption(ip, "warm_start_slack_bound_frac", 1e-9);
    AddIpoptNumOption(ip, "warm_start_mult_bound_push", 1e-9);
    SetIntermediateCallback(ip, cb_intermediate);
    *out = s;
    return RS_OK;
}

static rs_nlp_status map_status(enum ApplicationReturnStatus st)
{
    switch (st) {
    case Solve_Succeeded: return RS_NLP_SOLVED;
    case Solved_To_Acceptable_Level: return RS_NLP_ACCEPTABLE;
    case Infeasible_Problem_Detected: return RS_NLP_INFEASIBLE;
    case Maximum_Iterations_Exceeded: return RS_NLP_MAX_ITER;
    case Restoration_Failed: return RS_NLP_RESTORATION_FAILED;
    case Invalid_Number_Detected: return RS_NLP_EVAL_ERROR;
    default: return RS_NLP_OTHER_FAILURE;
    }
}

rs_nlp_status rs_ipopt_solve(rs_ipopt_solver *s, double *x, int warm, int *ipopt_status,
                             int *iterations)
{
    IpoptProblem ip = s->ipopt;
    const int use_warm = warm && s->have_multipliers;
    AddIpoptStrOption(ip, "warm_start_init_point", use_warm ? "yes" : "no");
    AddIpoptNumOption(ip, "mu_init", use_warm ? s->s.mu_init : 0.1);
    if (!use_warm) {
        memset(s->mult_g, 0, sizeof(double) * (size_t)s->p.m);
        memset(s->mult_x_l, 0, sizeof(double) * (size_t)s->p.n);
        memset(s->mult_x_u, 0, sizeof(double) * (size_t)s->p.n);
    }
    s->iterations = 0;
    double obj = 0.0;
    const enum ApplicationReturnStatus st =
        IpoptSolve(ip, x, s->g, &obj, s->mult_g, s->mult_x_l, s->mult_x_u, s);
    const rs_nlp_status status = map_status(st);
    /* Multipliers of a failed solve are not a sound warm start. */
    s->have_multipliers = rs_nlp_status_ok(status) && rs_all_finite(x, (size_t)s->p.n);
    if (ipopt_status)
        *ipopt_status = (int)st;
    if (iterations)
        *iterations = s->iterations;
    return status;
}

double rs_ipopt_primal_infeasibility(rs_ipopt_solver *s, const double *x)
{
    double v = 0.0;
    for (int j = 0; j < s->p.n; j++)
        v = fmax(v, fmax(s->x_l[j] - x[j], x[j] - s->x_u[j]));
    double *g = s->J; /* scratch: the Jacobian buffer has at least m entries when m > 0 */
    if (s->p.m > 0) {
        s->p.eval_g(s->p.ctx, x, g);
        for (int i = 0; i < s->p.m; i++)
            v = fmax(v, fmax(s->g_l[i] - g[i], g[i] - s->g_u[i]));
    }
    return isfinite(v) ? v : INFINITY;
}
