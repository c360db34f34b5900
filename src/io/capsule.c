/* capsule.c: writing a step capsule (see capsule.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/c_locale.h"
#include "core/detail.h"
#include "io/capsule.h"
#include "io/output.h"
#include "relaxsim/lcp_file.h"
#include "lcp/lcp_internal.h"
#include "relaxsim/relaxsim.h"

/* An array of doubles written with 17 significant digits: each reads back to the same double
 * (cJSON's own printing may round a value within an epsilon of it). Non-finite: null. */
static cJSON *exact_array(const double *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        char num[40];
        if (isfinite(v[i]))
            snprintf(num, sizeof num, "%.17g", v[i]);
        else
            snprintf(num, sizeof num, "null");
        cJSON_AddItemToArray(a, cJSON_CreateRaw(num));
    }
    return a;
}

/* A step result as steps.jsonl writes it, with its state and forces also as exact arrays. */
static cJSON *answer_json(const rs_model *m, rs_backend backend, const rs_step_result *s)
{
    cJSON *o = rs_step_result_json(m, backend, s);
    cJSON_AddItemToObject(o, "state_exact", exact_array(s->state_next, m->nstate));
    cJSON_AddItemToObject(o, "forces_exact", exact_array(s->forces, m->nforce));
    return o;
}

static void add_key(cJSON *o, const char *name, unsigned long long key)
{
    char hex[32];
    snprintf(hex, sizeof hex, "0x%llx", key);
    cJSON_AddStringToObject(o, name, hex);
}

static int read_key(const cJSON *o, const char *name, unsigned long long *key)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, name));
    return s && sscanf(s, "%llx", key) == 1;
}

static cJSON *snapshot_json(const rs_stepper_snapshot *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "have_prev", s->have_prev);
    cJSON_AddNumberToObject(o, "n", s->n);
    cJSON_AddNumberToObject(o, "m", s->m);
    add_key(o, "point_structure", s->point_structure);
    cJSON_AddItemToObject(o, "x", exact_array(s->x, s->n));
    cJSON_AddItemToObject(o, "mult_g", exact_array(s->g, s->m));
    cJSON_AddItemToObject(o, "mult_x_l", exact_array(s->x_l, s->n));
    cJSON_AddItemToObject(o, "mult_x_u", exact_array(s->x_u, s->n));
    if (s->have_warm) /* the previous point was polished: IPOPT's own answer, the warm start */
        cJSON_AddItemToObject(o, "x_warm", exact_array(s->x_warm, s->n));
    cJSON_AddBoolToObject(o, "have_basis", s->have_basis);
    cJSON_AddNumberToObject(o, "nbasis", s->nbasis);
    add_key(o, "basis_structure", s->basis_structure);
    cJSON *basis = cJSON_AddArrayToObject(o, "basis");
    for (int i = 0; basis && i < s->nbasis; i++)
        cJSON_AddItemToArray(basis, cJSON_CreateNumber(s->basis[i]));
    return o;
}

int rs_capsule_read_array(const cJSON *a, double *v, int n)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
        return 0;
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, a)
    {
        if (cJSON_IsNull(x))
            v[i++] = NAN;
        else if (cJSON_IsNumber(x))
            v[i++] = x->valuedouble;
        else
            return 0;
    }
    return 1;
}

