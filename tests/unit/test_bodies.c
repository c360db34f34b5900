/*
 * test_bodies.c: the bodies model (src/dynamics/, src/models/bodies_model.c) against what can
 * be known without it.
 *
 * - Contacts (geom/contacts.h) of simple poses against their hand computations: a box on a
 *   half-plane (two corners, their gaps and lever arms), two discs, a box on a box offset (the
 *   clipped face: two points at the overlap's ends), a disc beside a box's corner (the normal
 *   from the corner), and the margin (a contact found only within it).
 * - The stack (bodies_stack.ini): each contact carries the weight above it, to 1e-9 relative,
 *   from the forces each contact reports.
 * - (The pile, a long simulation: test_bodies_pile.c, labelled slow.)
 * - Reproduction: point2d_friction and disc_polygons (stewart_trinkle, a disc of r = 0.05) on
 *   the ramp and in the valley, and their bodies scenes, give the same Lemke trajectories to
 *   1e-9 relative (of each column's largest value over the run).
 * - The NLPs' derivatives (both variants) against central differences of their own values, at
 *   a random point of the stack's first step.
 * - The step derivatives (bodies_tangent.c, for `relaxsim grad`) against central differences of
 *   the LCP and the recovery, the contact set fixed, over a scene with every kind of contact.
 * - Resting contacts without gravity (g = 0, a top view): the stack, a disc thrown down onto
 *   the ground and the table's shot into its cushion solve every step, in units whose floor
 *   does not vanish with g.
 * - A box of 1e6 kg on a box of 1 kg on the ground: every step solved by both backends (the
 *   certificate's unit of a contact follows the force it carries, not its lighter body), each
 *   interface carrying the weight above it.
 * - The stack at dt = 1e-6 s and at the smallest dt a scenario takes, 1e-12 s: every step
 *   solved by both backends, each box's contact force its weight, nothing moving (positions
 *   judged beyond their own rounding, gaps within the rounding of the positions a touch).
 */
#include "test_helpers.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics/bodies.h"
#include "core/rng.h"
#include "geom/contacts.h"
#include "io/scenario.h"
#include "io/scene_file.h"
#include "sim/compare.h"
#include "models/registry.h"

#include "every_contact_scene.h"

#define SCEN RS_SOURCE_DIR "/problems/scenarios/"

static void load(const char *path, const char *const *sets, int nsets, rs_scenario *sc)
{
    rs_error_detail d;
    const rs_error err = rs_scenario_load(path, sets, nsets, sc, &d);
    if (err != RS_OK)
        print_error("%s\n", d.message);
    assert_int_equal(err, RS_OK);
}

static void scene_of(const char *text, rs_scene *s)
{
    rs_error_detail d;
    const rs_error err = rs_scene_read_text("test.scene", text, s, &d);
    if (err != RS_OK)
        print_error("%s\n", d.message);
    assert_int_equal(err, RS_OK);
}

static void test_contacts(void **state)
{
    (void)state;
    rs_scene s;
    rs_contact_list l = {0};
    /* a box 0.4 x 0.2 whose bottom is 1 mm above the ground: two corners, gap 1e-3, lever arms
     * (+-0.2, -0.1) from the centre */
    scene_of("halfplane 0 0, 0 1\nbody b box w=0.4 h=0.2\n", &s);
    double pose[6] = {0.5, 0.101, 0.0}, margin[2] = {0.002, 0.0};
    assert_int_equal(rs_find_contacts(&s, pose, margin, 0.0, &l), RS_OK);
    assert_int_equal(l.n, 2);
    for (int i = 0; i < 2; i++) {
        assert_close(l.c[i].gap, 1e-3, 1e-15, 0.0);
        assert_close(l.c[i].n[1], 1.0, 0.0, 0.0);
        assert_close(fabs(l.c[i].ra[0]), 0.2, 1e-15, 0.0);
        assert_close(l.c[i].ra[1], -0.1, 1e-15, 0.0);
        assert_int_equal(l.c[i].b, -1);
    }
    margin[0] = 5e-4; /* beyond the margin: none */
    assert_int_equal(rs_find_contacts(&s, pose, margin, 0.0, &l), RS_OK);
    assert_int_equal(l.n, 0);
    rs_scene_free(&s);
    /* two discs, r = 0.1 and 0.2, centres 0.35 apart on a diagonal: gap 0.05, normal from the
     * second into the first */
    scene_of("body a disc r=0.1\nbody b disc r=0.2\n", &s);
    const double d = 0.35 / sqrt(2.0);
    double p2[6] = {0.0, 0.0, 0.0, d, d, 0.0}, m2[2] = {0.1, 0.1};
    assert_int_equal(rs_find_contacts(&s, p2, m2, 0.0, &l), RS_OK);
    assert_int_equal(l.n, 1);
    assert_close(l.c[0].gap, 0.05, 1e-15, 0.0);
    assert_close(l.c[0].n[0], -sqrt(0.5), 1e-15, 0.0);
    assert_close(l.c[0].ra[0], 0.1 * sqrt(0.5), 1e-15, 0.0);  /* a's surface towards b */
    assert_close(l.c[0].rb[0], -0.2 * sqrt(0.5), 1e-15, 0.0); /* b's surface towards a */
    rs_scene_free(&s);
    /* a 0.2 wide box resting on a 0.4 wide one, shifted by 0.15: the upper's bottom [0.05, 0.25]
     * overlaps the lower's top [-0.2, 0.2] over [0.05, 0.2]: two contact points at its ends, the
     * upper's corner and the lower's */
    scene_of("body low box w=0.4 h=0.2\nbody up box w=0.2 h=0.2\n", &s);
    double p3[6] = {0.0, 0.1, 0.0, 0.15, 0.3, 0.0}, m3[2] = {1e-3, 1e-3};
    assert_int_equal(rs_find_contacts(&s, p3, m3, 0.0, &l), RS_OK);
    assert_int_equal(l.n, 2);
    double xs[2];
    for (int i = 0; i < 2; i++) {
        assert_close(l.c[i].gap, 0.0, 1e-15, 0.0);
        assert_close(fabs(l.c[i].n[1]), 1.0, 1e-15, 0.0);
        xs[i] = l.c[i].p[0];
    }
    assert_close(fmin(xs[0], xs[1]), 0.05, 1e-15, 0.0);
    assert_close(fmax(xs[0], xs[1]), 0.2, 1e-15, 0.0);
    rs_scene_free(&s);
    /* a disc up and to the right of a static box's corner (0, 0): the normal from the corner */
    scene_of("polygon -1 -1, 0 -1, 0 0, -1 0\nbody d disc r=0.1\n", &s);
    double p4[3] = {0.1, 0.1, 0.0}, m4[1] = {0.1};
    assert_int_equal(rs_find_contacts(&s, p4, m4, 0.0, &l), RS_OK);
    assert_int_equal(l.n, 1);
    assert_close(l.c[0].gap, 0.1 * sqrt(2.0) - 0.1, 1e-15, 0.0);
    assert_close(l.c[0].n[0], sqrt(0.5), 1e-15, 0.0);
    assert_close(l.c[0].n[1], sqrt(0.5), 1e-15, 0.0);
    rs_scene_free(&s);
    rs_contact_list_free(&l);
}

/* Flat ground made of two abutting static boxes (their seam at x = 1): a body near the seam
 * touches the ground's top faces only, with the normal straight up. The corner (1, 0) where the
 * boxes meet lies on the other's face (both boxes' sides there are covered): a contact at it,
 * seen at a slant by a disc beside it or side-on by a box's leading face, kicked bodies crossing
 * the seam (the disc of bodies_seam.ini lost 1.7e-4 of its speed there). */
