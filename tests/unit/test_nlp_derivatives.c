/*
 * test_nlp_derivatives.c: every NLP's exact derivatives against central finite differences at
 * seeded random points: grad f, the Jacobian of g, and the Hessian of the Lagrangian (as the
 * difference quotient of grad f * obj_factor + J' lambda). Tolerance: relative 1e-6, i.e.
 * |exact - fd| <= 1e-6 * max(1, |exact|, |fd|), with step h = 1e-6 * max(1, |x_j|) (central
 * differences: truncation about h^2, rounding about 1e-16 / h).
 */
#include "test_helpers.h"

#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "geom/scene.h"
#include "nlp/lcp_relaxation.h"
#include "sim/model.h"
#include "models/registry.h"

#define REL_TOL 1e-6

static void expect_match(double exact, double fd, const char *what, int i, int j)
{
    const double scale = fmax(1.0, fmax(fabs(exact), fabs(fd)));
    if (!(fabs(exact - fd) <= REL_TOL * scale)) {
        print_error("%s(%d,%d): exact %.17g, finite difference %.17g\n", what, i, j, exact, fd);
        fail();
    }
}

/* Check all derivatives of p at x (lambda, obj_factor random). */
static void check_problem(const rs_nlp_problem *p, const double *x0, rs_rng *rng)
{
    const int n = p->n, m = p->m;
    double *x = malloc(sizeof(double) * n), *grad = malloc(sizeof(double) * n);
    double *J = malloc(sizeof(double) * (size_t)(m > 0 ? m : 1) * n), *H = malloc(sizeof(double) * n * n);
    double *gp = malloc(sizeof(double) * (m + 1)), *gm = malloc(sizeof(double) * (m + 1));
    double *lambda = malloc(sizeof(double) * (m + 1));
    double *Lp = malloc(sizeof(double) * n), *Lm = malloc(sizeof(double) * n);
    double *Jt = malloc(sizeof(double) * (size_t)(m > 0 ? m : 1) * n);
    memcpy(x, x0, sizeof(double) * n);
    const double obj_factor = rs_rng_range(rng, 0.5, 2.0);
    for (int i = 0; i < m; i++)
        lambda[i] = rs_rng_range(rng, -2.0, 2.0);
    p->eval_grad_f(p->ctx, x, grad);
    if (m > 0)
        p->eval_jac(p->ctx, x, J);
    p->eval_hess(p->ctx, x, obj_factor, lambda, H);
    for (int j = 0; j < n; j++) {
        const double h = 1e-6 * fmax(1.0, fabs(x0[j]));
        x[j] = x0[j] + h;
        const double fp = p->eval_f(p->ctx, x);
        if (m > 0)
            p->eval_g(p->ctx, x, gp);
        /* grad of the Lagrangian at x + h e_j */
        p->eval_grad_f(p->ctx, x, Lp);
        if (m > 0)
            p->eval_jac(p->ctx, x, Jt);
        for (int k = 0; k < n; k++) {
            Lp[k] *= obj_factor;
            for (int i = 0; i < m; i++)
                Lp[k] += lambda[i] * Jt[i + (size_t)k * m];
        }
        x[j] = x0[j] - h;
        const double fm = p->eval_f(p->ctx, x);
        if (m > 0)
            p->eval_g(p->ctx, x, gm);
        p->eval_grad_f(p->ctx, x, Lm);
        if (m > 0)
            p->eval_jac(p->ctx, x, Jt);
        for (int k = 0; k < n; k++) {
            Lm[k] *= obj_factor;
            for (int i = 0; i < m; i++)
                Lm[k] += lambda[i] * Jt[i + (size_t)k * m];
        }
        x[j] = x0[j];
        expect_match(grad[j], (fp - fm) / (2 * h), "grad f", 0, j);
        for (int i = 0; i < m; i++)
            expect_match(J[i + (size_t)j * m], (gp[i] - gm[i]) / (2 * h), "J", i, j);
        for (int k = j; k < n; k++) /* lower triangle: H(k, j), k >= j */
            expect_match(H[k + (size_t)j * n], (Lp[k] - Lm[k]) / (2 * h), "H", k, j);
    }
    free(x);
    free(grad);
    free(J);
    free(H);
    free(gp);
    free(gm);
    free(lambda);
    free(Lp);
    free(Lm);
    free(Jt);
}

/* The structure handed to IPOPT (rs_nlp_problem.sparsity) covers every entry of the dense
 * Jacobian and Hessian lower triangle that is nonzero at x (random multipliers). */
