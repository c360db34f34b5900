/*
 * test_bodies_pile.c: the pile (bodies_pile.ini: 12 boxes and 12 discs dropped into a valley),
 * Lemke's trajectory: at rest at the end, no body is inside another or a wall by more than
 * Lemke's certified accuracy (below), every gap recomputed from the final poses. A long simulation (1,000
 * steps; six minutes under valgrind), labelled slow: run in the optimised build and, reduced,
 * under the sanitizers; valgrind covers the same code through test_bodies' shorter scenes.
 */
#include "test_helpers.h"

#include <float.h>
#include <stdlib.h>

#include "dynamics/bodies.h"
#include "geom/contacts.h"
#include "io/scenario.h"
#include "sim/compare.h"

static void test_pile_ends_without_overlap(void **state)
{
    (void)state;
    rs_scenario sc;
    /* (RS_TEST_REDUCED, under the sanitizers: the pile's first 400 steps, to
     * Lemke's rest at step 389, 51 contacts; the whole run, 1,000 steps, takes six minutes
     * under valgrind. Not fewer: at step 250 the pile still moves, and a body ends 4.8e-9 m deep,
     * the scheme's gaps being linearised at the step's start; this test bounds a pile at rest) */
    const char *reduced[] = {"run.steps=400"};
    rs_error_detail d;
    assert_int_equal(rs_scenario_load(RS_SOURCE_DIR "/problems/scenarios/bodies_pile.ini", reduced,
                                      rs_test_reduced() ? 1 : 0, &sc, &d),
                     RS_OK);
    rs_compare_result r;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_LEMKE, NULL, NULL, &r), RS_OK);
    assert_int_equal(r.lemke.failed_steps, 0);
    const rs_step_result *end = &r.step[r.steps - 1].lemke;
    const int nb = sc.scene->nbodies;
    double *pose = malloc(sizeof(double) * 4 * (size_t)nb), *margin = pose + 3 * nb;
    for (int b = 0; b < nb; b++) {
        for (int k = 0; k < 3; k++)
            pose[3 * b + k] = end->state_next[BS_N * b + k];
        margin[b] = 0.0;
    }
    rs_contact_list l = {0};
    assert_int_equal(rs_find_contacts(sc.scene, pose, margin, 1e-3, &l), RS_OK);
    double worst = INFINITY;
    for (int i = 0; i < l.n; i++)
        worst = fmin(worst, l.c[i].gap);
    /* Lemke's answer is exact to its certificate: the LCP's relative measures within
     * RS_LCP_CERT_TOL_DEFAULT, so a resting step's gaps after it within about that much of the
     * step's length L = V dt (V = g dt at rest), or the rounding of the poses where that is more
     * (RS_LEMKE_FLOOR_ULPS unit roundoffs of the scene's size X, its largest coordinate plus a
     * body's extent). The LCP's tolerance is relative in its own equilibrated units, not a
     * length: taken in L, it is a scale, not a derived bound. Bound: 10 times it. Measured:
     * -8.3e-17 m (X = 2.3 m, L = 3.9e-5 m) and, on the trajectory after ec67173 (which the
     * refinement changed from step 379), -1.33e-14 m, 3.4e-10 L: its step 399, a plain pivoted
     * answer (not refined) that passes its certificate, leaves 3e-10 in its physical residual
     * and 6e-12 m/s where the steps before it left 7e-14 */
    double X = 0.0;
    for (int b = 0; b < nb; b++)
        X = fmax(X, fmax(fabs(pose[3 * b]), fabs(pose[3 * b + 1])) + sc.scene->bodies[b].extent);
    const double L = sc.params[BP_G] * sc.dt * sc.dt;
    const double bound =
        fmax(RS_LEMKE_FLOOR_ULPS * DBL_EPSILON / 2 * X, 10.0 * RS_LCP_CERT_TOL_DEFAULT * L);
    print_message("pile: %d contacts at the end, the deepest gap %.3g m (bound %.3g m)\n", l.n,
                  worst, -bound);
    assert_true(l.n > 24); /* resting on each other and the walls */
    assert_true(worst >= -bound);
    rs_contact_list_free(&l);
    free(pose);
    rs_compare_free(&r);
    rs_scenario_release(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pile_ends_without_overlap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