int rs_capsule_read_start(const cJSON *o, rs_stepper_snapshot *s)
{
    memset(s, 0, sizeof *s);
    const cJSON *n = cJSON_GetObjectItem(o, "n"), *m = cJSON_GetObjectItem(o, "m");
    const cJSON *nb = cJSON_GetObjectItem(o, "nbasis");
    if (!cJSON_IsNumber(n) || !cJSON_IsNumber(m) || !cJSON_IsNumber(nb))
        return 0;
    /* the sizes the arrays must have (checked against them below), within what a file of
     * numbers can hold */
    const double limit = 1e8;
    if (!(n->valuedouble >= 0 && n->valuedouble <= limit && m->valuedouble >= 0 &&
          m->valuedouble <= limit && nb->valuedouble >= 0 && nb->valuedouble <= limit))
        return 0;
    if (rs_stepper_snapshot_alloc(s, n->valueint, m->valueint, nb->valueint) != RS_OK)
        return 0;
    s->have_prev = cJSON_IsTrue(cJSON_GetObjectItem(o, "have_prev"));
    s->have_basis = cJSON_IsTrue(cJSON_GetObjectItem(o, "have_basis"));
    if (!read_key(o, "point_structure", &s->point_structure) ||
        !read_key(o, "basis_structure", &s->basis_structure) ||
        !rs_capsule_read_array(cJSON_GetObjectItem(o, "x"), s->x, s->n) ||
        !rs_capsule_read_array(cJSON_GetObjectItem(o, "mult_g"), s->g, s->m) ||
        !rs_capsule_read_array(cJSON_GetObjectItem(o, "mult_x_l"), s->x_l, s->n) ||
        !rs_capsule_read_array(cJSON_GetObjectItem(o, "mult_x_u"), s->x_u, s->n))
        return 0;
    const cJSON *warm = cJSON_GetObjectItem(o, "x_warm"); /* (absent: not polished) */
    if (warm && !rs_capsule_read_array(warm, s->x_warm, s->n))
        return 0;
    s->have_warm = warm != NULL;
    /* a point an IPOPT run left: finite, and within what a step's natural units hold (null, a
     * NaN, or 1e300 was accepted and replayed) */
    const double *arrays[5] = {s->x, s->g, s->x_l, s->x_u, s->x_warm};
    const int sizes[5] = {s->n, s->m, s->n, s->n, s->have_warm ? s->n : 0};
    for (int k = 0; k < 5; k++)
        for (int i = 0; i < sizes[k]; i++)
            if (!(fabs(arrays[k][i]) <= 1e12))
                return 0;
    double *basis = malloc(sizeof(double) * ((size_t)s->nbasis + 1));
    const int ok = basis && rs_capsule_read_array(cJSON_GetObjectItem(o, "basis"), basis,
                                                  s->nbasis);
    for (int i = 0; ok && i < s->nbasis; i++)
        s->basis[i] = basis[i] != 0.0;
    free(basis);
    return ok;
}

cJSON *rs_capsule_settings_json(const rs_scenario *sc)
{
    const rs_nlp_settings *n = &sc->nlp;
    cJSON *o = cJSON_CreateObject(), *nl = cJSON_AddObjectToObject(o, "nlp");
    cJSON_AddNumberToObject(nl, "tol", n->tol);
    cJSON_AddNumberToObject(nl, "max_iter", n->max_iter);
    cJSON_AddNumberToObject(nl, "eps", n->eps);
    cJSON_AddStringToObject(nl, "penalty", n->penalty == RS_NLP_PENALTY_L1 ? "l1" : "l2");
    cJSON_AddNumberToObject(nl, "penalty_weight", n->penalty_weight);
    cJSON_AddBoolToObject(nl, "warm_start", n->warm_start);
    cJSON_AddBoolToObject(nl, "polish", n->polish);
    cJSON_AddNumberToObject(nl, "mu_init", n->mu_init);
    cJSON_AddNumberToObject(nl, "retries", n->retries);
    cJSON_AddNumberToObject(nl, "cert_tol", n->cert_tol);
    cJSON_AddBoolToObject(nl, "check_start", n->check_start);
    cJSON_AddStringToObject(nl, "form", n->relax_lcp ? "relaxation" : "own");
    cJSON *le = cJSON_AddObjectToObject(o, "lemke");
    cJSON_AddNumberToObject(le, "max_pivots", sc->lemke.max_pivots);
    cJSON_AddBoolToObject(le, "warm_start", sc->lemke_warm);
    cJSON *cmp = cJSON_AddObjectToObject(o, "run");
    cJSON_AddNumberToObject(cmp, "agree_atol", sc->agree_atol);
    cJSON_AddNumberToObject(cmp, "agree_rtol", sc->agree_rtol);
    cJSON_AddNumberToObject(cmp, "agree_force_rtol", sc->agree_force_rtol);
    return o;
}

