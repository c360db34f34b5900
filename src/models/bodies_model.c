/*
 * bodies_model.c: the bodies engine (src/dynamics/, the physics in dynamics/bodies.h) as a model
 * of the registry: a scene's bodies named as its columns and parameters (instantiate), its
 * variants choosing the NLP, and the model's callbacks, each the engine's function for it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/detail.h"
#include "dynamics/bodies.h"

static void *cache_create(const rs_model *m, const rs_scene *scene)
{
    (void)m;
    return bodies_step_new(scene);
}

static void cache_free(void *cache)
{
    bodies_step_free(cache);
}

/* [input] unit = weight: the weight of 1 kg (each body has its own mass; an input in weights
 * is in multiples of g newtons). */
static double force_scale(const double *params)
{
    return fmax(params[BP_G], 1e-12);
}

typedef struct bodies_model {
    rs_model model; /* first: the instance is its rs_model */
    char *names;    /* every column and parameter name, NUL-separated */
    const char **state_names, **input_names, **force_names;
    rs_param_def *params;
    double *state_default;
    int *velocity_index;
} bodies_model;

static void release(rs_model *m)
{
    bodies_model *bm = (bodies_model *)m;
    if (!bm)
        return;
    free(bm->names);
    free(bm->state_names);
    free(bm->params);
    free(bm->state_default);
    free(bm->velocity_index);
    free(bm);
}

/* The variants name the NLP (bodies.h): the LCP is the same. */
static const char *const variants[] = {"pairs", "post"};

static void nlp_size(const rs_step_data *d, int *n, int *m)
{
    (d->variant == BODIES_POST ? bodies_post_size : bodies_pairs_size)(d, n, m);
}

static void nlp_layout(const rs_step_data *d, int *nnz_jac, int *nnz_hess,
                       unsigned long long *key)
{
    (d->variant == BODIES_POST ? bodies_post_layout : bodies_pairs_layout)(d, nnz_jac, nnz_hess,
                                                                            key);
}

static void nlp_describe(rs_nlp_problem *p, int variant)
{
    memset(p, 0, sizeof *p); /* every field the NLP does not set: none */
    if (variant == BODIES_POST)
        bodies_post_describe(p, variant);
    else
        bodies_pairs_describe(p);
}

static void nlp_start(const rs_step_data *d, rs_nlp_start which, double *x0)
{
    (d->variant == BODIES_POST ? bodies_post_start : bodies_pairs_start)(d, which, x0);
}

static void nlp_recover(const rs_step_data *d, const double *x, double *sn, double *forces,
                        double *contact)
{
    (d->variant == BODIES_POST ? bodies_post_recover : bodies_pairs_recover)(d, x, sn, forces,
                                                                              contact);
}

static rs_error instantiate(const rs_model *self, const rs_scene *scene, rs_model **out,
                            rs_error_detail *detail)
{
    *out = NULL;
    const int nb = scene->nbodies;
    if (nb < 1)
        return rs_detail_set(detail, RS_ERR_BAD_ARG,
                             "the scene has no body: declare them with 'body NAME disc|box|"
                             "polygon ...' lines (docs/bodies.md)");
    bodies_model *bm = calloc(1, sizeof *bm);
    const size_t ns = BS_N * (size_t)nb, nin = BU_N * (size_t)nb, nf = BF_N * (size_t)nb;
    const size_t np = (size_t)bodies_nparams(scene), nfr = (size_t)scene->nfriction;
    const size_t slot = RS_BODY_NAME_LEN + 16, pair_slot = 2 * RS_BODY_NAME_LEN + 16;
    if (bm) {
        bm->names = malloc((ns + nin + nf + np) * slot + nfr * pair_slot);
        bm->state_names = malloc(sizeof(char *) * (ns + nin + nf));
        bm->params = calloc(np, sizeof *bm->params);
        bm->state_default = malloc(sizeof(double) * ns);
        bm->velocity_index = malloc(sizeof(int) * 3 * (size_t)nb);
    }
    if (!bm || !bm->names || !bm->state_names || !bm->params || !bm->state_default ||
        !bm->velocity_index) {
        release((rs_model *)bm); /* (the model is bm's first member; NULL is accepted) */
        return rs_detail_set(detail, RS_ERR_NOMEM, "out of memory");
    }
    bm->model = *self;
    bm->input_names = bm->state_names + ns;
    bm->force_names = bm->input_names + nin;
    char *at = bm->names;
    static const char *const st[BS_N] = {"x_m", "z_m", "theta_rad", "xd_mps", "zd_mps",
                                         "thetad_radps"};
    static const char *const in[BU_N] = {"ux_N", "uz_N", "utau_Nm"};
    static const char *const fo[BF_N] = {"fx_N", "fz_N", "tau_Nm"};
    for (int b = 0; b < nb; b++) {
        const rs_body *bd = &scene->bodies[b];
        for (int k = 0; k < BS_N; k++, at += slot) {
            snprintf(at, slot, "%s.%s", bd->name, st[k]);
            bm->state_names[BS_N * b + k] = at;
            bm->state_default[BS_N * b + k] = bd->initial[k];
        }
        for (int k = 0; k < BU_N; k++, at += slot) {
            snprintf(at, slot, "%s.%s", bd->name, in[k]);
            bm->input_names[BU_N * b + k] = at;
        }
        for (int k = 0; k < BF_N; k++, at += slot) {
            snprintf(at, slot, "%s.%s", bd->name, fo[k]);
            bm->force_names[BF_N * b + k] = at;
        }
        for (int k = 0; k < 3; k++)
            bm->velocity_index[3 * b + k] = BS_N * b + BS_XD + k;
        snprintf(at, slot, "%s.m", bd->name);
        bm->params[BP_MASS0 + b] =
            (rs_param_def){at, bd->mass, 1e-9, 1e9, "the body's mass, kg", 0.0};
        at += slot;
    }
    for (int f = 0; f < scene->nfriction; f++) { /* model.friction.A.B: a friction line's mu */
        const rs_scene_friction *fr = &scene->friction[f];
        /* (named as its line names the pair) */
        const char *first = scene->bodies[fr->swapped ? fr->b : fr->a].name;
        const char *second = fr->b < 0 ? "static" : scene->bodies[fr->swapped ? fr->a : fr->b].name;
        snprintf(at, pair_slot, "friction.%s.%s", first, second);
        bm->params[BP_MASS0 + nb + f] = (rs_param_def){
            at, fr->mu, 0.0, 10.0, "Coulomb friction coefficient of the pair (its scene line)", 0.0};
        at += pair_slot;
    }
    bm->params[BP_G] =
        (rs_param_def){"g", 9.81, 0.0, 1e3, "gravitational acceleration, m/s^2", 0.0};
    bm->params[BP_MU] = (rs_param_def){"mu", 0.0, 0.0, 10.0,
                                       "Coulomb friction coefficient of every pair without a "
                                       "friction line of its own", 0.0};
    bm->params[BP_REACH] = (rs_param_def){"reach", 0.0, 0.0, 1e3,
                                          "margin of the contacts found beyond one step's travel, "
                                          "m", 0.0};
    rs_model *m = &bm->model;
    m->instantiate = NULL; /* an instance is a model like any other */
    m->release = release;
    m->nparams = (int)np;
    m->params = bm->params;
    m->nstate = (int)ns;
    m->state_names = bm->state_names;
    m->state_default = bm->state_default;
    m->velocity_index = bm->velocity_index;
    m->nvelocity = 3 * nb;
    m->ninput = (int)nin;
    m->input_names = bm->input_names;
    m->nforce = (int)nf;
    m->force_names = bm->force_names;
    m->ncontacts = nb;
    *out = m;
    return RS_OK;
}