static void test_a_seam_has_no_corner(void **state)
{
    (void)state;
    rs_scene s;
    rs_contact_list l = {0};
    scene_of("polygon -1 -1, 1 -1, 1 0, -1 0\npolygon 1 -1, 3 -1, 3 0, 1 0\n"
             "body d disc r=0.1\nbody b box w=0.2 h=0.1\n", &s);
    /* the disc resting 1 cm either side of the seam and on it (the box away, at x = 2.5) */
    static const double dx[] = {-0.01, 0.0, 0.01};
    for (int i = 0; i < 3; i++) {
        double pose[6] = {1.0 + dx[i], 0.1, 0.0, 2.5, 0.05, 0.0}, margin[2] = {1e-3, 1e-3};
        assert_int_equal(rs_find_contacts(&s, pose, margin, 0.0, &l), RS_OK);
        int disc = 0;
        for (int c = 0; c < l.n; c++) {
            assert_int_equal(l.c[c].b, -1); /* the disc and the box do not touch */
            assert_close(l.c[c].n[0], 0.0, 0.0, 0.0);
            assert_close(l.c[c].n[1], 1.0, 0.0, 0.0);
            assert_close(l.c[c].gap, 0.0, 1e-15, 0.0);
            disc += l.c[c].a == 0;
        }
        assert_true(disc >= 1); /* the disc is held */
    }
    /* the box 1e-4 m short of the seam: its leading face 1e-4 m from the right box's corner */
    double box_only[6] = {-0.5, 0.1, 0.0, 0.8999, 0.05, 0.0}, margin[2] = {1e-3, 1e-3};
    assert_int_equal(rs_find_contacts(&s, box_only, margin, 0.0, &l), RS_OK);
    int held = 0;
    for (int c = 0; c < l.n; c++) {
        assert_close(l.c[c].n[1], 1.0, 0.0, 0.0); /* no push back from the corner */
        held += l.c[c].a == 1;
    }
    assert_int_equal(held, 2); /* the box's two bottom corners on the left box's face */
    rs_scene_free(&s);
    rs_contact_list_free(&l);
}

/* A scene whose first step LCP the dense solvers cannot hold is refused when it is loaded, with
 * its size and what to change: 300 boxes in a grid with model.reach = 1000 (every pair a
 * candidate) make 11,100 rows, 3 GB of dense arrays (before, such a step was allocated: 410 TB
 * for 2,000 bodies). With the default reach the same grid loads. */
static void test_a_step_too_large_is_refused_up_front(void **state)
{
    (void)state;
    static char scene[300 * 64 + 64];
    int len = snprintf(scene, sizeof scene, "halfplane 0 0, 0 1\n");
    for (int i = 0; i < 20; i++)
        for (int j = 0; j < 15; j++)
            len += snprintf(scene + len, sizeof scene - (size_t)len,
                            "body b%d box w=0.1 h=0.1 x=%.2f z=%.2f\n", 15 * i + j, 0.11 * i,
                            0.05 + 0.11 * j);
    static const char text[] = "[model]\nname = bodies\nscene = grid.scene\nreach = 1000\n";
    rs_scenario sc;
    rs_error_detail d;
    assert_int_equal(rs_scenario_load_text("grid.ini", text, scene, NULL, 0, &sc, &d),
                     RS_ERR_PARSE); /* bad input, as every start outside the model's domain */
    assert_non_null(strstr(d.message, "the first step's LCP has 11100 rows"));
    assert_non_null(strstr(d.message, "lower model.reach"));
    static const char *const near[] = {"model.reach=0"};
    assert_int_equal(rs_scenario_load_text("grid.ini", text, scene, near, 1, &sc, &d), RS_OK);
    rs_scenario_release(&sc);
}

/* sc and r: the scenario `text` (named `name`) over the scene `scene`, loaded and compared. */
static void compare_text(const char *name, const char *text, const char *scene, rs_scenario *sc,
                         rs_compare_result *r)
{
    rs_error_detail d;
    assert_int_equal(rs_scenario_load_text(name, text, scene, NULL, 0, sc, &d), RS_OK);
    assert_int_equal(rs_compare_run(sc, RS_RUN_COMPARE, NULL, NULL, r), RS_OK);
}

/* A run's failed steps: the NLP's, the shadow Lemke solves', Lemke's own trajectory's, and the
 * Lemke answers (of either) refused by the physical certificate. */
typedef struct failed_steps {
    int nlp, shadow, lemke, refused;
} failed_steps;

static failed_steps count_failed_steps(const rs_compare_result *r)
{
    failed_steps f = {0, 0, 0, 0};
    for (int k = 0; k < r->steps; k++) {
        f.nlp += !r->step[k].nlp.ok;
        f.shadow += !r->step[k].shadow.ok;
        f.lemke += !r->step[k].lemke.ok;
        f.refused += r->step[k].lemke.status == RS_LEMKE_NOT_CERTIFIED ||
                     r->step[k].shadow.status == RS_LEMKE_NOT_CERTIFIED;
    }
    return f;
}

/* A run that flies off the scale of every scene is failed steps, not solved ones: a disc thrown
 * at 1e12 m/s (the largest speed a scenario takes) leaves +-1e12 m (the largest coordinate) in
 * its first step; every step from there fails its certificate, on both backends (it reached
 * 1.8e20 m reported solved). */
static void test_a_state_beyond_every_range_fails(void **state)
{
    (void)state;
    static const char scene[] = "body d disc r=0.1 x=999999999999 z=0.1\n";
    static const char text[] = "[model]\nname = bodies\nscene = far.scene\ng = 0\n"
                               "[initial]\nd.xd = 1e12\n[run]\nsteps = 3\n";
    rs_scenario sc;
    rs_compare_result r;
    compare_text("far.ini", text, scene, &sc, &r);
    assert_int_equal(r.nlp.failed_steps, 3);
    assert_int_equal(r.lemke.failed_steps, 3);
    assert_false(r.contract_passed);
    for (int k = 0; k < 3; k++)
        assert_true(r.step[k].lemke.primal > 1e300); /* the certificate's verdict: out of range */
    rs_compare_free(&r);
    rs_scenario_release(&sc);
}

/* The certificate's columns mean what they mean for every model (model.h): primal the equations,
 * the inequalities and the cone; complementarity the products. A resting box's answer with its
 * contact forces made to pull (p_i < 0, at zero gap and no slip: every product still 0) is a
 * primal violation alone, of about 1 (|p_i| in its unit); it was filed under complementarity. */
static void test_certificate_columns(void **state)
{
    (void)state;
    rs_scenario sc;
    static const char *const sets[] = {"run.steps=1"};
    load(SCEN "bodies_box_rest.ini", sets, 1, &sc);
    rs_compare_result r;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_LEMKE, NULL, NULL, &r), RS_OK);
    const rs_step_result *s = &r.step[0].lemke;
    assert_true(s->ok && s->ncontact == 2);
    double contact[4], input[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < 2 * s->ncontact; i++)
        contact[i] = i % 2 ? s->contact[i] : -s->contact[i]; /* pulling, same friction */
    const rs_step_data d = {sc.params, sc.initial, input, sc.dt, sc.variant, &sc.nlp, sc.scene,
                            1, NULL};
    double primal, complementarity;
    sc.model->residuals(&d, s->state_next, s->forces, contact, &primal, &complementarity);
    assert_true(primal >= 0.4);            /* measured 0.5: each corner carries half of m g */
    assert_true(complementarity <= 1e-12); /* every product at zero gap and slip */
    rs_compare_free(&r);
    rs_scenario_release(&sc);
}

/* The stack: the contacts between box k and k + 1 (and the ground's under box 1) carry
 * (5 - k) m g together, k = 0 for the ground, on the Lemke trajectory's last step. */
