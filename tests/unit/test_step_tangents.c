/*
 * test_step_tangents.c: every model's step derivatives (lcp_tangent,
 * lcp_recover_tangent) against central finite differences of the functions they
 * differentiate (lcp_build, lcp_recover).
 *
 * Each model is checked at 40 random step data around its defaults (parameters
 * scaled by 0.5..2, states and inputs of either sign where the model allows it,
 * dt in [1e-3, 1e-2]) along random directions in every argument at once. The
 * difference step is h = 1e-6 along a direction scaled to each argument's size,
 * so the difference's own error (h^2 times the third derivative, and rounding
 * 1e-16 / h) is below 1e-9 of the entries' scale; a tangent is accepted within
 * 1e-7 of that scale. A dropped term (d(dt) in q, say) is of the order of the
 * entry itself.
 */
#include "test_helpers.h"

#include <string.h>

#include "core/rng.h"
#include "sim/model.h"

#define DRAWS 40
#define H 1e-6
#define TOL 1e-7

/* Random step data around the model's defaults: sizes of order one, signs that
 * the model's domain admits (velocities and inputs >= 0: the one-directional
 * sliding block needs them, the others accept them too; heights >= 0). */
static void draw_data(const rs_model *m, rs_rng *rng, double *params, double *state, double *input,
                      double *dt)
{
    for (int i = 0; i < m->nparams; i++)
        params[i] = m->params[i].value * rs_rng_range(rng, 0.5, 2.0);
    for (int i = 0; i < m->nstate; i++)
        state[i] = rs_rng_range(rng, 0.0, 2.0);
    for (int i = 0; i < m->ninput; i++)
        input[i] = rs_rng_range(rng, 0.0, 5.0);
    *dt = rs_rng_range(rng, 1e-3, 1e-2);
}

/* A direction of the size of each argument (sign random). */
static void draw_tangent(const rs_model *m, rs_rng *rng, const double *params, const double *state,
                         const double *input, double dt, rs_step_tangent *t)
{
    memset(t, 0, sizeof *t);
    for (int i = 0; i < m->nparams; i++)
        t->params[i] = rs_rng_range(rng, -1.0, 1.0) * fmax(fabs(params[i]), 0.1);
    for (int i = 0; i < m->nstate; i++)
        t->state[i] = rs_rng_range(rng, -1.0, 1.0) * fmax(fabs(state[i]), 0.1);
    for (int i = 0; i < m->ninput; i++)
        t->input[i] = rs_rng_range(rng, -1.0, 1.0) * fmax(fabs(input[i]), 0.1);
    t->dt = rs_rng_range(rng, -1.0, 1.0) * dt;
}

/* The step data moved by s along t (into the caller's arrays). */
static rs_step_data moved(const rs_model *m, const double *params, const double *state,
                          const double *input, double dt, const rs_step_tangent *t, double s,
                          double *p, double *x, double *u)
{
    for (int i = 0; i < m->nparams; i++)
        p[i] = params[i] + s * t->params[i];
    for (int i = 0; i < m->nstate; i++)
        x[i] = state[i] + s * t->state[i];
    for (int i = 0; i < m->ninput; i++)
        u[i] = input[i] + s * t->input[i];
    return (rs_step_data){.params = p, .state = x, .input = u, .dt = dt + s * t->dt};
}

static double max_abs(const double *a, int n)
{
    double v = 0.0;
    for (int i = 0; i < n; i++)
        v = fmax(v, fabs(a[i]));
    return v;
}

/* Each entry of an analytic tangent against the central difference (plus -
 * minus) / (2 h), within TOL times the scale of the values differentiated. */
static void expect_tangent(const char *what, const rs_model *m, int n, const double *analytic,
                           const double *plus, const double *minus, double scale)
{
    for (int i = 0; i < n; i++) {
        const double fd = (plus[i] - minus[i]) / (2.0 * H);
        if (!(fabs(analytic[i] - fd) <= TOL * scale)) {
            print_error("%s %s[%d]: tangent %.17g, central difference %.17g (scale %.3g)\n",
                        m->name, what, i, analytic[i], fd, scale);
            fail();
        }
    }
}