rs_error rs_write_capsule(FILE *f, const rs_scenario *sc, const char *const *overrides,
                          int noverrides, const rs_compare_result *r, const rs_capsule *c,
                          rs_error_detail *detail)
{
    const rs_model *m = sc->model;
    const rs_compare_step *st = &c->record;
    if (!sc->text)
        return rs_detail_set(detail, RS_ERR_BAD_ARG, "step %d: the scenario has no text to keep",
                             c->step);
    const locale_t caller = rs_c_locale_enter(); /* exact numbers in the C locale */
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "relaxsim", rs_version());
    cJSON_AddNumberToObject(o, "step", c->step);
    cJSON_AddNumberToObject(o, "t_s", c->step * sc->dt);
    cJSON_AddStringToObject(o, "why", c->requested ? "requested" : rs_verdict_name(st->verdict));
    cJSON *scen = cJSON_AddObjectToObject(o, "scenario");
    cJSON_AddStringToObject(scen, "path", sc->path);
    cJSON_AddStringToObject(scen, "text", sc->text);
    cJSON *ov = cJSON_AddArrayToObject(scen, "overrides");
    for (int i = 0; i < noverrides; i++)
        cJSON_AddItemToArray(ov, cJSON_CreateString(overrides[i]));
    if (sc->scene && sc->scene_text)
        cJSON_AddStringToObject(scen, "scene_text", sc->scene_text);
    cJSON_AddStringToObject(o, "model", m->name);
    cJSON_AddStringToObject(o, "variant", m->variants[sc->variant]);
    cJSON *state = cJSON_AddObjectToObject(o, "state");
    for (int i = 0; i < m->nstate; i++)
        cJSON_AddNumberToObject(state, m->state_names[i], c->state[i]);
    cJSON_AddItemToObject(o, "state_exact", exact_array(c->state, m->nstate));
    cJSON_AddItemToObject(o, "input_exact", exact_array(st->input, m->ninput));
    cJSON_AddItemToObject(o, "settings", rs_capsule_settings_json(sc));
    cJSON_AddItemToObject(o, "start", snapshot_json(&c->before));
    cJSON_AddItemToObject(o, "nlp", answer_json(m, RS_BACKEND_NLP, &st->nlp));
    cJSON_AddItemToObject(o, "lemke", answer_json(m, RS_BACKEND_LEMKE, &st->shadow));
    cJSON_AddStringToObject(o, "verdict", rs_verdict_name(st->verdict));
    cJSON *diff = cJSON_AddObjectToObject(o, "diff");
    for (int k = 0; k < r->ncol; k++)
        cJSON_AddNumberToObject(diff, r->col_names[k], st->diff[k]);
    rs_error err = RS_OK;
    if (c->lcp_n > 0) { /* the LCP of the shadow solve, as a Siconos .dat text */
        rs_lcp lcp = {.n = c->lcp_n, .M = c->M, .q = c->q};
        char *dat = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&dat, &len);
        if (!mem)
            err = RS_ERR_NOMEM;
        else {
            err = rs_lcp_write_stream(mem, "lcp_dat", &lcp, RS_LCP_STORAGE_DENSE, 0, NULL, detail);
            if (fclose(mem) != 0 && err == RS_OK)
                err = RS_ERR_NOMEM;
        }
        if (err == RS_OK)
            cJSON_AddStringToObject(o, "lcp_dat", dat);
        free(dat);
    }
    char *json = err == RS_OK ? cJSON_Print(o) : NULL;
    cJSON_Delete(o);
    rs_c_locale_leave(caller);
    if (err == RS_OK && !json)
        err = RS_ERR_NOMEM;
    if (json)
        fprintf(f, "%s\n", json);
    free(json);
    return err;
}

rs_error rs_write_capsule_dat(FILE *f, const rs_capsule *c, rs_error_detail *detail)
{
    if (c->lcp_n <= 0)
        return RS_OK;
    const locale_t caller = rs_c_locale_enter();
    rs_lcp lcp = {.n = c->lcp_n, .M = c->M, .q = c->q};
    const rs_error err = rs_lcp_write_stream(f, "lcp_dat", &lcp, RS_LCP_STORAGE_DENSE, 0, NULL,
                                             detail);
    rs_c_locale_leave(caller);
    return err;
}