static void test_stack_carries_the_weight_above(void **state)
{
    (void)state;
    rs_scenario sc;
    const char *sets[] = {"run.steps=200"};
    load(SCEN "bodies_stack.ini", sets, 1, &sc);
    rs_compare_result r;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_LEMKE, NULL, NULL, &r), RS_OK);
    const rs_compare_step *last = &r.step[r.steps - 1];
    /* the step's contacts, from the state before it */
    const rs_model *m = sc.model;
    const rs_compare_step *before = &r.step[r.steps - 2];
    const rs_step_data d = {sc.params, before->lemke.state_next, last->input, sc.dt,
                            sc.variant, &sc.nlp, sc.scene, 1, NULL};
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(&d, &tmp);
    assert_non_null(s);
    assert_int_equal(last->lemke.ncontact, s->list.n);
    double carried[6] = {0}; /* by the contacts under box k (0: the ground's) */
    for (int i = 0; i < s->list.n; i++) {
        const rs_contact *c = &s->list.c[i];
        const int lower = c->b < 0 ? -1 : (c->a < c->b ? c->a : c->b);
        carried[lower + 1] += last->lemke.contact[2 * i] * fabs(c->n[1]);
    }
    const double mg = 9.81;
    for (int k = 0; k < 5; k++) {
        if (fabs(carried[k] - (5 - k) * mg) > 1e-9 * 5 * mg)
            print_error("under box %d: %.17g N, expected %g N\n", k + 1, carried[k], (5 - k) * mg);
        assert_close(carried[k], (5 - k) * mg, 1e-9 * 5 * mg, 0.0);
    }
    (void)m;
    bodies_step_release(tmp);
    rs_compare_free(&r);
    rs_scenario_release(&sc);
}

/* A heavy box (1e6 kg) resting on a light one (1 kg) on the ground. */
static const char heavy_scene[] = "halfplane 0 0, 0 1\n"
                                  "body low box w=0.4 h=0.2 m=1 z=0.1\n"
                                  "body top box w=0.4 h=0.2 m=1e6 z=0.3\n";

/* answer, the step from before_state with input: the contacts of the top box's face carry
 * m_top g together, the ground's (m_top + m_low) g; each box's total contact force is its
 * weight. */
static void expect_interface_loads(const rs_scenario *sc, const double *before_state,
                                   const double *input, const rs_step_result *answer)
{
    const rs_step_data d = {sc->params, before_state, input, sc->dt,
                            sc->variant, &sc->nlp, sc->scene, 1, NULL};
    bodies_step *tmp;
    const bodies_step *s = bodies_step_get(&d, &tmp);
    assert_non_null(s);
    assert_int_equal(answer->ncontact, s->list.n);
    double carried[2] = {0.0, 0.0}; /* the ground's, the top box's face's */
    for (int i = 0; i < s->list.n; i++)
        carried[s->list.c[i].b >= 0] += answer->contact[2 * i] * fabs(s->list.c[i].n[1]);
    const double g = 9.81, m_top = 1e6, m_low = 1.0;
    if (fabs(carried[1] - m_top * g) > 1e-9 * m_top * g ||
        fabs(carried[0] - (m_top + m_low) * g) > 1e-9 * m_top * g)
        print_error("carried %.17g N (face) and %.17g N (ground)\n", carried[1], carried[0]);
    assert_close(carried[1], m_top * g, 0.0, 1e-9);
    assert_close(carried[0], (m_top + m_low) * g, 0.0, 1e-9);
    /* each box's total contact force is its weight (the top's to 1e-9 of it, the light box's
     * as a difference of two forces of 1e7 N: to 1e-9 of those) */
    assert_close(answer->forces[BF_N + BF_Z], m_top * g, 0.0, 1e-9);
    assert_close(answer->forces[BF_Z], m_low * g, 1e-9 * m_top * g, 0.0);
    bodies_step_release(tmp);
}

/* The heavy box on the light one at a mass ratio of 1e6, where every Lemke answer was refused
 * by the complementarity check (its unit the light box's force m V / dt, 1e-6 of what each of
 * the light box's contacts carries; with friction 10 of 500 steps at 1e4, beside 9 breakdowns).
 * Frictionless and with friction (mu = 0.5), every step of the NLP, of Lemke from the NLP's
 * states (the shadow) and of Lemke's own trajectory is solved, and none is refused by the
 * physical certificate (with friction, over 500 steps, Lemke's paths of e and of the first other
 * covering vector ended in a breakdown on 2 steps; a later covering vector's solves them:
 * test_lemke's box-on-a-light-box test). */
static void test_heavy_body_on_a_light_one(void **state)
{
    (void)state;
    const char *const text[2] = {
        "[model]\nname = bodies\nmu = 0\n[run]\nsteps = 50\n",
        "[model]\nname = bodies\nmu = 0.5\n[run]\nsteps = 500\ndt = 1e-3\n"};
    for (int f = 0; f < 2; f++) {
        rs_scenario sc;
        rs_compare_result r;
        compare_text("heavy.ini", text[f], heavy_scene, &sc, &r);
        const failed_steps n = count_failed_steps(&r);
        if (n.nlp || n.shadow || n.lemke)
            print_error("mu = %s: failed steps: %d NLP, %d shadow, %d Lemke (%d refused by "
                        "the certificate)\n", f ? "0.5" : "0", n.nlp, n.shadow, n.lemke,
                        n.refused);
        /* Lemke's certificate: the shadow solves (from the NLP's states) and refuses nothing;
         * the NLP solves every step, with friction too, since its contacts' unit follows the
         * load they hold (33 of the 50 frictional steps failed in the light box's unit) */
        assert_int_equal(n.shadow, 0);
        assert_int_equal(n.refused, 0);
        assert_int_equal(n.nlp, 0);
        assert_int_equal(n.lemke, 0);
        const rs_compare_step *before = &r.step[r.steps - 2], *last = &r.step[r.steps - 1];
        /* from the NLP's state at rest */
        expect_interface_loads(&sc, before->nlp.state_next, last->input, &last->nlp);
        expect_interface_loads(&sc, before->nlp.state_next, last->input, &last->shadow);
        if (last->lemke.ok && before->lemke.ok)
            expect_interface_loads(&sc, before->lemke.state_next, last->input, &last->lemke);
        rs_compare_free(&r);
        rs_scenario_release(&sc);
    }
}

/* A heavy disc (1e6 kg) on a light box (1 kg) on the ground, with friction, at dt = 1e-2 s. The
 * box's two ground contacts each hold half the disc's weight up, 5e5 times the box's own: in the
 * box's force unit (the lighter body's, m V / dt) IPOPT found all but the first few of these
 * steps infeasible (496 of 500). In the unit of the load they hold (bodies_step.c: find_step)
 * every NLP step is solved, and the loads are the weights to 1e-9. */
static const char heavy_disc_scene[] = "halfplane 0 0, 0 1\n"
                                       "body low box w=0.4 h=0.2 m=1 z=0.1\n"
                                       "body top disc r=0.1 m=1e6 z=0.3\n";

/* And without friction, dt = 1e-3 s, 500 steps. The box's velocity row sums the disc's contact
 * force and the ground's, each 5e5 to 1e6 times the box's weight: in natural units terms of 1e6
 * that cancel, rounding to 2.3e-10 against IPOPT's tol of 1e-10. IPOPT then stops on a search
 * direction too small to move the point (warm, after 6 iterations, its objective and dual
 * residual converged); that answer was a failure (other_failure), and the cold and homotopy
 * paths after it ended likewise or worse (complementarity 1.5e-2): 1 to 7 of 500 steps failed
 * under four BLAS kernels. Now such a step's status is tiny_step, and it is an
 * answer when its recomputed certificate passes. Both runs are checked from their outputs:
 * every step solved both ways, none refused by a certificate, and the loads the weights to 1e-9
 * at every tiny step and over the last 10 steps (the shadow's too). */
static void test_heavy_disc_on_a_light_box(void **state)
{
    (void)state;
    const char *const text[2] = {
        "[model]\nname = bodies\nmu = 0.5\n[run]\nsteps = 100\ndt = 1e-2\n",
        "[model]\nname = bodies\nmu = 0\n[run]\nsteps = 500\ndt = 1e-3\n"};
    for (int f = 0; f < 2; f++) {
        rs_scenario sc;
        rs_compare_result r;
        compare_text("heavy_disc.ini", text[f], heavy_disc_scene, &sc, &r);
        const failed_steps n = count_failed_steps(&r);
        if (n.nlp || n.shadow || n.lemke || n.refused)
            print_error("mu = %s: failed steps: %d NLP, %d shadow, %d Lemke (%d refused by the "
                        "certificate)\n", f ? "0" : "0.5", n.nlp, n.shadow, n.lemke, n.refused);
        assert_int_equal(n.nlp, 0);
        assert_int_equal(n.shadow, 0);
        assert_int_equal(n.lemke, 0);
        assert_int_equal(n.refused, 0);
        for (int k = 1; k < r.steps; k++) {
            const rs_step_result *before = &r.step[k - 1].nlp;
            const int last = k >= r.steps - 10;
            if (r.step[k].nlp.status == RS_NLP_TINY_STEP || last)
                expect_interface_loads(&sc, before->state_next, r.step[k].input, &r.step[k].nlp);
            if (last)
                expect_interface_loads(&sc, before->state_next, r.step[k].input,
                                       &r.step[k].shadow);
        }
        rs_compare_free(&r);
        rs_scenario_release(&sc);
    }
}