static void check_model(const rs_model *m, rs_rng *rng)
{
    const int n = m->lcp_n;
    for (int draw = 0; draw < DRAWS; draw++) {
        double params[RS_MODEL_MAX_PARAMS], state[RS_MODEL_MAX_STATE], input[RS_MODEL_MAX_INPUT];
        double dt;
        rs_step_tangent t;
        draw_data(m, rng, params, state, input, &dt);
        draw_tangent(m, rng, params, state, input, dt, &t);
        double p[2][RS_MODEL_MAX_PARAMS], x[2][RS_MODEL_MAX_STATE], u[2][RS_MODEL_MAX_INPUT];
        const rs_step_data dp = moved(m, params, state, input, dt, &t, H, p[0], x[0], u[0]);
        const rs_step_data dm = moved(m, params, state, input, dt, &t, -H, p[1], x[1], u[1]);

        /* (M, q) */
        double M[2][RS_MODEL_MAX_LCP * RS_MODEL_MAX_LCP], q[2][RS_MODEL_MAX_LCP];
        double dM[RS_MODEL_MAX_LCP * RS_MODEL_MAX_LCP], dq[RS_MODEL_MAX_LCP];
        m->lcp_build(&dp, M[0], q[0]);
        m->lcp_build(&dm, M[1], q[1]);
        double p0[RS_MODEL_MAX_PARAMS], x0[RS_MODEL_MAX_STATE], u0[RS_MODEL_MAX_INPUT];
        const rs_step_data d0 = moved(m, params, state, input, dt, &t, 0.0, p0, x0, u0);
        m->lcp_tangent(&d0, &t, dM, dq);
        const double scale = fmax(max_abs(M[0], n * n), max_abs(q[0], n));
        expect_tangent("M", m, n * n, dM, M[0], M[1], scale);
        expect_tangent("q", m, n, dq, q[0], q[1], scale);

        /* recovery, at a point (z, w) >= 0 moved along (dz, dw) with the data */
        double z[RS_MODEL_MAX_LCP], w[RS_MODEL_MAX_LCP], dz[RS_MODEL_MAX_LCP], dw[RS_MODEL_MAX_LCP],
            zs[2][RS_MODEL_MAX_LCP], ws[2][RS_MODEL_MAX_LCP];
        for (int i = 0; i < n; i++) {
            z[i] = rs_rng_range(rng, 0.0, 10.0);
            w[i] = rs_rng_range(rng, 0.0, 10.0);
            dz[i] = rs_rng_range(rng, -10.0, 10.0);
            dw[i] = rs_rng_range(rng, -10.0, 10.0);
            for (int s = 0; s < 2; s++) {
                zs[s][i] = z[i] + (s ? -H : H) * dz[i];
                ws[s][i] = w[i] + (s ? -H : H) * dw[i];
            }
        }
        double sn[2][RS_MODEL_MAX_STATE], f[2][RS_MODEL_MAX_FORCE];
        double dsn[RS_MODEL_MAX_STATE], df[RS_MODEL_MAX_FORCE];
        m->lcp_recover(&dp, zs[0], ws[0], sn[0], f[0]);
        m->lcp_recover(&dm, zs[1], ws[1], sn[1], f[1]);
        m->lcp_recover_tangent(&d0, &t, z, w, dz, dw, dsn, df);
        const double rscale = fmax(fmax(max_abs(sn[0], m->nstate), max_abs(f[0], m->nforce)), 1.0);
        expect_tangent("state_next", m, m->nstate, dsn, sn[0], sn[1], rscale);
        expect_tangent("forces", m, m->nforce, df, f[0], f[1], rscale);
    }
}

/* Every model with step derivatives is checked; the fixed-size models all have
 * them. */
static void test_every_model_tangent(void **state)
{
    (void)state;
    rs_rng rng;
    rs_rng_seed(&rng, 20261126);
    int checked = 0;
    for (int i = 0; i < rs_model_count(); i++) {
        const rs_model *m = rs_model_at(i);
        if (!m->lcp_tangent) {
            assert_non_null(m->lcp_size); /* only per-step-size models may lack them */
            continue;
        }
        check_model(m, &rng);
        checked++;
    }
    assert_int_equal(checked, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_model_tangent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
