/*
 * test_step_tangents.c: every model's step derivatives (lcp_tangent, lcp_recover_tangent) against
 * central finite differences of the functions they differentiate (lcp_build, lcp_recover).
 *
 * Each fixed-size model is checked at 40 random step data around its defaults (parameters scaled
 * by 0.5..2, nonnegative states and inputs, dt in [1e-3, 1e-2]); disc_polygons at 160 positions
 * by a box's corner (edges, the rounded corner, friction, every formulation), its contact set
 * held fixed. Directions are random in every argument at once. The difference step is h = 1e-6
 * along a direction scaled to each argument's size, so the difference's own error (h^2 times the
 * third derivative, and rounding 1e-16 / h) is below 1e-9 of the entries' scale; a tangent is
 * accepted within 1e-7 of that scale. A dropped term (d(dt) in q, say) is of the order of the
 * entry itself.
 */
#include "test_helpers.h"

#include <string.h>

#include "core/rng.h"
#include "geom/scene.h"
#include "sim/model.h"
#include "models/registry.h"

#define DRAWS 40
#define H 1e-6
#define TOL 1e-7

/* A parameter that is a choice or a count, not differentiated (its tangent is 0). */
static int is_switch(const rs_model *m, int i)
{
    return strcmp(m->params[i].name, "corners") == 0 ||
           strcmp(m->params[i].name, "directions") == 0;
}

/* Random step data around the model's defaults: sizes of order one, signs that
 * the model's domain admits (velocities and inputs >= 0: the one-directional
 * sliding block needs them, the others accept them too; heights >= 0). */