/* The seesaw (bodies_seesaw.ini) at the default tol: a plank at rest on a triangle's apex and
 * the ground while the disc that tipped it rolls away at 0.79 m/s. Its contacts were posed in
 * the scene's units, the disc's V: there the plank's cone slack came to 3.4e-3 of its force unit,
 * IPOPT's answer slipped at tol / 3.4e-3 = 3e-8 V and every later step kept it (2.4e-8 m/s, 4.8e-8
 * m by the end). In their own units (bodies_step.c: find_step) it rests. Bounds: its speed
 * below tol in its own unit, tol g dt (2e-12 m/s; measured 3.7e-15 to 1.9e-14 under four BLAS
 * kernels), and it does not move by more than that speed over the window (1e-12 m) from 1 s to
 * the end; every resting step takes the cheap path (the previous answer accepted again). */
static void test_seesaw_plank_rests_at_the_default_tol(void **state)
{
    (void)state;
    const char *sets[] = {"nlp.cert_tol=1e-6"}; /* (the scenario's 1e-10 aside: the defaults) */
    rs_scenario sc;
    load(SCEN "bodies_seesaw.ini", sets, 1, &sc);
    assert_true(sc.nlp.tol == 1e-10);
    rs_compare_result r;
    assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r), RS_OK);
    const double g = sc.params[BP_G], dt = sc.dt, R = sc.scene->bodies[0].extent;
    const int from = (int)(1.0 / dt);
    double vmax = 0.0;
    int cheap = 0;
    for (int k = from; k < r.steps; k++) {
        const rs_step_result *st = &r.step[k].nlp;
        assert_true(st->ok);
        const double *p = st->state_next; /* the plank: body 0 */
        vmax = fmax(vmax, hypot(p[BS_XD], p[BS_ZD]) + fabs(p[BS_THD]) * R);
        cheap += st->path == RS_PATH_START_PREVIOUS;
    }
    const double *a = r.step[from].nlp.state_next, *b = r.step[r.steps - 1].nlp.state_next;
    const double moved = hypot(b[BS_X] - a[BS_X], b[BS_Z] - a[BS_Z]) + fabs(b[BS_TH] - a[BS_TH]) * R;
    print_message("seesaw from 1 s: plank speed %.3g m/s, moved %.3g m, %d of %d steps cheap\n",
                  vmax, moved, cheap, r.steps - from);
    assert_true(vmax <= sc.nlp.tol * g * dt);
    assert_true(moved <= 1e-12);
    assert_int_equal(cheap, r.steps - from);
    rs_compare_free(&r);
    rs_scenario_release(&sc);
}

/* The stack (bodies_stack.ini) at dt = 1e-6 s and 1e-12 s, the smallest a scenario takes: every
 * step failed both ways (its positions round by 2.8e-17 m, 2.8e-6 of the step's length L = g dt^2
 * at 1e-6 s, and the certificate judged their update in L; at 1e-12 s, besides, the gaps'
 * rounding, turned into speeds by the step's g / dt, moved the boxes). Now every step is solved
 * by both backends, each box's contact force is its weight, and nothing moves. */
static void test_stack_at_small_time_steps(void **state)
{
    (void)state;
    const char *const dts[] = {"run.dt=1e-6", "run.dt=1e-12"};
    for (int k = 0; k < 2; k++) {
        rs_scenario sc;
        const char *sets[] = {dts[k], "run.steps=50"};
        load(SCEN "bodies_stack.ini", sets, 2, &sc);
        rs_compare_result r;
        assert_int_equal(rs_compare_run(&sc, RS_RUN_COMPARE, NULL, NULL, &r), RS_OK);
        const failed_steps n = count_failed_steps(&r);
        const int failed = n.nlp + n.shadow + n.lemke;
        if (failed)
            print_error("%s: %d failed solves of %d\n", dts[k], failed, 3 * r.steps);
        assert_int_equal(failed, 0);
        const rs_step_result *ends[3] = {&r.step[r.steps - 1].nlp, &r.step[r.steps - 1].shadow,
                                         &r.step[r.steps - 1].lemke};
        for (int e = 0; e < 3; e++)
            for (int b = 0; b < 5; b++) {
                assert_close(ends[e]->forces[BF_N * b + BF_Z], 9.81, 1e-8, 0.0);
                assert_close(ends[e]->state_next[BS_N * b + BS_Z], 0.1 + 0.2 * b, 1e-15, 0.0);
                assert_close(ends[e]->state_next[BS_N * b + BS_X], 0.0, 1e-15, 0.0);
            }
        rs_compare_free(&r);
        rs_scenario_release(&sc);
    }
}

/* Lemke trajectories of a and b agree column by column (b's columns named by prefix + a's
 * name, a's forces compared with b's total contact force) to rtol of each column's largest
 * value over the run. */
static void expect_same_trajectory(const char *a_path, const char *const *a_sets, int na,
                                   const char *b_path, const char *body, double rtol)
{
    rs_scenario A, B;
    load(a_path, a_sets, na, &A);
    load(b_path, NULL, 0, &B);
    rs_compare_result ra, rb;
    assert_int_equal(rs_compare_run(&A, RS_RUN_LEMKE, NULL, NULL, &ra), RS_OK);
    assert_int_equal(rs_compare_run(&B, RS_RUN_LEMKE, NULL, NULL, &rb), RS_OK);
    assert_int_equal(ra.steps, rb.steps);
    assert_int_equal(ra.lemke.failed_steps + rb.lemke.failed_steps, 0);
    static const char *const cols[] = {"x_m", "z_m", "xd_mps", "zd_mps", "fx_N", "fz_N"};
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
        int ia = -1, ib = -1;
        char name[80];
        snprintf(name, sizeof name, "%s.%s", body, cols[c]);
        for (int k = 0; k < ra.ncol; k++)
            ia = strcmp(ra.col_names[k], cols[c]) == 0 ? k : ia;
        for (int k = 0; k < rb.ncol; k++)
            ib = strcmp(rb.col_names[k], name) == 0 ? k : ib;
        assert_true(ia >= 0 && ib >= 0);
        double scale = 0.0, worst = 0.0;
        for (int k = 0; k < ra.steps; k++)
            scale = fmax(scale, fabs(rs_step_column(A.model, &ra.step[k].lemke, ia)));
        for (int k = 0; k < ra.steps; k++)
            worst = fmax(worst, fabs(rs_step_column(A.model, &ra.step[k].lemke, ia) -
                                     rs_step_column(B.model, &rb.step[k].lemke, ib)));
        if (!(worst <= rtol * fmax(scale, 1e-300)))
            print_error("%s: %s differs by %.3g (scale %.3g)\n", b_path, cols[c], worst, scale);
        assert_true(worst <= rtol * fmax(scale, 1e-300));
    }
    rs_compare_free(&ra);
    rs_compare_free(&rb);
    rs_scenario_release(&A);
    rs_scenario_release(&B);
}

static void test_reproduces_point2d_and_disc_polygons(void **state)
{
    (void)state;
    expect_same_trajectory(SCEN "point2d_friction.ini", NULL, 0, SCEN "bodies_point2d.ini",
                           "mass", 1e-9);
    const char *ramp[] = {"model.formulation=stewart_trinkle", "model.r=0.05", "initial.x=0.025",
                          "initial.z=0.043301270189221939"};
    expect_same_trajectory(SCEN "polygon_ramp_slide.ini", ramp, 4, SCEN "bodies_disc_ramp_slide.ini",
                           "disc", 1e-9);
    expect_same_trajectory(SCEN "polygon_ramp_stick.ini", ramp, 4, SCEN "bodies_disc_ramp_stick.ini",
                           "disc", 1e-9);
    const char *valley[] = {"model.formulation=stewart_trinkle", "model.r=0.05"};
    expect_same_trajectory(SCEN "polygon_valley.ini", valley, 2, SCEN "bodies_disc_valley.ini",
                           "disc", 1e-9);
}

