/*
 * test_bodies_scratch.c: the bodies engine's step is prepared once (dynamics/bodies.h,
 * bodies_step): once a run's step context has held a step, no callback of the model and no
 * evaluation of either NLP allocates memory, on that step or on a later step with no more
 * contacts (a step with more than any before grows the context once).
 *
 * This test links with the linker's --wrap for malloc, calloc and realloc (tests/unit/
 * CMakeLists.txt), which sends every call from the library's objects and this file through the
 * counters below; a count is taken only between counting(1) and counting(0). Nothing here is
 * timed.
 *
 * The scene has every kind of contact (every_contact_scene.h), so that each callback walks
 * every branch of the contact loops.
 */
#include "test_helpers.h"

#include <stdlib.h>
#include <string.h>

#include "dynamics/bodies.h"
#include "io/scene_file.h"
#include "models/registry.h"

#include "every_contact_scene.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);

static int counting_on;
static long allocations;

void *__wrap_malloc(size_t n)
{
    allocations += counting_on;
    return __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
    allocations += counting_on;
    return __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
    allocations += counting_on;
    return __real_realloc(p, n);
}

static void counting(int on)
{
    if (on)
        allocations = 0;
    counting_on = on;
}

/* The arrays one step's callbacks write, sized for the step of d (its LCP n, its NLP's). */
typedef struct outputs {
    double *M, *q, *z, *w, *dM, *dq, *dz, *dw, *sn, *forces, *contact, *dsn, *dforces;
    double *x, *lam, *g, *grad, *jac, *hess, *xl, *xu, *gl, *gu;
    int *jr, *jc, *hr, *hc;
    rs_contact_geometry *geo;
    rs_contact_mode *modes;
} outputs;

/* Every callback of the model on the step of d, both NLP variants' evaluations included; the
 * outputs' arrays (sized by the caller for this step) are o's. */
static void every_callback(const rs_model *m, rs_step_data *d, const rs_step_tangent *t,
                           outputs *o)
{
    rs_error_detail detail;
    assert_int_equal(m->check_step(d, &detail), RS_OK);
    assert_int_equal(m->check_reached(d, &detail), RS_OK);
    rs_step_scales sc;
    m->step_scales(d, &sc);
    unsigned long long key;
    const int n = m->lcp_size(d, &key);
    m->lcp_build(d, o->M, o->q);
    m->lcp_units(d, o->dz, o->dw);
    m->lcp_contact_free(d, o->z);
    for (int k = 0; k < n; k++)
        o->w[k] = o->q[k];
    m->lcp_recover(d, o->z, o->w, o->sn, o->forces, o->contact);
    m->contact_geometry(d, o->geo);
    assert_true(m->contact_count(d) > 0);
    double primal, comp;
    m->residuals(d, o->sn, o->forces, o->contact, &primal, &comp);
    const rs_mode_tols tols = {1e-9, 1e-9};
    m->modes(d, o->sn, o->forces, &tols, o->modes);
    m->lcp_tangent(d, t, o->dM, o->dq);
    for (int k = 0; k < n; k++)
        o->dz[k] = o->dw[k] = 1.0;
    m->lcp_recover_tangent(d, t, o->z, o->w, o->dz, o->dw, o->dsn, o->dforces);
    for (int variant = 0; variant < 2; variant++) {
        d->variant = variant;
        int nn, mm, nj, nh;
        m->nlp_size(d, &nn, &mm);
        m->nlp_layout(d, &nj, &nh, &key);
        rs_nlp_problem p;
        m->nlp_describe(&p, variant);
        p.ctx = d;
        m->nlp_start(d, RS_NLP_START_CURRENT, o->x);
        for (int k = 0; k < mm; k++)
            o->lam[k] = 0.5;
        p.bounds(p.ctx, o->xl, o->xu, o->gl, o->gu);
        (void)p.eval_f(p.ctx, o->x);
        p.eval_grad_f(p.ctx, o->x, o->grad);
        p.eval_g(p.ctx, o->x, o->g);
        p.structure(p.ctx, o->jr, o->jc, o->hr, o->hc);
        p.jac_values(p.ctx, o->x, o->jac);
        p.hess_values(p.ctx, o->x, 1.0, o->lam, o->hess);
        m->nlp_recover(d, o->x, o->sn, o->forces, o->contact);
    }
    d->variant = 0;
}

