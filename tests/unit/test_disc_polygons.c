/*
 * test_disc_polygons.c: the LCPs of problems/disc_polygons.c checked entry by entry against
 * matrices derived by hand (numbers below), and the per-step sizes the stepper sees.
 */
#include "test_helpers.h"

#include <string.h>

#include "geom/scene.h"
#include "sim/model.h"
#include "models/registry.h"

static const rs_model *model(void)
{
    const rs_model *m = rs_model_find("disc_polygons");
    assert_non_null(m);
    assert_int_equal(rs_model_check(m, NULL), RS_OK);
    return m;
}

/* The LCP's M (column-major) and q against hand-derived ones (expect_M by rows): q to 1e-12,
 * M to tol_M. */
static void expect_lcp(int n, const double *M, const double *q, const double *expect_M,
                       const double *expect_q, double tol_M)
{
    for (int i = 0; i < n; i++) {
        assert_close(q[i], expect_q[i], 1e-12, 0);
        for (int j = 0; j < n; j++)
            assert_close(M[i + n * j], expect_M[i * n + j], tol_M, 0);
    }
}

/* m = 1 kg, g = 10, r = 0, reach 1e-3, mu = 0, corners = 1; dt = 0.1: v_free = v - (0, 1) m/s,
 * reach of the step 1e-3 + 2 dt (|v| + |v_free|) = 0.201 m for v = 0. */
static const double params[6] = {1.0, 10.0, 0.0, 1e-3, 0.0, 1.0};
enum { ST, SIMPLE, NOTE, ACCURATE };
static const double no_input[2] = {0.0, 0.0};

/* A hexagon with a flat top and 45-degree shoulders, seen from above: from p = (2, 4) three of its
 * edges face the point (it is on their outer side), in polygon order n1 = (s, s) (right shoulder),
 * n2 = (0, 1) (top), n3 = (-s, s) (left shoulder), s = 1/sqrt2; the others are behind it. Distances
 * d = (s, 2, s); at rest, dt = 0.1, g = 10: b_i = d_i/dt + n_i . (0, -1) = (9s, 19, 9s), and
 * G = [n_i . n_j] = [[1, s, 0], [s, 1, s], [0, s, 1]], A = 0.1 G. Reach 3 m: all three active. */
static const double params_far[6] = {1.0, 10.0, 0.0, 3.0, 0.0, 1.0};
static void hexagon_scene(rs_scene *sc)
{
    rs_scene_init(sc);
    const double hex[12] = {0, 0, 4, 0, 4, 1, 3, 2, 1, 2, 0, 1};
    assert_int_equal(rs_scene_add_polygon(sc, 6, hex, NULL), RS_OK);
}

/* Egan's simple form (n = 3): z = (c2, c3, f1, f2, f3); rows c2 - rho2 + rho1, c3 - rho3 + c2 +
 * rho1, then c2 + c3 + rho1 three times. A row's force columns are its combination of A's rows:
 * 0.1 (G1 - G2) = (0.1 - t, t - 0.1, -t) with t = 0.1 s, 0.1 (G1 - G3) = (0.1, 0, -0.1). */