static const rs_param_def template_params[] = {
    {"g", 9.81, 0.0, 1e3, "gravitational acceleration, m/s^2", 0.0},
    {"mu", 0.0, 0.0, 10.0, "Coulomb friction coefficient of every pair without its own", 0.0},
    {"reach", 0.0, 0.0, 1e3, "margin of the contacts found beyond one step's travel, m", 0.0},
};
/* What `relaxsim models` lists: a scene's columns are its bodies' (BODY stands for a name). */
static const char *const template_state[] = {"BODY.x_m",    "BODY.z_m",    "BODY.theta_rad",
                                             "BODY.xd_mps", "BODY.zd_mps", "BODY.thetad_radps"};
static const double template_default[] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
static const int template_velocity[] = {3, 4, 5};
static const char *const template_input[] = {"BODY.ux_N", "BODY.uz_N", "BODY.utau_Nm"};
static const char *const template_force[] = {"BODY.fx_N", "BODY.fz_N", "BODY.tau_Nm"};

const rs_model rs_model_bodies = {
    .name = "bodies",
    .summary = "rigid discs, boxes and polygons from a scene file, with rotation and Coulomb "
               "friction (per body: x, z, theta and their rates; per body and pair: m, mu)",
    .source = "docs/bodies.md: Stewart-Trinkle's planar step, the post's relaxation",
    .nparams = 3,
    .params = template_params,
    .nstate = 6,
    .state_names = template_state,
    .state_default = template_default,
    .velocity_index = template_velocity,
    .nvelocity = 3,
    .ninput = 3,
    .input_names = template_input,
    .nforce = 3,
    .force_names = template_force,
    .ncontacts = 0,
    .nvariants = 2,
    .variants = variants,
    .needs_scene = 1,
    .instantiate = instantiate,
    .release = release,
    .cache_create = cache_create,
    .cache_free = cache_free,
    .column_units = bodies_column_units,
    .contact_count = bodies_contact_count,
    .contact_geometry = bodies_contact_geometry,
    .sizes_grow = 1,
    .force_scale = force_scale,
    .step_scales = bodies_step_scales,
    .check_step = bodies_check_step,
    .check_reached = bodies_check_reached,
    .lcp_n = 0,
    .lcp_size = bodies_lcp_size,
    .lcp_build = bodies_lcp_build,
    .lcp_units = bodies_lcp_units,
    .lcp_recover = bodies_lcp_recover,
    .lcp_contact_free = bodies_lcp_contact_free,
    .lcp_tangent = bodies_lcp_tangent,
    .lcp_recover_tangent = bodies_lcp_recover_tangent,
    .nlp_n = 0, /* (sizes_grow: per step, nlp_size) */
    .nlp_m = 0,
    .nlp_size = nlp_size,
    .nlp_layout = nlp_layout,
    .nlp_describe = nlp_describe,
    .nlp_start = nlp_start,
    .nlp_recover = nlp_recover,
    .residuals = bodies_residuals,
    .modes = bodies_modes,
};