static void test_a_prepared_step_allocates_nothing(void **state)
{
    (void)state;
    rs_scene s;
    rs_error_detail detail;
    assert_int_equal(rs_scene_read_text("scratch.scene", every_contact_scene, &s, &detail),
                     RS_OK);
    const rs_model *tm = rs_model_find("bodies");
    rs_model *m = NULL;
    assert_int_equal(tm->instantiate(tm, &s, &m, &detail), RS_OK);
    const int nb = s.nbodies, np = m->nparams;
    double *params = calloc((size_t)(2 * np + 18 * nb), sizeof(double));
    double *x = params + np, *u = x + BS_N * nb, *tp = u + BU_N * nb, *tx = tp + np,
           *tu = tx + BS_N * nb;
    for (int i = 0; i < np; i++) {
        params[i] = m->params[i].value;
        tp[i] = 0.1 * params[i];
    }
    params[BP_MU] = 0.5; /* (friction: every contact has its four unknowns) */
    params[BP_REACH] = 0.02; /* every contact of the scene (the bodies rest, touching) */
    tp[BP_REACH] = 0.0;
    for (int b = 0; b < nb; b++)
        for (int k = 0; k < 3; k++) {
            x[BS_N * b + k] = s.bodies[b].initial[k];
            x[BS_N * b + 3 + k] = 0.01 * (k + 1);
            tx[BS_N * b + k] = 1e-3;
            tu[BU_N * b + k] = 1.0;
        }
    const rs_step_tangent t = {tp, tx, tu, 0.0};
    rs_nlp_settings nlp;
    rs_nlp_settings_default(&nlp);
    rs_step_data d = {params, x, u, 1e-3, 0, &nlp, &s, 1, m->cache_create(m, &s)};
    assert_non_null(d.cache);

    /* the outputs, for the first step's sizes (the later step has the same contacts) */
    unsigned long long key;
    const size_t n = (size_t)m->lcp_size(&d, &key);
    int nn = 0, mm = 0, nj = 0, nh = 0;
    for (int v = 0; v < 2; v++) {
        int a, b, c, e;
        d.variant = v;
        m->nlp_size(&d, &a, &b);
        m->nlp_layout(&d, &c, &e, &key);
        nn = a > nn ? a : nn, mm = b > mm ? b : mm, nj = c > nj ? c : nj, nh = e > nh ? e : nh;
    }
    d.variant = 0;
    const int nc = m->contact_count(&d);
    print_message("%d bodies, %d contacts, LCP n = %zu, NLP up to %d x %d (%d + %d nonzeros)\n",
                  nb, nc, n, nn, mm, nj, nh);
    assert_true(nc >= 10 && n > 0 && nn > 0);
    const size_t nd = 4 * n * n + 8 * n + 2 * 3 * 6 * (size_t)nb + 2 * (size_t)nc +
                      4 * (size_t)nn + 4 * (size_t)mm + (size_t)nj + (size_t)nh;
    double *buf = calloc(nd, sizeof(double));
    int *ibuf = calloc(2 * (size_t)nj + 2 * (size_t)nh, sizeof(int));
    outputs o = {0};
    o.geo = calloc((size_t)nc, sizeof *o.geo);
    o.modes = calloc((size_t)nb, sizeof *o.modes);
    assert_true(buf && ibuf && o.geo && o.modes);
    double *p = buf;
    double **arrays_n2[] = {&o.M, &o.dM};
    for (int k = 0; k < 2; k++, p += n * n)
        *arrays_n2[k] = p;
    double **arrays_n[] = {&o.q, &o.z, &o.w, &o.dq, &o.dz, &o.dw};
    for (int k = 0; k < 6; k++, p += n)
        *arrays_n[k] = p;
    o.sn = p, p += 6 * (size_t)nb;
    o.dsn = p, p += 6 * (size_t)nb;
    o.forces = p, p += 3 * (size_t)nb;
    o.dforces = p, p += 3 * (size_t)nb;
    o.contact = p, p += 2 * (size_t)nc;
    double **arrays_nn[] = {&o.x, &o.grad, &o.xl, &o.xu};
    for (int k = 0; k < 4; k++, p += nn)
        *arrays_nn[k] = p;
    double **arrays_mm[] = {&o.lam, &o.g, &o.gl, &o.gu};
    for (int k = 0; k < 4; k++, p += mm)
        *arrays_mm[k] = p;
    o.jac = p, p += nj;
    o.hess = p;
    o.jr = ibuf, o.jc = o.jr + nj, o.hr = o.jc + nj, o.hc = o.hr + nh;

    every_callback(m, &d, &t, &o); /* the step prepared, its scratch grown */
    counting(1);
    every_callback(m, &d, &t, &o);
    counting(0);
    print_message("the prepared step: %ld allocations\n", allocations);
    assert_int_equal(allocations, 0);

    /* the next step (another state: the stamp differs, the contacts are found again) */
    for (int b = 0; b < nb; b++)
        x[BS_N * b + BS_XD] += 1e-3;
    counting(1);
    every_callback(m, &d, &t, &o);
    counting(0);
    print_message("a new step with the same contacts: %ld allocations\n", allocations);
    assert_int_equal(allocations, 0);

    free(o.modes);
    free(o.geo);
    free(ibuf);
    free(buf);
    m->cache_free(d.cache);
    free(params);
    m->release(m);
    rs_scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_prepared_step_allocates_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
