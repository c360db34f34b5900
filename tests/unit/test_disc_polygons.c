/*
 * test_disc_polygons.c: the LCPs of problems/disc_polygons.c checked entry by entry against
 * matrices derived by hand (numbers below), and the per-step sizes the stepper sees.
 */
#include "test_helpers.h"

#include <string.h>

#include "geom/scene.h"
#include "sim/model.h"

static const rs_model *model(void)
{
    const rs_model *m = rs_model_find("disc_polygons");
    assert_non_null(m);
    assert_null(rs_model_check(m));
    return m;
}

/* m = 1 kg, g = 10, r = 0, reach 1e-3; dt = 0.1: v_free = v - (0, 1) m/s, reach of the step
 * 1e-3 + 2 dt (|v| + |v_free|) = 0.201 m for v = 0. */
static const double params[4] = {1.0, 10.0, 0.0, 1e-3};
static const double no_input[2] = {0.0, 0.0};

/* Egan's simple form for the triangle (0,0), (1,0), (0,1) and the point (0.6, 0.6) at rest.
 * Edges: n1 = (0,-1), c1 = 0; n2 = (1,1)/sqrt2, c2 = 1/sqrt2; n3 = (-1,0), c3 = 0.
 * d = (-0.6, 0.2/sqrt2, -0.6); b_i = d_i/dt + n_i . (0,-1) = (-5, sqrt2 - 1/sqrt2, -6);
 * A = dt [n_i . n_j] = 0.1 [[1, -s, 0], [-s, 1, -s], [0, -s, 1]] with s = 1/sqrt2.
 * z = (c2, c3, f1, f2, f3); rows c2 - rho2 + rho1, c3 - rho3 + c2 + rho1, then c2 + c3 + rho1
 * three times. */
static void egan_simple_triangle(void **state)
{
    (void)state;
    rs_scene sc;
    rs_scene_init(&sc);
    const double tri[6] = {0, 0, 1, 0, 0, 1};
    assert_int_equal(rs_scene_add_polygon(&sc, 3, tri, NULL), RS_OK);
    const double x[4] = {0.6, 0.6, 0.0, 0.0};
    rs_nlp_settings nlp;
    rs_nlp_settings_default(&nlp);
    const rs_step_data d = {params, x, no_input, 0.1, 1 /* egan_simple */, &nlp, &sc};
    const rs_model *m = model();
    unsigned long long key = 0;
    assert_int_equal(m->lcp_size(&d, &key), 5);
    double M[25], q[5];
    m->lcp_build(&d, M, q);
    const double s = 1.0 / sqrt(2.0), b1 = -5.0, b2 = sqrt(2.0) - s, b3 = -6.0;
    const double expect_q[5] = {b1 - b2, b1 - b3, b1, b1, b1};
    const double expect_M[5][5] = { /* rows */
        {1, 0, 0.1 + 0.1 * s, -0.1 * s - 0.1, 0.1 * s},
        {1, 1, 0.1, 0.0, -0.1},
        {1, 1, 0.1, -0.1 * s, 0.0},
        {1, 1, 0.1, -0.1 * s, 0.0},
        {1, 1, 0.1, -0.1 * s, 0.0},
    };
    for (int i = 0; i < 5; i++) {
        assert_close(q[i], expect_q[i], 1e-12, 0);
        for (int j = 0; j < 5; j++)
            assert_close(M[i + 5 * j], expect_M[i][j], 1e-15, 0);
    }
    /* the contact-free start: f = 0, c2 = max(b2 - b1, 0), c3 = max(b3 - (b1 + c2), 0) = 0 */
    double z[5];
    m->lcp_contact_free(&d, z);
    assert_close(z[0], b2 - b1, 1e-12, 0);
    assert_close(z[1], 0.0, 0, 0);
    for (int i = 2; i < 5; i++)
        assert_close(z[i], 0.0, 0, 0);
    rs_scene_free(&sc);
}

/* Stewart-Trinkle at the corner (0,0) of the box [-1,0]^2, the point at (0.05, 0.05) at rest:
 * the right edge (n = (1,0)) and the top edge (n = (0,1)) are within reach, nothing else.
 * M = dt I (orthogonal normals); q = d/dt + n . (0,-1) = (0.5, 0.5 - 1). */
static void stewart_trinkle_corner(void **state)
{
    (void)state;
    rs_scene sc;
    rs_scene_init(&sc);
    const double box[8] = {-1, -1, 0, -1, 0, 0, -1, 0};
    assert_int_equal(rs_scene_add_polygon(&sc, 4, box, NULL), RS_OK);
    const double x[4] = {0.05, 0.05, 0.0, 0.0};
    rs_nlp_settings nlp;
    rs_nlp_settings_default(&nlp);
    const rs_step_data d = {params, x, no_input, 0.1, 0 /* stewart_trinkle */, &nlp, &sc};
    const rs_model *m = model();
    unsigned long long key_corner = 0, key_far = 0;
    assert_int_equal(m->lcp_size(&d, &key_corner), 2);
    double M[4], q[2];
    m->lcp_build(&d, M, q);
    assert_close(M[0], 0.1, 1e-15, 0);
    assert_close(M[1], 0.0, 1e-15, 0);
    assert_close(M[2], 0.0, 1e-15, 0);
    assert_close(M[3], 0.1, 1e-15, 0);
    assert_close(q[0], 0.5, 1e-12, 0);
    assert_close(q[1], -0.5, 1e-12, 0);
    /* far from the box: nothing active, a different structure */
    const double far[4] = {5.0, 5.0, 0.0, 0.0};
    const rs_step_data d_far = {params, far, no_input, 0.1, 0, &nlp, &sc};
    assert_int_equal(m->lcp_size(&d_far, &key_far), 0);
    assert_true(key_far != key_corner);
    /* a start inside the box is refused */
    const double inside[4] = {-0.5, -0.5, 0.0, 0.0};
    const rs_step_data d_in = {params, inside, no_input, 0.1, 0, &nlp, &sc};
    assert_non_null(m->check_step(&d_in));
    assert_null(m->check_step(&d));
    rs_scene_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(egan_simple_triangle),
        cmocka_unit_test(stewart_trinkle_corner),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