static void check_sparsity(const rs_nlp_problem *p, const double *x, rs_rng *rng)
{
    const int n = p->n, m = p->m;
    unsigned char *jm = calloc((size_t)m * n + 1, 1), *hm = calloc((size_t)n * n, 1);
    double *J = malloc(sizeof(double) * ((size_t)m * n + 1)), *H = malloc(sizeof(double) * n * n);
    double *lambda = malloc(sizeof(double) * (m + 1));
    for (int i = 0; i < m; i++)
        lambda[i] = rs_rng_range(rng, -2.0, 2.0);
    p->sparsity(p->ctx, jm, hm);
    p->eval_jac(p->ctx, x, J);
    p->eval_hess(p->ctx, x, 1.3, lambda, H);
    int nnz = 0;
    for (int k = 0; k < m * n; k++) {
        if (J[k] != 0.0 && !jm[k])
            print_error("J(%d,%d) = %g is outside the structure\n", k % m, k / m, J[k]);
        assert_true(J[k] == 0.0 || jm[k]);
        nnz += jm[k];
    }
    assert_true(nnz < m * n); /* sparse indeed */
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++) {
            if (H[i + j * n] != 0.0 && !hm[i + j * n])
                print_error("H(%d,%d) = %g is outside the structure\n", i, j, H[i + j * n]);
            assert_true(H[i + j * n] == 0.0 || hm[i + j * n]);
        }
    free(jm);
    free(hm);
    free(J);
    free(H);
    free(lambda);
}

/* Random step data and points for a model with an NLP of its own. */
static void check_model(const rs_model *mdl, int variant, rs_nlp_penalty penalty)
{
    assert_model_fits_test_arrays(mdl);
    rs_rng rng;
    rs_rng_seed(&rng, 2024 + (uint64_t)variant);
    double params[RS_TEST_MAX_PARAMS], state[RS_TEST_MAX_STATE], input[RS_TEST_MAX_INPUT];
    double x[RS_TEST_MAX_NLP];
    rs_nlp_settings s;
    rs_nlp_settings_default(&s);
    s.penalty = penalty;
    s.eps = 1e-2; /* a smoothing scale the random points resolve */
    for (int trial = 0; trial < 20; trial++) {
        for (int i = 0; i < mdl->nparams; i++)
            params[i] = rs_rng_range(&rng, 0.5, 2.0) * (mdl->params[i].value > 0 ? mdl->params[i].value : 1.0);
        for (int i = 0; i < mdl->nstate; i++)
            state[i] = rs_rng_range(&rng, -1.0, 1.0);
        for (int i = 0; i < mdl->ninput; i++)
            input[i] = rs_rng_range(&rng, -1.0, 1.0);
        rs_step_data d = {params, state, input, 1e-2, variant, &s, NULL, 0, NULL};
        rs_nlp_problem p;
        mdl->nlp_describe(&p, variant);
        p.ctx = &d;
        assert_int_equal(p.n, mdl->nlp_n);
        assert_int_equal(p.m, mdl->nlp_m);
        for (int j = 0; j < p.n; j++)
            x[j] = rs_rng_range(&rng, -1.5, 1.5);
        check_problem(&p, x, &rng);
    }
}

static void test_point2d_corrected(void **state)
{
    (void)state;
    check_model(rs_model_find("point2d_friction"), 0, RS_NLP_PENALTY_L1);
    check_model(rs_model_find("point2d_friction"), 0, RS_NLP_PENALTY_L2);
}

static void test_point2d_blog(void **state)
{
    (void)state;
    check_model(rs_model_find("point2d_friction"), 1, RS_NLP_PENALTY_L2);
}

static void test_falling_block(void **state)
{
    (void)state;
    check_model(rs_model_find("falling_block"), 0, RS_NLP_PENALTY_L1);
    check_model(rs_model_find("falling_block"), 0, RS_NLP_PENALTY_L2);
}

