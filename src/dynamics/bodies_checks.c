/*
 * bodies_checks.c: the bodies engine's checks of a state before a step: no body inside another
 * or an obstacle, every moment of inertia one a torque can turn, and a first step LCP the dense
 * solvers can hold.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/detail.h"
#include "dynamics/bodies.h"

/* No two bodies overlap, and none is inside an obstacle, by more than overlap times the step's
 * length L (at least 1e-9 m). */
static rs_error check_overlaps(const rs_step_data *d, double overlap, rs_error_detail *detail)
{
    const rs_scene *sc = d->scene;
    const int nb = sc->nbodies;
    bodies_step *tmp;
    bodies_step *s = bodies_step_get(d, &tmp); /* (its scales, and its scratch) */
    if (!s)
        return rs_detail_set(detail, RS_ERR_NOMEM, "out of memory");
    double *pose = s->work, *margin = pose + 3 * nb; /* (4 nb of bodies_work_size) */
    for (int b = 0; b < nb; b++) {
        pose[3 * b] = d->state[BS_N * b + BS_X];
        pose[3 * b + 1] = d->state[BS_N * b + BS_Z];
        pose[3 * b + 2] = d->state[BS_N * b + BS_TH];
        margin[b] = 0.0;
    }
    rs_contact_list *l = &s->reached; /* (grown to the largest check's) */
    rs_error err = RS_OK;
    if (rs_find_contacts(sc, pose, margin, 0.0, l) != RS_OK) {
        err = rs_detail_set(detail, RS_ERR_NOMEM, "out of memory");
    } else {
        const double tol = fmax(1e-9, overlap * s->scales.length);
        const rs_contact *worst = NULL;
        for (int i = 0; i < l->n; i++)
            if (l->c[i].gap < -tol && (!worst || l->c[i].gap < worst->gap))
                worst = &l->c[i];
        const char *base = strrchr(sc->name, '/') ? strrchr(sc->name, '/') + 1 : sc->name;
        if (worst && worst->b >= 0)
            err = rs_detail_set(detail, RS_ERR_BAD_ARG,
                                "bodies %s and %s (%.60s lines %d and %d) overlap by %.3g m at "
                                "the start: move them apart (the step's gap term would throw "
                                "them apart within one step)",
                                sc->bodies[worst->a].name, sc->bodies[worst->b].name, base,
                                sc->bodies[worst->a].line, sc->bodies[worst->b].line,
                                -worst->gap);
        else if (worst && sc->obstacles[worst->obstacle].line > 0)
            err = rs_detail_set(detail, RS_ERR_BAD_ARG,
                                "body %s (%.60s line %d) is %.3g m inside the obstacle of line %d "
                                "at the start: move it out (a half-plane's normal points into "
                                "free space)",
                                sc->bodies[worst->a].name, base, sc->bodies[worst->a].line,
                                -worst->gap, sc->obstacles[worst->obstacle].line);
        else if (worst)
            err = rs_detail_set(detail, RS_ERR_BAD_ARG,
                                "body %s is %.3g m inside obstacle %d at the start: move it out",
                                sc->bodies[worst->a].name, -worst->gap, worst->obstacle + 1);
    }
    bodies_step_release(tmp);
    return err;
}

/* Every free body's moment of inertia a positive normal number: a disc of r = 1e-300 has
 * m r^2 / 2 = 0, and a step would divide by it (theta came out NaN). */
static rs_error check_inertia(const rs_step_data *d, rs_error_detail *detail)
{
    const rs_scene *sc = d->scene;
    for (int b = 0; b < sc->nbodies; b++) {
        const rs_body *bd = &sc->bodies[b];
        const double m = d->params[BP_MASS0 + b], I = rs_body_inertia(bd, m);
        const char *base = strrchr(sc->name, '/') ? strrchr(sc->name, '/') + 1 : sc->name;
        if (!bd->locked && !(I >= DBL_MIN && I < INFINITY))
            return rs_detail_set(detail, RS_ERR_BAD_ARG,
                                 "body %s (%.60s line %d): its moment of inertia is %g kg m^2 "
                                 "(mass %g kg), which no torque can turn (give the body a size, "
                                 "or inertia = ...)",
                                 bd->name, base, bd->line, I, m);
    }
    return RS_OK;
}

/* The start: overlaps no larger than the rounding of a position (1e-3 L). */
/* A start whose first step LCP the dense solvers cannot hold (RS_DENSE_LCP_MAX_N rows) is
 * refused with its size and what to change: the rows grow with the contacts found, every pair
 * of bodies within one step's travel plus model.reach of each other. */
static rs_error check_size(const rs_step_data *d, rs_error_detail *detail)
{
    unsigned long long key;
    const int n = bodies_lcp_size(d, &key);
    if (n < 0)
        return rs_detail_set(detail, RS_ERR_NOMEM, "out of memory finding the first step's "
                                                   "contacts");
    if (n <= RS_DENSE_LCP_MAX_N)
        return RS_OK;
    const double gb = 3.0 * 8.0 * (double)n * (double)n / 1e9;
    return rs_detail_set(detail, RS_ERR_BAD_ARG,
                         "the first step's LCP has %d rows (its dense arrays %.3g GB), more than "
                         "the %d the dense Lemke solver takes: the %d bodies of %.200s have that "
                         "many contact candidates within one step's travel plus model.reach = "
                         "%g m; lower model.reach, or simulate fewer bodies",
                         n, gb, RS_DENSE_LCP_MAX_N, d->scene->nbodies, d->scene->name,
                         d->params[BP_REACH]);
}

rs_error bodies_check_step(const rs_step_data *d, rs_error_detail *detail)
{
    rs_error err = check_inertia(d, detail);
    if (err == RS_OK)
        err = check_overlaps(d, 1e-3, detail);
    return err != RS_OK ? err : check_size(d, detail);
}

/* A state a run reached: overlaps up to one step's length, the penetration a step leaves (a disc
 * on a box's edge, 1e-4 m in the shipped pile), which the next step's gap term throws apart. */
rs_error bodies_check_reached(const rs_step_data *d, rs_error_detail *detail)
{
    const rs_error err = check_inertia(d, detail);
    return err != RS_OK ? err : check_overlaps(d, 1.0, detail);
}