/* The NLP of variant v at a random point of the stack's first step: its Jacobian and the
 * Hessian of a random combination of its constraints against central differences. */
static void check_nlp(int variant)
{
    rs_scenario sc;
    char set[40];
    snprintf(set, sizeof set, "model.variant=%s", variant ? "post" : "pairs");
    const char *sets[] = {set};
    load(SCEN "bodies_stack.ini", sets, 1, &sc);
    const rs_model *m = sc.model;
    double u[15] = {0};
    const rs_step_data d = {sc.params, sc.initial, u, sc.dt, sc.variant, &sc.nlp, sc.scene, 0,
                            NULL};
    rs_nlp_problem p;
    m->nlp_describe(&p, sc.variant);
    p.ctx = (void *)&d;
    int n, mm, nj, nh;
    unsigned long long key;
    m->nlp_size(&d, &n, &mm);
    m->nlp_layout(&d, &nj, &nh, &key);
    assert_true(n > 15 && mm > 15 && nj > 0 && nh > 0);
    double *x = malloc(sizeof(double) * (size_t)(3 * n + 3 * mm + 2 * nj + nh));
    double *g0 = x + n, *g1 = g0 + mm, *lam = g1 + mm, *J = lam + mm, *J1 = J + nj, *H = J1 + nj;
    double *col = H + nh, *col2 = col + n;
    int *idx = malloc(sizeof(int) * (size_t)(2 * nj + 2 * nh));
    int *jr = idx, *jc = jr + nj, *hr = jc + nj, *hc = hr + nh;
    rs_rng rng;
    rs_rng_seed(&rng, 11);
    for (int j = 0; j < n; j++)
        x[j] = rs_rng_range(&rng, 0.1, 1.0);
    for (int i = 0; i < mm; i++)
        lam[i] = rs_rng_range(&rng, -1.0, 1.0);
    p.structure(p.ctx, jr, jc, hr, hc);
    p.jac_values(p.ctx, x, J);
    p.hess_values(p.ctx, x, 0.0, lam, H);
    for (int e = 0; e < nh; e++)
        assert_true(hr[e] >= hc[e]); /* the lower triangle */
    double worst_j = 0.0, worst_h = 0.0;
    const double h = 1e-6;
    for (int j = 0; j < n; j++) {
        const double s = x[j];
        x[j] = s + h;
        p.eval_g(p.ctx, x, g1);
        p.jac_values(p.ctx, x, J1);
        x[j] = s - h;
        p.eval_g(p.ctx, x, g0);
        memset(col, 0, sizeof(double) * (size_t)n);
        for (int e = 0; e < nj; e++) /* (J(x + h) - J(x - h))^T lam / 2h, its column j */
            col[jc[e]] += lam[jr[e]] * J1[e];
        p.jac_values(p.ctx, x, J1);
        for (int e = 0; e < nj; e++)
            col[jc[e]] -= lam[jr[e]] * J1[e];
        x[j] = s;
        for (int e = 0; e < nj; e++)
            if (jc[e] == j)
                worst_j = fmax(worst_j, fabs(J[e] - (g1[jr[e]] - g0[jr[e]]) / (2.0 * h)));
        memset(col2, 0, sizeof(double) * (size_t)n);
        for (int e = 0; e < nh; e++) { /* the Hessian's column j (both triangles) */
            if (hc[e] == j)
                col2[hr[e]] += H[e];
            if (hr[e] == j && hc[e] != j)
                col2[hc[e]] += H[e];
        }
        for (int i = 0; i < n; i++)
            worst_h = fmax(worst_h, fabs(col[i] / (2.0 * h) - col2[i]));
    }
    print_message("%s NLP (n = %d, %d + %d nonzeros): Jacobian %.2g, Hessian %.2g off\n",
                  set, n, nj, nh, worst_j, worst_h);
    assert_true(worst_j <= 1e-8);
    assert_true(worst_h <= 1e-8);
    free(idx);
    free(x);
    rs_scenario_release(&sc);
}

static void test_nlp_derivatives(void **state)
{
    (void)state;
    check_nlp(BODIES_PAIRS);
    check_nlp(BODIES_POST);
}

/* ---- step derivatives (bodies_tangent.c) ---------------------------------------------------- */

/* (The scene: every_contact_scene.h.) */

/* The bodies' poses moved at random within a few millimetres and a few hundredths of a radian,
 * their velocities and inputs random; every parameter moved too. */
static void draw_bodies_data(rs_rng *rng, const rs_scene *s, double *params, double *state,
                             double *input, double *dt)
{
    const int nb = s->nbodies;
    params[BP_G] = rs_rng_range(rng, 5.0, 15.0);
    params[BP_MU] = rs_rng_range(rng, 0.1, 0.9);
    params[BP_REACH] = 0.02; /* every contact of the scene within the draws' moves */
    for (int b = 0; b < nb; b++) {
        const rs_body *bd = &s->bodies[b];
        params[BP_MASS0 + b] = bd->mass * rs_rng_range(rng, 0.5, 2.0);
        double *x = state + BS_N * b;
        x[BS_X] = bd->initial[0] + rs_rng_range(rng, -0.003, 0.003);
        x[BS_Z] = bd->initial[1] + rs_rng_range(rng, -0.003, 0.003);
        x[BS_TH] = bd->initial[2] + rs_rng_range(rng, -0.03, 0.03);
        for (int k = BS_XD; k <= BS_THD; k++)
            x[k] = rs_rng_range(rng, -0.5, 0.5);
        for (int k = 0; k < BU_N; k++)
            input[BU_N * b + k] = rs_rng_range(rng, -3.0, 3.0);
    }
    *dt = rs_rng_range(rng, 1e-3, 1e-2);
}

/* a + s t for n entries, into out. */
static void along(int n, const double *a, const double *t, double s, double *out)
{
    for (int i = 0; i < n; i++)
        out[i] = a[i] + s * t[i];
}

/* The largest |a - b| over n entries, and the largest |a|, |b|. */
static double worst_diff(int n, const double *a, const double *b, double *scale)
{
    double w = 0.0;
    for (int i = 0; i < n; i++) {
        w = fmax(w, fabs(a[i] - b[i]));
        *scale = fmax(*scale, fmax(fabs(a[i]), fabs(b[i])));
    }
    return w;
}

/*
 * The bodies model's step derivatives against central differences of lcp_build and lcp_recover
 * (the contact set held fixed: a draw whose set changes within the difference step is skipped,
 * and counted), at 60 random step data of every_contact_scene, along random directions in every
 * parameter, state, input and dt at once. The complex evaluation at the data itself must give
 * lcp_build's (M, q) to rounding (1e-13 of the entries' scale): it is the same physics written
 * twice. Difference step h = 1e-5 along directions of the data's size (the gaps over dt in q
 * carry the positions' rounding over dt: the difference's error is rounding-bound, 2e-9 of the
 * entries' scale at this h, 2e-8 at 1e-6); accepted within 1e-7. Every contact kind must have
 * been met.
 */
/* A scene's friction line is a parameter, model.friction.A.B, named as the line names the pair
 * (friction b a: friction.b.a, though a comes first in the scene), its default the line's mu. */