/* point3d_friction's exact cone: both penalties, and the sparse structure it hands IPOPT. */
static void test_point3d(void **state)
{
    (void)state;
    const rs_model *mdl = rs_model_find("point3d_friction");
    check_model(mdl, 0, RS_NLP_PENALTY_L1);
    check_model(mdl, 0, RS_NLP_PENALTY_L2);
    rs_rng rng;
    rs_rng_seed(&rng, 3);
    const double params[4] = {2.0, 9.81, 0.4, 8.0}, st[6] = {0.1, -0.2, 0.3, 0.5, -0.7, 0.2};
    const double input[3] = {0.3, -0.1, 0.2};
    rs_nlp_settings s;
    rs_nlp_settings_default(&s);
    s.eps = 1e-2;
    rs_step_data d = {params, st, input, 1e-2, 0, &s, NULL, 0, NULL};
    rs_nlp_problem p;
    mdl->nlp_describe(&p, 0);
    p.ctx = &d;
    assert_non_null(p.sparsity);
    assert_model_fits_test_arrays(mdl);
    double x[RS_TEST_MAX_NLP];
    for (int trial = 0; trial < 10; trial++) {
        for (int j = 0; j < p.n; j++)
            x[j] = rs_rng_range(&rng, -1.5, 1.5);
        check_sparsity(&p, x, &rng);
    }
}

/* The relaxation that serves the sliding blocks and `lcp solve --solver ipopt`. */
static void test_lcp_relaxation(void **state)
{
    (void)state;
    rs_rng rng;
    rs_rng_seed(&rng, 77);
    for (int n = 1; n <= 6; n++)
        for (int pen = 0; pen < 2; pen++) {
            double M[36], q[6], x[12];
            for (int k = 0; k < n * n; k++)
                M[k] = rs_rng_range(&rng, -2.0, 2.0);
            for (int i = 0; i < n; i++)
                q[i] = rs_rng_range(&rng, -2.0, 2.0);
            rs_lcp_relaxation r;
            r.n = n;
            r.M = M;
            r.q = q;
            rs_nlp_settings_default(&r.settings);
            r.settings.penalty = (rs_nlp_penalty)pen;
            rs_nlp_problem p;
            rs_lcp_relaxation_problem(&r, &p);
            for (int j = 0; j < 2 * n; j++)
                x[j] = rs_rng_range(&rng, -1.0, 1.0);
            check_problem(&p, x, &rng);
        }
}

/*
 * disc_polygons' own NLP (per-step sizes): a hexagon with a flat top and 45-degree shoulders over
 * the ground, and bodies placed so that a step's groups hold one, two and three contacts: above
 * the hexagon (three facing edges, reach 3 m), at a shoulder's corner with a disc (two edges and
 * the rounded vertex), on the ground (one). Each formulation, with and without friction, both
 * penalties. The distances D_i are up to a few hundred step lengths apart here, so eps = 100:
 * the smoothed max is curved over the whole sampled range (with eps = 1e-2 its curvature would
 * be below the test's tolerance and a wrong Hessian term would pass).
 */