static void egan_simple_hexagon(void **state)
{
    (void)state;
    rs_scene sc;
    hexagon_scene(&sc);
    const double x[4] = {2.0, 4.0, 0.0, 0.0};
    rs_nlp_settings nlp;
    rs_nlp_settings_default(&nlp);
    const rs_step_data d = {params_far, x, no_input, 0.1, SIMPLE, &nlp, &sc, 0, NULL};
    const rs_model *m = model();
    unsigned long long key = 0;
    assert_int_equal(m->lcp_size(&d, &key), 5);
    double M[25], q[5];
    m->lcp_build(&d, M, q);
    const double s = 1.0 / sqrt(2.0), t = 0.1 * s, b1 = 9 * s, b2 = 19.0, b3 = 9 * s;
    const double expect_q[5] = {b1 - b2, b1 - b3, b1, b1, b1};
    const double expect_M[5][5] = {
        /* c2 c3  f1        f2        f3 */
        {1, 0, 0.1 - t, t - 0.1, -t},
        {1, 1, 0.1, 0.0, -0.1},
        {1, 1, 0.1, t, 0.0},
        {1, 1, 0.1, t, 0.0},
        {1, 1, 0.1, t, 0.0},
    };
    expect_lcp(5, M, q, &expect_M[0][0], expect_q, 1e-15);
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
    const rs_step_data d = {params, x, no_input, 0.1, 0 /* stewart_trinkle */, &nlp, &sc, 0, NULL};
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
    const rs_step_data d_far = {params, far, no_input, 0.1, 0, &nlp, &sc, 0, NULL};
    assert_int_equal(m->lcp_size(&d_far, &key_far), 0);
    assert_true(key_far != key_corner);
    /* a start inside the box is refused */
    const double inside[4] = {-0.5, -0.5, 0.0, 0.0};
    const rs_step_data d_in = {params, inside, no_input, 0.1, 0, &nlp, &sc, 0, NULL};
    rs_error_detail why;
    assert_int_equal(m->check_step(&d_in, &why), RS_ERR_BAD_ARG);
    assert_non_null(strstr(why.message, "inside an obstacle"));
    assert_int_equal(m->check_step(&d, NULL), RS_OK);
    rs_scene_free(&sc);
}

/* Egan's accurate form, repaired, for the same hexagon and point (n = 3):
 * z = (e12, e13, e21, e23, e31, e32, p1, p2, p3); rows e_ij - rho_j + rho_i (force columns
 * 0.1 (G_i - G_j), q = b_i - b_j), then rho_i + 2 (e_ij + e_ik) (0.1 G_i, q = b_i). */
static void egan_accurate_hexagon(void **state)
{
    (void)state;
    rs_scene sc;
    hexagon_scene(&sc);
    const double x[4] = {2.0, 4.0, 0.0, 0.0};
    rs_nlp_settings nlp;
    rs_nlp_settings_default(&nlp);
    const rs_step_data d = {params_far, x, no_input, 0.1, ACCURATE, &nlp, &sc, 0, NULL};
    const rs_model *m = model();
    unsigned long long key = 0;
    assert_int_equal(m->lcp_size(&d, &key), 9);
    double M[81], q[9];
    m->lcp_build(&d, M, q);
    const double s = 1.0 / sqrt(2.0), t = 0.1 * s, u = 0.1 - t, b1 = 9 * s, b2 = 19.0, b3 = 9 * s;
    const double expect_q[9] = {b1 - b2, b1 - b3, b2 - b1, b2 - b3, b3 - b1, b3 - b2, b1, b2, b3};
    const double expect_M[9][9] = {
        /* e12 e13 e21 e23 e31 e32  p1    p2    p3 */
        {1, 0, 0, 0, 0, 0, u, -u, -t},       /* e12: 0.1 (G1 - G2) */
        {0, 1, 0, 0, 0, 0, 0.1, 0.0, -0.1},  /* e13: 0.1 (G1 - G3) */
        {0, 0, 1, 0, 0, 0, -u, u, t},        /* e21 */
        {0, 0, 0, 1, 0, 0, t, u, -u},        /* e23: 0.1 (G2 - G3) */
        {0, 0, 0, 0, 1, 0, -0.1, 0.0, 0.1},  /* e31 */
        {0, 0, 0, 0, 0, 1, -t, -u, u},       /* e32 */
        {2, 2, 0, 0, 0, 0, 0.1, t, 0.0},     /* p1: rho1 + 2 (e12 + e13) */
        {0, 0, 2, 2, 0, 0, t, 0.1, t},       /* p2 */
        {0, 0, 0, 0, 2, 2, 0.0, t, 0.1},     /* p3 */
    };
    expect_lcp(9, M, q, &expect_M[0][0], expect_q, 1e-15);
    /* contact-free start: e_ij = max(b_j - b_i, 0), forces 0 */
    double z[9];
    m->lcp_contact_free(&d, z);
    const double expect_z[9] = {b2 - b1, 0.0, 0.0, 0.0, 0.0, b2 - b3, 0, 0, 0};
    for (int i = 0; i < 9; i++)
        assert_close(z[i], expect_z[i], 1e-12, 0);
    /* an edge whose line the point is behind is no contact: from (2, 2.5) the shoulders' lines
     * pass above the point (d = 4.5 s - 5 s < 0): only the top faces it, a group of one (p1);
     * beside the right side at (4.5, 0.2) only that side does */
    const double low[4] = {2.0, 2.5, 0.0, 0.0};
    const rs_step_data d_low = {params_far, low, no_input, 0.1, ACCURATE, &nlp, &sc, 0, NULL};
    assert_int_equal(m->lcp_size(&d_low, &key), 1);
    const double beside[4] = {4.5, 0.2, 0.0, 0.0};
    const rs_step_data d_beside = {params_far, beside, no_input, 0.1, ACCURATE, &nlp, &sc, 0, NULL};
    assert_int_equal(m->lcp_size(&d_beside, &key), 1);
    rs_scene_free(&sc);
}