static void test_friction_lines_are_parameters(void **state)
{
    (void)state;
    rs_scene s;
    scene_of("halfplane 0 0, 0 1\nbody a disc r=0.1 m=1 z=0.1\nbody b disc r=0.1 m=1 z=0.3\n"
             "friction b a 0.3\nfriction a static 0.4\n",
             &s);
    const rs_model *m = rs_model_find("bodies");
    rs_model *inst = NULL;
    rs_error_detail d;
    assert_int_equal(m->instantiate(m, &s, &inst, &d), RS_OK);
    assert_int_equal(inst->nparams, BP_MASS0 + 2 + 2);
    assert_string_equal(inst->params[BP_MASS0 + 2].name, "friction.b.a");
    assert_true(inst->params[BP_MASS0 + 2].value == 0.3);
    assert_string_equal(inst->params[BP_MASS0 + 3].name, "friction.a.static");
    assert_true(inst->params[BP_MASS0 + 3].value == 0.4);
    assert_int_equal(bodies_mu_param(&s, 0, 1), BP_MASS0 + 2); /* either order of the pair */
    assert_int_equal(bodies_mu_param(&s, 1, 0), BP_MASS0 + 2);
    assert_int_equal(bodies_mu_param(&s, 0, -1), BP_MASS0 + 3);
    assert_int_equal(bodies_mu_param(&s, 1, -1), BP_MU); /* no line: model.mu */
    inst->release(inst);
    rs_scene_free(&s);
}

static void test_step_tangents(void **state)
{
    (void)state;
    rs_scene s;
    scene_of(every_contact_scene, &s);
    const rs_model *m = rs_model_find("bodies");
    assert_non_null(m);
    assert_non_null(m->lcp_tangent);
    assert_non_null(m->lcp_recover_tangent);
    const int nb = s.nbodies, np = bodies_nparams(&s), nx = BS_N * nb, nu = BU_N * nb,
              nf = BF_N * nb;
    const int nall = 2 * (np + nx + nu);
    double *buf = malloc(sizeof(double) * (size_t)(4 * nall + 8 * (nx + nf)));
    double *params = buf, *x = params + np, *u = x + nx;
    double *tp = buf + nall / 2, *tx = tp + np, *tu = tx + nx;
    double *pp = buf + nall, *xp = pp + np, *up = xp + nx;
    double *pm = pp + nall / 2, *xm = pm + np, *um = xm + nx;
    double *rec = buf + 2 * nall; /* recovery: analytic (state, forces), plus, minus */
    double *dsn = rec, *dfo = dsn + nx, *snp = dfo + nf, *fop = snp + nx, *snm = fop + nf,
           *fom = snm + nx;
    rs_rng rng;
    rs_rng_seed(&rng, 2411);
    const double h = 1e-5;
    int kinds[RS_CONTACT_FACE_CLIP + 1] = {0}, ref_b[2] = {0}, clips[3] = {0};
    int checked = 0, skipped = 0;
    double worst_same = 0.0, worst_M = 0.0, worst_rec = 0.0;
    for (int draw = 0; draw < 60; draw++) {
        double dt, tdt;
        draw_bodies_data(&rng, &s, params, x, u, &dt);
        for (int i = 0; i < np; i++)
            tp[i] = i == BP_REACH ? 0.0 : rs_rng_range(&rng, -1.0, 1.0) * fabs(params[i]);
        for (int i = 0; i < nx; i++)
            tx[i] = rs_rng_range(&rng, -1.0, 1.0) * (i % BS_N == BS_TH ? 0.1 : 0.01);
        for (int i = 0; i < nu; i++)
            tu[i] = rs_rng_range(&rng, -1.0, 1.0);
        tdt = rs_rng_range(&rng, -1.0, 1.0) * dt;
        const rs_step_data d = {params, x, u, dt, 0, NULL, &s, 1, NULL};
        rs_step_data dp = d, dm = d;
        along(np, params, tp, h, pp);
        along(nx, x, tx, h, xp);
        along(nu, u, tu, h, up);
        along(np, params, tp, -h, pm);
        along(nx, x, tx, -h, xm);
        along(nu, u, tu, -h, um);
        dp.params = pp, dp.state = xp, dp.input = up, dp.dt = dt + h * tdt;
        dm.params = pm, dm.state = xm, dm.input = um, dm.dt = dt - h * tdt;
        unsigned long long key, keyp, keym;
        const int n = m->lcp_size(&d, &key);
        assert_true(n > 0);
        if (m->lcp_size(&dp, &keyp) != n || m->lcp_size(&dm, &keym) != n || keyp != key ||
            keym != key) {
            skipped++;
            continue;
        }
        bodies_step *tmp;
        const bodies_step *st = bodies_step_get(&d, &tmp);
        assert_non_null(st);
        for (int i = 0; i < st->list.n; i++) {
            const rs_contact *c = &st->list.c[i];
            kinds[c->kind]++;
            if (c->kind == RS_CONTACT_FACE_CLIP) {
                ref_b[c->ref_b]++;
                clips[c->clip]++;
            }
        }
        bodies_step_release(tmp);
        const size_t nn = (size_t)n * (size_t)n;
        double *M = malloc(sizeof(double) * (6 * nn + 6 * (size_t)n));
        double *q = M + nn, *Mc = q + n, *qc = Mc + nn, *dM = qc + n, *dq = dM + nn;
        double *Mp = dq + n, *qp = Mp + nn, *Mm = qp + n, *qm = Mm + nn;
        double *z = qm + n, *dz = z + n;
        m->lcp_build(&d, M, q);
        assert_true(bodies_complex_build(&d, Mc, qc));
        double scale = 0.0;
        worst_diff((int)nn, M, M, &scale);
        worst_diff(n, q, q, &scale);
        worst_same = fmax(worst_same, fmax(worst_diff((int)nn, M, Mc, &scale),
                                           worst_diff(n, q, qc, &scale)) / scale);
        const rs_step_tangent t = {tp, tx, tu, tdt};
        m->lcp_tangent(&d, &t, dM, dq);
        m->lcp_build(&dp, Mp, qp);
        m->lcp_build(&dm, Mm, qm);
        double err = 0.0;
        for (size_t k = 0; k < nn; k++)
            err = fmax(err, fabs(dM[k] - (Mp[k] - Mm[k]) / (2.0 * h)));
        for (int k = 0; k < n; k++)
            err = fmax(err, fabs(dq[k] - (qp[k] - qm[k]) / (2.0 * h)));
        worst_M = fmax(worst_M, err / scale);
        /* the recovery at a random z along a random dz */
        for (int k = 0; k < n; k++) {
            z[k] = rs_rng_range(&rng, 0.0, 10.0);
            dz[k] = rs_rng_range(&rng, -10.0, 10.0);
        }
        m->lcp_recover_tangent(&d, &t, z, NULL, dz, NULL, dsn, dfo);
        along(n, z, dz, h, qp);
        m->lcp_recover(&dp, qp, NULL, snp, fop, NULL);
        along(n, z, dz, -h, qm);
        m->lcp_recover(&dm, qm, NULL, snm, fom, NULL);
        double rscale = 0.0, rerr = 0.0;
        for (int k = 0; k < nx + nf; k++) { /* (state, forces) are consecutive in each block */
            const double fd = (snp[k] - snm[k]) / (2.0 * h);
            rerr = fmax(rerr, fabs(dsn[k] - fd));
            rscale = fmax(rscale, fabs(fd));
        }
        worst_rec = fmax(worst_rec, rerr / rscale);
        free(M);
        checked++;
    }
    print_message("bodies tangents: %d draws checked (%d skipped: the contact set changed), "
                  "complex (M, q) %.2g, dM dq %.2g, recovery %.2g off (relative)\n",
                  checked, skipped, worst_same, worst_M, worst_rec);
    print_message("contact kinds met: disc-disc %d, disc-half-plane %d, vertex-half-plane %d, "
                  "disc-face %d, disc-vertex %d, face-clip %d (reference b %d, a %d; clipped "
                  "%d %d %d)\n",
                  kinds[0], kinds[1], kinds[2], kinds[3], kinds[4], kinds[5], ref_b[1], ref_b[0],
                  clips[0], clips[1], clips[2]);
    assert_true(checked >= 50);
    for (int k = 0; k <= RS_CONTACT_FACE_CLIP; k++)
        assert_true(kinds[k] > 0);
    assert_true(ref_b[0] > 0 && ref_b[1] > 0 && clips[0] > 0 && clips[1] + clips[2] > 0);
    assert_true(worst_same <= 1e-13);
    assert_true(worst_M <= 1e-7);
    assert_true(worst_rec <= 1e-7);
    free(buf);
    rs_scene_free(&s);
}