static void draw_data(const rs_model *m, rs_rng *rng, double *params, double *state, double *input,
                      double *dt)
{
    for (int i = 0; i < m->nparams; i++) /* a count (point3d's directions) stays a count */
        params[i] = m->params[i].value *
                    (is_switch(m, i) ? 1.0 : rs_rng_range(rng, 0.5, 2.0));
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
    static double storage[RS_TEST_MAX_PARAMS + RS_TEST_MAX_STATE + RS_TEST_MAX_INPUT];
    memset(storage, 0, sizeof storage);
    t->params = storage;
    t->state = storage + RS_TEST_MAX_PARAMS;
    t->input = t->state + RS_TEST_MAX_STATE;
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

/* The step's LCP size at d (a per-step model: its contact set's key too). */
static int lcp_size_at(const rs_model *m, const rs_step_data *d, unsigned long long *key)
{
    *key = 0;
    return m->lcp_size ? m->lcp_size(d, key) : m->lcp_n;
}

/* One draw: the tangents at the data (params, state, input, dt) of a variant and scene along a
 * random direction, against central differences. Returns 0 (nothing checked) when the step's
 * contact set differs within the difference's reach, or is empty. */
static int check_draw(const rs_model *m, rs_rng *rng, const double *params, const double *state,
                      const double *input, double dt, int variant, const rs_scene *scene)
{
    rs_step_tangent t;
    draw_tangent(m, rng, params, state, input, dt, &t);
    for (int i = 0; i < m->nparams; i++) /* a switch (disc_polygons' corners) or a parameter at
                                            the edge of its range, whose zero turns a term off
                                            (mu = 0: no friction rows; r = 0: no corners) */
        if (params[i] == 0.0 || is_switch(m, i))
            t.params[i] = 0.0;
    double p[3][RS_TEST_MAX_PARAMS], x[3][RS_TEST_MAX_STATE], u[3][RS_TEST_MAX_INPUT];
    rs_step_data d[3]; /* at +h, -h, 0 */
    const double at[3] = {H, -H, 0.0};
    unsigned long long key[3];
    int sizes[3];
    for (int s = 0; s < 3; s++) {
        d[s] = moved(m, params, state, input, dt, &t, at[s], p[s], x[s], u[s]);
        d[s].variant = variant;
        d[s].scene = scene;
        sizes[s] = lcp_size_at(m, &d[s], &key[s]);
    }
    const int n = sizes[2];
    if (n <= 0 || sizes[0] != n || sizes[1] != n || key[0] != key[2] || key[1] != key[2])
        return 0;

    /* (M, q) */
    static double M[2][RS_TEST_MAX_LCP * RS_TEST_MAX_LCP],
        dM[RS_TEST_MAX_LCP * RS_TEST_MAX_LCP];
    double q[2][RS_TEST_MAX_LCP], dq[RS_TEST_MAX_LCP];
    m->lcp_build(&d[0], M[0], q[0]);
    m->lcp_build(&d[1], M[1], q[1]);
    m->lcp_tangent(&d[2], &t, dM, dq);
    /* M and q each at its own scale (point2d: q's z/dt ~ 1e3 beside M's dt/m ~ 1e-4) */
    expect_tangent("M", m, n * n, dM, M[0], M[1], max_abs(M[0], n * n));
    expect_tangent("q", m, n, dq, q[0], q[1], max_abs(q[0], n));

    /* recovery, at a point (z, w) >= 0 moved along (dz, dw) with the data */
    double z[RS_TEST_MAX_LCP], w[RS_TEST_MAX_LCP], dz[RS_TEST_MAX_LCP], dw[RS_TEST_MAX_LCP],
        zs[2][RS_TEST_MAX_LCP], ws[2][RS_TEST_MAX_LCP];
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
    double sn[2][RS_TEST_MAX_STATE], f[2][RS_TEST_MAX_FORCE];
    double dsn[RS_TEST_MAX_STATE], df[RS_TEST_MAX_FORCE];
    m->lcp_recover(&d[0], zs[0], ws[0], sn[0], f[0], NULL);
    m->lcp_recover(&d[1], zs[1], ws[1], sn[1], f[1], NULL);
    m->lcp_recover_tangent(&d[2], &t, z, w, dz, dw, dsn, df);
    const double rscale = fmax(fmax(max_abs(sn[0], m->nstate), max_abs(f[0], m->nforce)), 1.0);
    expect_tangent("state_next", m, m->nstate, dsn, sn[0], sn[1], rscale);
    expect_tangent("forces", m, m->nforce, df, f[0], f[1], rscale);
    return 1;
}

static void check_model(const rs_model *m, rs_rng *rng)
{
    assert_model_fits_test_arrays(m);
    for (int draw = 0; draw < DRAWS; draw++) {
        double params[RS_TEST_MAX_PARAMS], state[RS_TEST_MAX_STATE], input[RS_TEST_MAX_INPUT];
        double dt;
        draw_data(m, rng, params, state, input, &dt);
        assert_true(check_draw(m, rng, params, state, input, dt, 0, NULL));
    }
}

/* disc_polygons: a point or a disc (radius up to 2 cm) next to the convex corner of note 004's
 * figure 1 (a box, its top-right corner at (0.3, 0.2)), within reach of its top edge, its right
 * edge and (a disc in the corner's normal cone, up and to the right of it) the rounded corner,
 * whose line turns with the position; with and without friction, every formulation. A draw whose
 * contact set changes within the difference's step is skipped; at least 3 in 4 are checked. */
static void test_disc_polygons_tangent(void **state)
{
    (void)state;
    const rs_model *m = rs_model_find("disc_polygons");
    assert_non_null(m);
    rs_scene sc;
    rs_scene_init(&sc);
    const double ox = 0.3, oz = 0.2; /* the corner away from the origin, so that terms in the
                                        corner's position count */
    const double box[8] = {ox - 1, oz - 1, ox, oz - 1, ox, oz, ox - 1, oz};
    assert_int_equal(rs_scene_add_polygon(&sc, 4, box, NULL), RS_OK);
    rs_rng rng;
    rs_rng_seed(&rng, 4);
    int checked = 0, corners = 0;
    const int draws = 160;
    for (int draw = 0; draw < draws; draw++) {
        const int disc = draw % 2, friction = (draw / 2) % 2, variant = (draw / 4) % 4;
        const double params[6] = {rs_rng_range(&rng, 0.5, 2.0),
                                  rs_rng_range(&rng, 5.0, 20.0),
                                  disc ? rs_rng_range(&rng, 0.005, 0.02) : 0.0,
                                  0.1,
                                  friction ? rs_rng_range(&rng, 0.1, 0.8) : 0.0,
                                  1.0};
        const int beside = draw % 3 == 0; /* above the top edge, left of the corner */
        const double state4[4] = {
            ox + (beside ? rs_rng_range(&rng, -0.5, -0.1) : rs_rng_range(&rng, 0.001, 0.03)),
            oz + rs_rng_range(&rng, 0.001, 0.03) + params[2], rs_rng_range(&rng, -1.0, 1.0),
            rs_rng_range(&rng, -1.0, 1.0)};
        const double input[2] = {rs_rng_range(&rng, -5.0, 5.0), rs_rng_range(&rng, -5.0, 5.0)};
        const double dt = rs_rng_range(&rng, 1e-3, 1e-2);
        const int ok = check_draw(m, &rng, params, state4, input, dt, variant, &sc);
        checked += ok;
        corners += ok && disc && !beside;
    }
    assert_true(checked >= draws * 3 / 4);
    assert_true(corners >= 10);
    rs_scene_free(&sc);
}

/* Every model has step derivatives; the fixed-size ones are checked here. */
static void test_every_model_tangent(void **state)
{
    (void)state;
    rs_rng rng;
    rs_rng_seed(&rng, 20261126);
    int checked = 0, elsewhere = 0;
    for (int i = 0; i < rs_model_count(); i++) {
        const rs_model *m = rs_model_at(i);
        assert_non_null(m->lcp_tangent); /* every model has them */
        if (m->instantiate || m->needs_scene) {
            elsewhere++; /* bodies: test_bodies; disc_polygons: test_disc_polygons_tangent */
            continue;
        }
        check_model(m, &rng);
        checked++;
    }
    /* every registered model was checked here or has its test elsewhere (the two above), and
     * the loop saw the registry at all: a model added is checked, never skipped by a count */
    assert_int_equal(checked + elsewhere, rs_model_count());
    assert_int_equal(elsewhere, 2);
    assert_true(checked >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_model_tangent),
        cmocka_unit_test(test_disc_polygons_tangent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