/* The corner (0, 0) of the box [-1, 0]^2, the point at (0.05, 0.05) at rest (dt = 0.1, g = 10):
 * Egan's group is the right edge (rho1, n = (1, 0)) and the top edge (rho2, n = (0, 1)), the
 * others are out of reach. b = (0.5, 0.5 - 1), A = 0.1 I. */
static void corner_scene(rs_scene *sc)
{
    rs_scene_init(sc);
    const double box[8] = {-1, -1, 0, -1, 0, 0, -1, 0};
    assert_int_equal(rs_scene_add_polygon(sc, 4, box, NULL), RS_OK);
}

/* n = 2, repaired: z = (e12, e21, p1, p2); rows e12 - rho2 + rho1, e21 - rho1 + rho2,
 * rho1 + 2 e12, rho2 + 2 e21. */
static void egan_accurate_corner(void **state)
{
    (void)state;
    rs_scene sc;
    corner_scene(&sc);
    const double x[4] = {0.05, 0.05, 0.0, 0.0};
    rs_nlp_settings nlp;
    rs_nlp_settings_default(&nlp);
    const rs_step_data d = {params, x, no_input, 0.1, ACCURATE, &nlp, &sc, 0, NULL};
    const rs_model *m = model();
    unsigned long long key = 0;
    assert_int_equal(m->lcp_size(&d, &key), 4);
    double M[16], q[4];
    m->lcp_build(&d, M, q);
    const double expect_M[4][4] = {
        {1, 0, 0.1, -0.1}, {0, 1, -0.1, 0.1}, {2, 0, 0.1, 0}, {0, 2, 0, 0.1}};
    const double expect_q[4] = {1.0, -1.0, 0.5, -0.5};
    expect_lcp(4, M, q, &expect_M[0][0], expect_q, 1e-15);
    rs_scene_free(&sc);
}

/* n = 2, egan_simple: z = (c2, p1, p2); rows c2 - rho2 + rho1, then c2 + rho1 twice. */
static void egan_simple_corner(void **state)
{
    (void)state;
    rs_scene sc;
    corner_scene(&sc);
    const double x[4] = {0.05, 0.05, 0.0, 0.0};
    rs_nlp_settings nlp;
    rs_nlp_settings_default(&nlp);
    const rs_step_data d = {params, x, no_input, 0.1, SIMPLE, &nlp, &sc, 0, NULL};
    const rs_model *m = model();
    unsigned long long key = 0;
    assert_int_equal(m->lcp_size(&d, &key), 3);
    double M[9], q[3];
    m->lcp_build(&d, M, q);
    const double expect_M[3][3] = {{1, 0.1, -0.1}, {1, 0.1, 0.0}, {1, 0.1, 0.0}};
    const double expect_q[3] = {1.0, 0.5, 0.5};
    expect_lcp(3, M, q, &expect_M[0][0], expect_q, 1e-15);
    rs_scene_free(&sc);
}