/* The scenario TMP/bad.ini over the scene text: refused (RS_ERR_PARSE) with every fragment of
 * expect in the message. */
static void expect_refused(const char *scene, const char *set, const char *const *expect)
{
    write_file(RS_TEST_TMPDIR "/bad.scene", scene);
    write_file(RS_TEST_TMPDIR "/bad.ini",
               "[model]\nname = bodies\nscene = bad.scene\n[run]\nsteps = 10\n[expect]\n"
               "nlp_failed_steps_max = 0\n");
    rs_scenario sc;
    rs_error_detail d;
    const char *sets[] = {set};
    const rs_error err = rs_scenario_load(RS_TEST_TMPDIR "/bad.ini", sets, set ? 1 : 0, &sc, &d);
    if (err == RS_OK)
        rs_scenario_release(&sc);
    assert_int_equal(err, RS_ERR_PARSE);
    for (int i = 0; expect[i]; i++)
        if (!strstr(d.message, expect[i]))
            fail_msg("'%s' not in: %s", expect[i], d.message);
}

#define REFUSED(scene, set, ...) expect_refused(scene, set, (const char *const[]){__VA_ARGS__, NULL})

/* A polygon's moment of inertia does not depend on where its vertices are written: a unit
 * square's is 1/6 per kg (a^2 / 6) with its corner at the origin and at 1e6 and 1e11 m (the
 * parallel-axis difference about the origin made it -21.8 at 1e6), to 1e-15 relative (these
 * coordinates are exact doubles, and the moment is measured exact at each). Its centroid
 * likewise. */
static void test_polygon_inertia_anywhere(void **state)
{
    (void)state;
    const double offsets[3] = {0.0, 1e6, 1e11};
    for (int k = 0; k < 3; k++) {
        const double o = offsets[k];
        const double xy[8] = {o, 0, o + 1, 0, o + 1, 1, o, 1};
        rs_body b;
        memset(&b, 0, sizeof b);
        assert_int_equal(rs_body_set_polygon(&b, 4, xy, NULL), RS_OK);
        assert_close(b.inertia_per_kg, 1.0 / 6.0, 0.0, 1e-15);
        assert_close(b.shift[0], -(o + 0.5), 0.0, 1e-15);
        assert_close(b.shift[1], -0.5, 0.0, 1e-15);
        rs_body_free(&b);
    }
}