static void test_disc_polygons(void **state)
{
    (void)state;
    const rs_model *mdl = rs_model_find("disc_polygons");
    assert_non_null(mdl);
    rs_scene sc;
    rs_scene_init(&sc);
    const double hex[12] = {0, 0, 4, 0, 4, 1, 3, 2, 1, 2, 0, 1}, pt[2] = {0, -1}, up[2] = {0, 1};
    assert_int_equal(rs_scene_add_polygon(&sc, 6, hex, NULL), RS_OK);
    assert_int_equal(rs_scene_add_halfplane(&sc, pt, up, NULL), RS_OK);
    /* m, g, r, reach, mu, corners */
    static const double cases[][6 + 4] = {
        {1.0, 9.81, 0.0, 3.0, 0.0, 1.0, 2.0, 4.0, 0.3, -0.2},   /* three edges */
        {1.0, 9.81, 0.0, 3.0, 0.4, 1.0, 2.0, 4.0, 0.3, -0.2},   /* the same with friction */
        {2.0, 9.81, 0.1, 0.5, 0.0, 1.0, 4.12, 1.05, -0.5, 0.1}, /* a disc at a corner: two */
        {2.0, 9.81, 0.1, 0.5, 0.3, 1.0, 4.12, 1.05, -0.5, 0.1}, /* edges and the vertex */
        {1.0, 9.81, 0.0, 1e-3, 0.5, 1.0, 6.0, -1.0, 1.0, 0.0},  /* on the ground */
    };
    rs_rng rng;
    rs_rng_seed(&rng, 404);
    rs_nlp_settings s;
    rs_nlp_settings_default(&s);
    s.eps = 100.0;
    const double input[2] = {0.3, -0.1};
    int sizes_seen[4] = {0}; /* contacts per step: 1, 2, 3 (3 or more) */
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
        for (int v = 0; v < mdl->nvariants; v++)
            for (int pen = 0; pen < 2; pen++) {
                s.penalty = (rs_nlp_penalty)pen;
                const double *params = cases[c], *st = cases[c] + 6;
                rs_step_data d = {params, st, input, 1e-2, v, &s, &sc, 0, NULL};
                rs_nlp_problem p;
                mdl->nlp_describe(&p, v);
                p.ctx = &d;
                mdl->nlp_size(&d, &p.n, &p.m);
                assert_true(p.n > 4 && p.n <= mdl->nlp_n && p.m <= mdl->nlp_m);
                assert_model_fits_test_arrays(mdl);
                const int contacts = p.n == 4 ? 0 : (p.n - 4) / (params[4] > 0 ? 5 : 2);
                sizes_seen[contacts < 3 ? contacts : 3] = 1;
                double x[RS_TEST_MAX_NLP];
                for (int t = 0; t < 3; t++) {
                    for (int j = 0; j < p.n; j++)
                        x[j] = rs_rng_range(&rng, -1.0, 1.0);
                    check_problem(&p, x, &rng);
                    check_sparsity(&p, x, &rng);
                }
            }
    assert_true(sizes_seen[1] && sizes_seen[3]); /* groups of one and of three covered */

    /* The values, which finite differences cannot check: Egan's group from (2, 4) above the
     * hexagon, at xh = zh = 0, is the smoothed max of D_i = d_i / L over the three facing edges
     * d = (1/sqrt2, 2, 1/sqrt2) m, nested in polygon order, and lies in [max - (n - 1) eps / 2,
     * max]: never looser than the exact OR. L = V dt with V = |v_free| here. */
    for (int form = 1; form < mdl->nvariants; form++) {
        s.eps = 100.0;
        const double *params = cases[0], *st = cases[0] + 6;
        rs_step_data d = {params, st, input, 1e-2, form, &s, &sc, 0, NULL};
        rs_nlp_problem p;
        mdl->nlp_describe(&p, form);
        p.ctx = &d;
        mdl->nlp_size(&d, &p.n, &p.m);
        double x[RS_TEST_MAX_NLP] = {0}, g[RS_TEST_MAX_NLP];
        p.eval_g(p.ctx, x, g);
        const double vf[2] = {st[2] + 1e-2 * input[0] / params[0],
                              st[3] + 1e-2 * (input[1] / params[0] - params[1])};
        const double V = fmax(fmax(hypot(st[2], st[3]), hypot(vf[0], vf[1])), params[1] * 1e-2);
        const double s2 = 1.0 / sqrt(2.0), L = V * 1e-2, D[3] = {s2 / L, 2.0 / L, s2 / L};
        double G = D[0];
        for (int k = 1; k < 3; k++) /* smax(a, b) = (a + b + sqrt((a - b)^2 + eps^2) - eps) / 2 */
            G = 0.5 * (G + D[k] + sqrt((G - D[k]) * (G - D[k]) + s.eps * s.eps) - s.eps);
        assert_close(g[4], G, 1e-12, 0);
        assert_true(g[4] <= D[1] && g[4] >= D[1] - 2 * s.eps / 2); /* max = D[1] */
        assert_true(g[4] < D[1] - 1.0); /* the smoothing is visible at this eps */
    }
    rs_scene_free(&sc);
}

/* Every model in the registry is covered: either its own NLP or the relaxation (a model with a
 * scene by its own test above). */
static void test_every_model_is_covered(void **state)
{
    (void)state;
    for (int i = 0; i < rs_model_count(); i++) {
        const rs_model *m = rs_model_at(i);
        if (m->instantiate) {
            assert_string_equal(m->name, "bodies"); /* test_bodies */
        } else if (m->needs_scene) {
            assert_string_equal(m->name, "disc_polygons"); /* test_disc_polygons */
        } else if (rs_model_own_nlp(m)) {
            for (int v = 0; v < m->nvariants; v++)
                check_model(m, v, RS_NLP_PENALTY_L1);
        } else {
            assert_true(m->lcp_n >= 1 && m->lcp_n <= RS_TEST_MAX_LCP);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_point2d_corrected),
        cmocka_unit_test(test_point2d_blog),
        cmocka_unit_test(test_falling_block),
        cmocka_unit_test(test_point3d),
        cmocka_unit_test(test_lcp_relaxation),
        cmocka_unit_test(test_disc_polygons),
        cmocka_unit_test(test_every_model_is_covered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