/* n = 2 exactly as the note writes it: z = (c2, g1, g2, p1, p2, p), 3n = 6 unknowns; the dummy
 * p's column is zero (section 4.2). Rows c2 - rho2 + rho1, g1 + rho1, g2 + rho2,
 * g1 + c2 + rho1, g2 + c2 + rho1, c2 + rho1. */
static void egan_accurate_note_corner(void **state)
{
    (void)state;
    rs_scene sc;
    corner_scene(&sc);
    const double x[4] = {0.05, 0.05, 0.0, 0.0};
    rs_nlp_settings nlp;
    rs_nlp_settings_default(&nlp);
    const rs_step_data d = {params, x, no_input, 0.1, NOTE, &nlp, &sc, 0, NULL};
    const rs_model *m = model();
    unsigned long long key = 0;
    assert_int_equal(m->lcp_size(&d, &key), 6);
    double M[36], q[6];
    m->lcp_build(&d, M, q);
    const double expect_M[6][6] = {
        /* c2 g1 g2 p1   p2   p */
        {1, 0, 0, 0.1, -0.1, 0},
        {0, 1, 0, 0.1, 0.0, 0},
        {0, 0, 1, 0.0, 0.1, 0},
        {1, 1, 0, 0.1, 0.0, 0},
        {1, 0, 1, 0.1, 0.0, 0},
        {1, 0, 0, 0.1, 0.0, 0},
    };
    const double expect_q[6] = {1.0, 0.5, -0.5, 0.5, 0.5, 0.5};
    expect_lcp(6, M, q, &expect_M[0][0], expect_q, 0);
    rs_scene_free(&sc);
}

/* Stewart-Trinkle with friction on the ground z = 0, mu = 0.5, the point at rest on it moving at
 * xd = 1 m/s: z = (p, beta+, beta-, lambda), t = (1, 0). As in point2d_friction:
 * M = [[h, 0, 0, 0], [0, h, -h, 1], [0, -h, h, 1], [mu, -1, -1, 0]], h = dt/m = 0.1,
 * q = (0/dt - g dt, xd, -xd, 0) = (-1, 1, -1, 0). */
static void stewart_trinkle_friction(void **state)
{
    (void)state;
    rs_scene sc;
    rs_scene_init(&sc);
    const double pt[2] = {0, 0}, up[2] = {0, 1};
    assert_int_equal(rs_scene_add_halfplane(&sc, pt, up, NULL), RS_OK);
    const double p_mu[6] = {1.0, 10.0, 0.0, 1e-3, 0.5, 1.0};
    const double x[4] = {0.0, 0.0, 1.0, 0.0};
    rs_nlp_settings nlp;
    rs_nlp_settings_default(&nlp);
    const rs_step_data d = {p_mu, x, no_input, 0.1, ST, &nlp, &sc, 0, NULL};
    const rs_model *m = model();
    unsigned long long key = 0;
    assert_int_equal(m->lcp_size(&d, &key), 4);
    double M[16], q[4];
    m->lcp_build(&d, M, q);
    const double expect_M[4][4] = {
        {0.1, 0, 0, 0}, {0, 0.1, -0.1, 1}, {0, -0.1, 0.1, 1}, {0.5, -1, -1, 0}};
    const double expect_q[4] = {-1.0, 1.0, -1.0, 0.0};
    expect_lcp(4, M, q, &expect_M[0][0], expect_q, 1e-15);
    /* contact-free start: lambda = |t . v_free| = 1 */
    double z[4];
    m->lcp_contact_free(&d, z);
    assert_close(z[3], 1.0, 1e-15, 0);

    /* The certificate on this ground. Step units: V = |v_free| = sqrt2 m/s, L = V dt, F = 10 V N.
     * f = (-5, 10): v' = v_free + dt f = (0.5, 0), p' = (0.05, 0): sliding +x on the ground with
     * friction -mu fz, on the edge n - mu t of the cone: certified. */
    double primal = 1, compl = 1;
    const double slide_f[2] = {-5.0, 10.0}, slide_next[4] = {0.05, 0.0, 0.5, 0.0};
    m->residuals(&d, slide_next, slide_f, NULL, &primal, &compl);
    assert_true(primal <= 1e-12);
    assert_true(compl <= 1e-12);
    /* f = (5, 10): friction along the motion, v' = (1.5, 0). Its distance to the sliding ray is
     * |(8, 4)| / F = 0.63; the sticking cone would hold it but costs the slip 1.5 / V = 1.06;
     * no force at all costs |f| / F = 0.79. So the residual is 0.63. */
    const double push_f[2] = {5.0, 10.0}, push_next[4] = {0.15, 0.0, 1.5, 0.0};
    m->residuals(&d, push_next, push_f, NULL, &primal, &compl);
    assert_true(primal <= 1e-12);
    assert_close(compl, hypot(8.0, 4.0) / (10.0 * sqrt(2.0)), 1e-12, 0);
    rs_scene_free(&sc);
}