/* Each bad input is refused with the file, the line and what to change. */
static void test_bad_input(void **state)
{
    (void)state;
    const char *ground = "halfplane 0 0, 0 1\n";
    char text[400];
    snprintf(text, sizeof text, "%sbody a box w=0.4 h=0.2 z=0.1\nbody b box w=0.4 h=0.2 x=0.3 "
             "z=0.1\n", ground);
    REFUSED(text, NULL, "bad.ini", "bodies a and b (bad.scene lines 2 and 3)", "overlap by 0.1 m",
            "move them apart");
    snprintf(text, sizeof text, "%sbody a box w=0.4 h=0.2 z=0.05\n", ground);
    REFUSED(text, NULL, "bad.ini", "body a (bad.scene line 2) is 0.05 m inside the obstacle of "
            "line 1", "move it out");
    /* moved there by the scenario: the key that moved it is named (it said "initial state and
     * input") */
    REFUSED("halfplane 0 0, 0 1\nbody a box w=0.4 h=0.2 z=0.5\n", "initial.a.z=0.05",
            "--set initial.a.z: body a (bad.scene line 2) is 0.05 m inside the obstacle");
    REFUSED("body a box w=0.4 h=0.2 m=0\n", NULL, "bad.scene:1",
            "m = 0 must be within [1e-9, 1e9] kg (as model.a.m)");
    /* the scene's range is the scenario key's: 1e-300 kg was taken here and refused there */
    REFUSED("body a box w=0.4 h=0.2 m=1e-300\n", NULL, "bad.scene:1",
            "m = 1e-300 must be within [1e-9, 1e9] kg");
    REFUSED("body a box w=-0.4 h=0.2\n", NULL, "bad.scene:1", "w = -0.4");
    REFUSED("body a polygon vertices 0 0, 1 0, 0.2 0.2, 0 1\n", NULL, "bad.scene:1", "not convex");
    REFUSED("body a polygon vertices 0 0, 0 1, 1 0\n", NULL, "bad.scene:1", "clockwise");
    REFUSED("body a disc r=0.1\nbody a disc r=0.2 x=1\n", NULL, "bad.scene:2",
            "the name 'a' is taken by the body of line 1");
    REFUSED("body a disc r=0.1 spin=3\n", NULL, "bad.scene:1", "unknown key 'spin'");
    REFUSED("body a disc r=nan\n", NULL, "bad.scene:1", "r = 'nan' is not finite");
    REFUSED("body a disc r=0.1 m=1e12\n", NULL, "bad.scene:1", "m = 1e+12 is beyond 1e+09");
    REFUSED("body a disc r=0.1\nfriction a ghost 0.3\n", NULL, "bad.scene:2",
            "no body named 'ghost'");
    /* a pair's friction given twice (in either order) is refused like any other repeat (the
     * last one won) */
    REFUSED("body a disc r=0.1\nbody b disc r=0.1 x=1\nfriction a b 0.3\nfriction b a 0.5\n", NULL,
            "bad.scene:4", "the pair b a has its friction on line 3 already");
    REFUSED("body a disc r=0.1\nfriction a static 0.3\nfriction a static 0.5\n", NULL,
            "bad.scene:3", "the pair a static has its friction on line 2 already");
    REFUSED("body a disc r=0.1\n", "model.ghost.m=1", "--set model.ghost.m", "unknown key",
            "a.m");
    REFUSED("body a disc r=0.1\n", "initial.ghost.x=1", "--set initial.ghost.x",
            "unknown state component");
    REFUSED("body a disc r=0.1\n", "model.a.m=-1", "--set model.a.m", "out of range");
    REFUSED("# nothing\n", NULL, "bad.scene", "no obstacle and no body");
    /* a NUL byte: the rest of the file was dropped unread (here a mass and an unknown key) */
    {
        static const char nul[] = "halfplane 0 0, 0 1\nbody a disc r=0.1 z=1\0 m=5 foo=bar\n";
        FILE *f = fopen(RS_TEST_TMPDIR "/nul.scene", "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(nul, 1, sizeof nul - 1, f), sizeof nul - 1);
        fclose(f);
        write_file(RS_TEST_TMPDIR "/nul.ini", "[model]\nname = bodies\nscene = nul.scene\n");
        rs_scenario sc;
        rs_error_detail d;
        assert_int_equal(rs_scenario_load(RS_TEST_TMPDIR "/nul.ini", NULL, 0, &sc, &d),
                         RS_ERR_PARSE);
        assert_non_null(strstr(d.message, "nul.ini:3: model.scene"));
        assert_non_null(strstr(d.message, "nul.scene:2: a NUL byte")); /* its line, not a byte */
        rs_scene scene;
        assert_int_equal(rs_scene_read(RS_TEST_TMPDIR "/nul.scene", &scene, &d), RS_ERR_PARSE);
        assert_non_null(strstr(d.message, "nul.scene:2: a NUL byte in the line"));
        rs_scene_free(&scene);
    }
    /* a moment of inertia that underflows to 0 (theta came out NaN) */
    REFUSED("halfplane 0 0, 0 1\nbody a disc r=1e-300 z=1\n", NULL,
            "body a (bad.scene line 2): its moment of inertia is 0 kg m^2");
}

/* A run compared both ways: no failed step (NLP, Lemke's shadow and its own trajectory), and
 * the last step's V at its floor without gravity, 1e-6 X / dt (X: the largest coordinate of a
 * body's centre plus its extent), when nothing moves. */
static void expect_rests_without_gravity(const char *path, const char *const *sets, int nsets,
                                         rs_compare_result *r, rs_scenario *sc)
{
    load(path, sets, nsets, sc);
    assert_int_equal(rs_compare_run(sc, RS_RUN_COMPARE, NULL, NULL, r), RS_OK);
    if (r->nlp.failed_steps + r->lemke.failed_steps + r->shadow_failed_steps > 0)
        print_error("%s: %d NLP, %d Lemke and %d shadow Lemke steps failed\n", path,
                    r->nlp.failed_steps, r->lemke.failed_steps, r->shadow_failed_steps);
    assert_int_equal(r->nlp.failed_steps, 0);
    assert_int_equal(r->lemke.failed_steps, 0);
    assert_int_equal(r->shadow_failed_steps, 0);
    const rs_step_result *end = &r->step[r->steps - 1].lemke;
    double X = 0.0;
    for (int b = 0; b < sc->scene->nbodies; b++)
        X = fmax(X, fmax(fabs(end->state_next[BS_N * b + BS_X]),
                         fabs(end->state_next[BS_N * b + BS_Z])) + sc->scene->bodies[b].extent);
    /* (the floor is taken from the step's start, the state before the last step: at rest the
     * same to rounding) */
    assert_close(end->scales.speed, 1e-6 * X / sc->dt, 0.0, 1e-9);
    assert_close(end->scales.length, 1e-6 * X, 0.0, 1e-9);
}

/* Without gravity (a top view: a table, planar pushing, billiards; or g = 0 set) bodies rest
 * with nothing moving, and every natural unit needs a floor that does not vanish with g: V was
 * g dt or the 1e-12 m/s of RS_STEP_SPEED_FLOOR, so that a resting contact's gap, the rounding
 * of the poses (1e-17 m, 1e-14 m/s over dt), was 1% of V and every resting step failed its
 * certificate; and a resting contact's q, rounding alone (rows of 1e-25 m/s beside 4e-11), broke
 * Lemke's path down. The stack at g = 0 (every NLP and Lemke step failed), a disc thrown down
 * onto the ground at g = 0 (it lands and rests: 199 of 400 NLP steps failed), and the table's
 * shot into its cushion (bodies_table_cushion.ini: 332 NLP and 2,106 Lemke steps), each passes
 * with the floor's units at rest; the table's contract (its closed form from momentum) holds. */
static void test_resting_contacts_without_gravity(void **state)
{
    (void)state;
    rs_scenario sc;
    rs_compare_result r;
    /* (RS_TEST_REDUCED, under the sanitizers and valgrind: the same paths on shorter runs, the
     * cushion's whole run left to its contract in relaxsim check) */
    const int reduced = rs_test_reduced();
    const char *stack[] = {"model.g=0", reduced ? "run.steps=40" : "run.steps=200"};
    expect_rests_without_gravity(SCEN "bodies_stack.ini", stack, 2, &r, &sc);
    for (int c = 0; c < r.ncol; c++) /* nothing moves, no force */
        if (strstr(r.col_names[c], "d_") || strstr(r.col_names[c], "_N"))
            assert_close(r.lemke.final[c], 0.0, 1e-12, 0.0);
    rs_compare_free(&r);
    rs_scenario_release(&sc);
    const char *disc[] = {"model.g=0", "initial.disc.xd=0", "initial.disc.z=0.3",
                          "initial.disc.zd=-1", reduced ? "run.steps=240" : "run.steps=400"};
    expect_rests_without_gravity(SCEN "bodies_disc_slip_roll.ini", disc, 5, &r, &sc);
    const rs_step_result *end = &r.step[r.steps - 1].lemke;
    assert_close(end->state_next[BS_Z], 0.1, 1e-9 * end->scales.length, 0.0);
    assert_close(end->state_next[BS_ZD], 0.0, 1e-9 * end->scales.speed, 0.0);
    rs_compare_free(&r);
    rs_scenario_release(&sc);
    if (reduced)
        return;
    expect_rests_without_gravity(SCEN "bodies_table_cushion.ini", NULL, 0, &r, &sc);
    assert_true(r.contract_passed);
    rs_compare_free(&r);
    rs_scenario_release(&sc);
}

/* A resting step takes its cheap path at any size: 24 boxes side by side (apart), 0, 1 and 2 nm
 * above the ground, land in the first step and rest. Their step NLP has 192 contact rows and more
 * than 400 variables, too many for the KKT test's dense least squares; IPOPT solves the first step
 * only: every later one passes the test from the previous answer, with its own multipliers or a
 * polished point's (the landing's next steps, whose previous answer misses them by about tol, with
 * that answer polished for them). At the end every box rests on the ground to the NLP's tol in
 * the step's natural units, as Lemke's does. */
static void test_resting_row_takes_the_cheap_path(void **state)
{
    (void)state;
    enum { NB = 24 };
    static char scene[NB * 64 + 32];
    int len = snprintf(scene, sizeof scene, "halfplane 0 0, 0 1\n");
    for (int i = 0; i < NB; i++)
        len += snprintf(scene + len, sizeof scene - (size_t)len,
                        "body b%d box w=0.1 h=0.1 m=1 x=%.2f z=%.12f\n", i, 0.15 * i,
                        0.05 + 1e-9 * (i % 3));
    static const char text[] = "[model]\nname = bodies\nscene = row.scene\nmu = 0.5\n"
                               "[run]\nsteps = 30\ndt = 2e-3\n";
    rs_scenario sc;
    rs_compare_result r;
    compare_text("row.ini", text, scene, &sc, &r);
    assert_int_equal(r.nlp.failed_steps, 0);
    assert_int_equal(r.lemke.failed_steps, 0);
    int polished = 0;
    for (int k = 0; k < r.steps; k++) {
        const rs_step_result *st = &r.step[k].nlp;
        assert_int_equal(st->lcp_size, 8 * NB); /* two corners a box, 4 rows a contact */
        if (k == 0) {
            assert_true(rs_nlp_path_is_ipopt(st->path));
            continue;
        }
        /* (the test's multipliers as given, or a polished point's; or the previous answer
         * polished for the step) */
        assert_true(st->path == RS_PATH_START_PREVIOUS || st->path == RS_PATH_START_POLISHED);
        assert_true(st->at_start);
        assert_int_equal(st->polished, st->path == RS_PATH_START_POLISHED);
        polished += st->path == RS_PATH_START_POLISHED;
        /* every step's certificate to the NLP's tol in natural units, not just cert_tol */
        assert_true(st->primal <= sc.nlp.tol && st->complementarity <= sc.nlp.tol);
    }
    assert_true(polished >= 1);
    const double tol = sc.nlp.tol;
    const rs_step_result *end = &r.step[r.steps - 1].nlp, *lem = &r.step[r.steps - 1].lemke;
    for (int b = 0; b < NB; b++) {
        const double *s = end->state_next + BS_N * b;
        assert_close(s[BS_Z], 0.05, tol * end->scales.length, 0.0);
        assert_close(s[BS_Z], lem->state_next[BS_N * b + BS_Z], tol * end->scales.length, 0.0);
        for (int k = BS_XD; k <= BS_ZD; k++)
            assert_true(fabs(s[k]) <= tol * end->scales.speed);
    }
    rs_compare_free(&r);
    rs_scenario_release(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contacts),
        cmocka_unit_test(test_a_seam_has_no_corner),
        cmocka_unit_test(test_a_step_too_large_is_refused_up_front),
        cmocka_unit_test(test_a_state_beyond_every_range_fails),
        cmocka_unit_test(test_certificate_columns),
        cmocka_unit_test(test_stack_carries_the_weight_above),
        cmocka_unit_test(test_heavy_body_on_a_light_one),
        cmocka_unit_test(test_heavy_disc_on_a_light_box),
        cmocka_unit_test(test_seesaw_plank_rests_at_the_default_tol),
        cmocka_unit_test(test_stack_at_small_time_steps),
        cmocka_unit_test(test_reproduces_point2d_and_disc_polygons),
        cmocka_unit_test(test_nlp_derivatives),
        cmocka_unit_test(test_step_tangents),
        cmocka_unit_test(test_friction_lines_are_parameters),
        cmocka_unit_test(test_polygon_inertia_anywhere),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_resting_contacts_without_gravity),
        cmocka_unit_test(test_resting_row_takes_the_cheap_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