/* The accurate certificate refuses a force on an edge that is not touched; egan_simple's allows it
 * while the group is on its boundary (the note's section 4.1 artifact). At the corner, from
 * p = (0.02, 0.01) in the corner's region (both edges face it), v = (-0.8, 0.4), v_free = (-0.8,
 * -0.6), the force f = (5, 5) = 5 n_right + 5 n_top gives v' = (-0.3, -0.1) and p' = (-0.01, 0):
 * on the top edge, 0.01 m beyond the right edge's line. V = 1, L = 0.1 m, F = 10 N. The power
 * f . v' = -2 W is dissipative. */
static void certificate_per_edge(void **state)
{
    (void)state;
    rs_scene sc;
    corner_scene(&sc);
    rs_nlp_settings nlp;
    rs_nlp_settings_default(&nlp);
    const rs_model *m = model();
    const double x[4] = {0.02, 0.01, -0.8, 0.4};
    const double f[2] = {5.0, 5.0}, next[4] = {-0.01, 0.0, -0.3, -0.1};
    double primal = 1, compl = 1;
    const rs_step_data acc = {params, x, no_input, 0.1, ACCURATE, &nlp, &sc, 0, NULL};
    m->residuals(&acc, next, f, NULL, &primal, &compl);
    assert_true(primal <= 1e-12);
    /* the top edge alone is 5 N = 0.5 F from f; admitting the right edge costs its distance
     * 0.01 m = 0.1 L: the residual is 0.1 */
    assert_close(compl, 0.1, 1e-12, 0);
    const rs_step_data simple = {params, x, no_input, 0.1, SIMPLE, &nlp, &sc, 0, NULL};
    m->residuals(&simple, next, f, NULL, &primal, &compl);
    assert_true(primal <= 1e-12);
    assert_true(compl <= 1e-12);
    /* the same force on a body that ends moving along it, v' = (0.3, 0.2): the contact does
     * work, f . v' / (F V) = (1.5 + 1) / 10 = 0.25: refused */
    const double pushed[4] = {-0.01, 0.0, 0.3, 0.2};
    m->residuals(&simple, pushed, f, NULL, &primal, &compl);
    assert_true(compl >= 0.25 - 1e-12);
    rs_scene_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(egan_simple_hexagon),
        cmocka_unit_test(stewart_trinkle_corner),
        cmocka_unit_test(egan_accurate_hexagon),
        cmocka_unit_test(egan_simple_corner),
        cmocka_unit_test(egan_accurate_corner),
        cmocka_unit_test(egan_accurate_note_corner),
        cmocka_unit_test(stewart_trinkle_friction),
        cmocka_unit_test(certificate_per_edge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
