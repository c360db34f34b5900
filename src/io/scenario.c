/*
 * scenario.c: reading and validating scenario files (see scenario.h).
 *
 * The entries of the file, with their line numbers (io/ini_entries.h), are collected first and
 * interpreted afterwards, once the model
 * (and so the set of valid keys) is known. The first problem found is reported as
 * "FILE:LINE: section.key: what is wrong".
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "io/output.h"
#include "io/scenario.h"
#include "io/scene_file.h"
#include "io/ini_entries.h"
#include "core/c_locale.h"
#include "core/detail.h"
#include "core/rng.h"
#include "models/registry.h"

#define MAX_ENTRIES 4096 /* a scene of 64 bodies with every initial value set: 384 */

typedef rs_ini_entry entry;

/* ---- value parsing ------------------------------------------------------------------------- */

typedef struct parse_ctx {
    const char *path;
    rs_error_detail *detail;
    const entry *e; /* the entry being interpreted */
    int from_text;  /* the scenario came as text (rs_scenario_load_text): its scene too */
    const char *scene_text; /* that scene's text, or NULL */
} parse_ctx;

static rs_error fail(const parse_ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static rs_error fail(const parse_ctx *c, const char *fmt, ...)
{
    char msg[480]; /* (the detail, 512 bytes, adds the file, line and key in front: a long
                      path cuts the end of the message) */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->e->line > 0) /* a line of the file */
        return rs_detail_set(c->detail, RS_ERR_PARSE, "%s:%d: %s.%s: %s", c->path, c->e->line,
                             c->e->section, c->e->key, msg);
    if (c->e->line == 0) /* a --set override */
        return rs_detail_set(c->detail, RS_ERR_PARSE, "--set %s.%s: %s", c->e->section, c->e->key,
                             msg);
    return rs_detail_set(c->detail, RS_ERR_PARSE, "%s: %s: %s", c->path, c->e->section, msg);
}

/* 1 if text is a finite decimal real. */
static int parse_real_text(const char *text, double *out)
{
    return rs_parse_real(text, out) == 1;
}

static rs_error get_real(const parse_ctx *c, double lo, double hi, double *out)
{
    double v;
    const int parsed = rs_parse_real(c->e->value, &v);
    if (parsed == 0)
        return fail(c, "expected a number, got '%s'", c->e->value);
    if (parsed == -2)
        return fail(c, "'%s' is below %g in magnitude, the normal range of doubles", c->e->value,
                    DBL_MIN);
    if (parsed < 0)
        return fail(c, "must be finite, got '%s'", c->e->value);
    if (v < lo || v > hi)
        return fail(c, "%s is out of range [%g, %g]", c->e->value, lo, hi);
    *out = v;
    return RS_OK;
}

static rs_error get_int(const parse_ctx *c, long lo, long hi, int *out)
{
    long v;
    if (!rs_parse_count(c->e->value, LONG_MIN, LONG_MAX, &v))
        return fail(c, "expected an integer, got '%s'", c->e->value);
    if (v < lo || v > hi)
        return fail(c, "%ld is out of range [%ld, %ld]", v, lo, hi);
    *out = (int)v;
    return RS_OK;
}

static rs_error get_choice(const parse_ctx *c, const char *const *choices, int n, int *out)
{
    for (int i = 0; i < n; i++)
        if (strcmp(c->e->value, choices[i]) == 0) {
            *out = i;
            return RS_OK;
        }
    char list[200] = "";
    for (int i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", choices[i]);
    return fail(c, "'%s' is not one of: %s", c->e->value, list);
}

static rs_error get_bool(const parse_ctx *c, int *out)
{
    static const char *const choices[] = {"no", "yes"};
    return get_choice(c, choices, 2, out);
}

/* A comma-separated list of finite reals. */
static rs_error get_list(const parse_ctx *c, double *out, int max, int *count)
{
    char buf[512], *items[RS_MAX_LIST_ITEMS];
    snprintf(buf, sizeof buf, "%s", c->e->value);
    const int n = rs_split_list(buf, items, max < RS_MAX_LIST_ITEMS ? max : RS_MAX_LIST_ITEMS);
    if (n == -2)
        return fail(c, "more than %d values", max);
    if (n < 0)
        return fail(c,
                    "expected a comma-separated list of finite numbers with no empty item, "
                    "got '%s'",
                    c->e->value);
    for (int i = 0; i < n; i++)
        if (!parse_real_text(items[i], &out[i]) || !isfinite(out[i]))
            return fail(c, "expected a comma-separated list of finite numbers, got '%s'",
                        c->e->value);
    *count = n;
    return RS_OK;
}

#define TRY(expr)                                                                                 \
    do {                                                                                          \
        const rs_error try_err_ = (expr);                                                         \
        if (try_err_ != RS_OK)                                                                    \
            return try_err_;                                                                      \
    } while (0)

/* ---- sections ------------------------------------------------------------------------------ */

/* Drop the scene a scenario holds (a later --set model.scene replaces the file's). */
static void drop_scene(rs_scenario *sc)
{
    if (sc->scene)
        rs_scene_free(sc->scene);
    free(sc->scene);
    free(sc->scene_text);
    sc->scene = NULL;
    sc->scene_text = NULL;
}

/* The scene of text (owned by sc from here on), named sc->scene_path in messages. */
static rs_error parse_scene(const parse_ctx *c, rs_scenario *sc, char *text)
{
    sc->scene_text = text;
    if (!text || !(sc->scene = malloc(sizeof *sc->scene))) {
        drop_scene(sc);
        return RS_ERR_NOMEM;
    }
    rs_error_detail why;
    if (rs_scene_read_text(sc->scene_path, text, sc->scene, &why) != RS_OK) {
        drop_scene(sc);
        return fail(c, "%s", why.message);
    }
    return RS_OK;
}

/* [model] scene = FILE: a scene file, relative to the scenario's directory (scene_file.h). A
 * scenario given as text takes its scene as text too: the file it names is never opened (a
 * --set model.scene=FILE of the caller's still is). */
static rs_error load_scene(const parse_ctx *c, rs_scenario *sc)
{
    const char *value = c->e->value, *slash = strrchr(c->path, '/');
    if (value[0] == '\0')
        return fail(c, "empty (expected the path of a scene file)");
    drop_scene(sc);
    if (c->from_text && c->e->line != 0) {
        if (!c->scene_text)
            return fail(c, "names a scene file, but a scenario given as text carries its scene "
                           "as text (the library's scene_text argument, a capsule's "
                           "scenario.scene_text); the file is not opened");
        snprintf(sc->scene_path, sizeof sc->scene_path, "%.400s: scene_text", c->path);
        return parse_scene(c, sc, strdup(c->scene_text));
    }
    const int dir_len = value[0] == '/' || !slash || c->from_text ? 0
                                                                 : (int)(slash - c->path + 1);
    const int len = snprintf(sc->scene_path, sizeof sc->scene_path, "%.*s%s", dir_len, c->path,
                             value);
    if (len < 0 || (size_t)len >= sizeof sc->scene_path)
        return fail(c, "the path is longer than %zu characters", sizeof sc->scene_path - 1);
    struct stat st;
    if (stat(sc->scene_path, &st) != 0 || !S_ISREG(st.st_mode))
        return fail(c, "%s: cannot open the scene file: %s", sc->scene_path,
                    errno && stat(sc->scene_path, &st) != 0 ? strerror(errno) : "not a file");
    char *text = rs_read_text_file(sc->scene_path);
    if (!text)
        return fail(c, "%s: cannot read the scene file", sc->scene_path);
    const size_t read = strlen(text);
    if (read < (size_t)st.st_size) { /* the text would end there, the rest unread */
        int line = 1;
        for (size_t i = 0; i < read; i++)
            line += text[i] == '\n';
        free(text);
        return fail(c, "%s:%d: a NUL byte (not a text file?)", sc->scene_path, line);
    }
    return parse_scene(c, sc, text);
}

static rs_error apply_model(const parse_ctx *c, rs_scenario *sc)
{
    const rs_model *m = sc->model;
    const char *key = c->e->key;
    if (strcmp(key, "name") == 0)
        return RS_OK; /* already resolved */
    if (strcmp(key, m->variant_key ? m->variant_key : "variant") == 0)
        return get_choice(c, m->variants, m->nvariants, &sc->variant);
    if (m->needs_scene && strcmp(key, "scene") == 0)
        return sc->model_instance ? RS_OK /* read first: the model is its scene's */
                                  : load_scene(c, sc);
    for (int i = 0; i < m->nparams; i++) {
        const rs_param_def *p = &m->params[i];
        if (strcmp(key, p->name) != 0)
            continue;
        TRY(get_real(c, p->lo, p->hi, &sc->params[i]));
        const double k = p->multiple_of;
        if (k > 0.0 && sc->params[i] / k != floor(sc->params[i] / k))
            return k == 1.0 ? fail(c, "%s is not a whole number", c->e->value)
                   : k == 2.0 ? fail(c, "%s is not an even whole number", c->e->value)
                              : fail(c, "%s is not a whole multiple of %g", c->e->value, k);
        return RS_OK;
    }
    char list[200] = "";
    for (int i = 0; i < m->nparams; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), ", %s", m->params[i].name);
    return fail(c, "unknown key for model %s (expected name, %s%s%s)", m->name,
                m->variant_key ? m->variant_key : "variant", m->needs_scene ? ", scene" : "", list);
}

static rs_error apply_initial(const parse_ctx *c, rs_scenario *sc)
{
    const rs_model *m = sc->model;
    const int i = rs_column_index(m->state_names, m->nstate, c->e->key);
    if (i < 0) { /* name the state's components as keys: without their unit */
        char list[200] = "";
        size_t at = 0;
        for (int k = 0; k < m->nstate && at + 48 < sizeof list; k++) {
            const char *u = strrchr(m->state_names[k], '_');
            const int len = u ? (int)(u - m->state_names[k]) : (int)strlen(m->state_names[k]);
            at += (size_t)snprintf(list + at, sizeof list - at, "%s%.*s", k ? ", " : "", len,
                                   m->state_names[k]);
        }
        return fail(c, "unknown state component for model %s (the keys are the state's names "
                       "without their unit: %s%s)",
                    m->name, list, at + 48 >= sizeof list ? ", ..." : "");
    }
    return get_real(c, -1e12, 1e12, &sc->initial[i]);
}

static rs_error apply_input(const parse_ctx *c, rs_scenario *sc)
{
    const rs_model *m = sc->model;
    rs_input_schedule *in = &sc->input;
    const char *key = c->e->key;
    if (strcmp(key, "type") == 0) {
        static const char *const kinds[] = {"constant", "piecewise", "random"};
        int k = 0;
        TRY(get_choice(c, kinds, 3, &k));
        in->kind = (rs_input_kind)k;
        return RS_OK;
    }
    if (strcmp(key, "unit") == 0) {
        static const char *const units[] = {"newton", "weight"};
        return get_choice(c, units, 2, &in->in_weights);
    }
    if (strcmp(key, "times") == 0)
        return get_list(c, in->times, RS_SCENARIO_MAX_PIECES, &in->npieces);
    if (strcmp(key, "seed") == 0) {
        char *end;
        errno = 0;
        const unsigned long long v = strtoull(c->e->value, &end, 10);
        if (end == c->e->value || *end != '\0' || errno == ERANGE || c->e->value[0] == '-')
            return fail(c, "expected a non-negative integer, got '%s'", c->e->value);
        in->seed = (uint64_t)v;
        return RS_OK;
    }
    if (strcmp(key, "hold_steps") == 0)
        return get_int(c, 1, RS_SCENARIO_MAX_STEPS, &in->hold_steps);
    char base[96];
    snprintf(base, sizeof base, "%s", key);
    const size_t len = strlen(base);
    int bound = 0; /* 1: _min, 2: _max */
    if (len > 4 && strcmp(base + len - 4, "_min") == 0)
        bound = 1;
    else if (len > 4 && strcmp(base + len - 4, "_max") == 0)
        bound = 2;
    if (bound)
        base[len - 4] = '\0';
    const int i = rs_column_index(m->input_names, m->ninput, base);
    if (i < 0)
        return fail(c, "unknown input for model %s (expected type, unit, times, seed, hold_steps, or an "
                       "input name such as %.*s, optionally with _min / _max)",
                    m->name, (int)(strchr(m->input_names[0], '_') - m->input_names[0]),
                    m->input_names[0]);
    if (bound == 1)
        return get_real(c, -1e12, 1e12, &in->lo[i]);
    if (bound == 2)
        return get_real(c, -1e12, 1e12, &in->hi[i]);
    /* a single value (constant) or a list (piecewise), bounded as the random range and the
     * initial state are: beyond 1e12 the step's scales leave double precision's reach */
    TRY(get_list(c, in->values[i], RS_SCENARIO_MAX_PIECES, &in->nvalues[i]));
    for (int v = 0; v < in->nvalues[i]; v++)
        if (!(fabs(in->values[i][v]) <= 1e12))
            return fail(c, "%g is out of range [-1e+12, 1e+12]", in->values[i][v]);
    in->constant[i] = in->values[i][0];
    return RS_OK;
}

static rs_error apply_run(const parse_ctx *c, rs_scenario *sc)
{
    const char *key = c->e->key;
    if (strcmp(key, "steps") == 0) {
        return get_int(c, 1, RS_SCENARIO_MAX_STEPS, &sc->steps);
    }
    if (strcmp(key, "dt") == 0) {
        TRY(get_real(c, -INFINITY, INFINITY, &sc->dt));
        /* the lower end keeps the step's natural force m V / dt finite for every mass and
         * speed in range (1e6 kg at 1e12 m/s: 1e30 N) */
        if (!(sc->dt >= 1e-12 && sc->dt <= 10.0))
            return fail(c, "the time step must be in [1e-12, 10] s, got %s", c->e->value);
        return RS_OK;
    }
    if (strcmp(key, "backend") == 0) {
        static const char *const b[] = {"nlp", "lemke"};
        return get_choice(c, b, 2, &sc->backend_lemke);
    }
    if (strcmp(key, "contact_force_tol") == 0)
        return get_real(c, 0.0, 1.0, &sc->mode_tols.force);
    if (strcmp(key, "speed_tol") == 0)
        return get_real(c, 0.0, 1e3, &sc->mode_tols.speed);
    if (strcmp(key, "rest_speed") == 0)
        return get_real(c, 0.0, 1e3, &sc->rest_speed);
    if (strcmp(key, "agree_atol") == 0)
        return get_real(c, 0.0, 1e6, &sc->agree_atol);
    if (strcmp(key, "agree_rtol") == 0)
        return get_real(c, 0.0, 1.0, &sc->agree_rtol);
    if (strcmp(key, "agree_force_rtol") == 0)
        return get_real(c, 0.0, 1.0, &sc->agree_force_rtol);
    if (strcmp(key, "on_nlp_failure") == 0) {
        static const char *const p[] = {"continue", "lemke"};
        int v = 0;
        TRY(get_choice(c, p, 2, &v));
        sc->on_nlp_failure = (rs_failure_policy)v;
        return RS_OK;
    }
    return fail(c, "unknown key (expected steps, dt, backend, contact_force_tol, speed_tol, "
                   "rest_speed, agree_atol, agree_rtol, agree_force_rtol, on_nlp_failure)");
}

static rs_error apply_nlp(const parse_ctx *c, rs_scenario *sc)
{
    rs_nlp_settings *s = &sc->nlp;
    const char *key = c->e->key;
    if (strcmp(key, "tol") == 0)
        return get_real(c, 1e-16, 0.5, &s->tol);
    if (strcmp(key, "max_iter") == 0)
        return get_int(c, 1, 100000, &s->max_iter);
    if (strcmp(key, "eps") == 0)
        return get_real(c, 1e-16, 1.0, &s->eps);
    if (strcmp(key, "penalty") == 0) {
        static const char *const p[] = {"l1", "l2"};
        int v = 0;
        TRY(get_choice(c, p, 2, &v));
        s->penalty = (rs_nlp_penalty)v;
        return RS_OK;
    }
    if (strcmp(key, "penalty_weight") == 0)
        return get_real(c, 1e-12, 1e12, &s->penalty_weight);
    if (strcmp(key, "warm_start") == 0)
        return get_bool(c, &s->warm_start);
    if (strcmp(key, "mu_init") == 0)
        return get_real(c, 1e-16, 1.0, &s->mu_init);
    if (strcmp(key, "retries") == 0)
        return get_int(c, 0, 5, &s->retries);
    if (strcmp(key, "cert_tol") == 0)
        return get_real(c, 1e-16, 0.5, &s->cert_tol);
    if (strcmp(key, "check_start") == 0)
        return get_bool(c, &s->check_start);
    if (strcmp(key, "polish") == 0)
        return get_bool(c, &s->polish);
    if (strcmp(key, "form") == 0) {
        static const char *const forms[] = {"own", "relaxation"};
        TRY(get_choice(c, forms, 2, &s->relax_lcp));
        if (s->relax_lcp && sc->model && rs_model_own_nlp(sc->model) && !sc->model->lcp_units)
            return fail(c, "model %s has no relaxation (its LCP has no units to pose it in): "
                        "use own", sc->model->name);
        return RS_OK;
    }
    return fail(c, "unknown key (expected tol, max_iter, eps, penalty, penalty_weight, warm_start, "
                   "mu_init, retries, cert_tol, check_start, polish, form)");
}

static rs_error apply_lemke(const parse_ctx *c, rs_scenario *sc)
{
    if (strcmp(c->e->key, "max_pivots") == 0)
        return get_int(c, 0, 1000000000, &sc->lemke.max_pivots);
    if (strcmp(c->e->key, "cert_tol") == 0)
        return get_real(c, 1e-16, 0.5, &sc->lemke.cert_tol);
    if (strcmp(c->e->key, "warm_start") == 0)
        return get_bool(c, &sc->lemke_warm);
    return fail(c, "unknown key (expected max_pivots, cert_tol, warm_start)");
}

/* "<prefix>.<column>" with a column of the model's state or forces. */
static int column_key(const rs_model *m, const char *key, const char *prefix)
{
    const size_t len = strlen(prefix);
    if (strncmp(key, prefix, len) != 0 || key[len] != '.')
        return 0;
    const char *col = key + len + 1;
    for (int i = 0; i < m->nstate; i++)
        if (strcmp(col, m->state_names[i]) == 0)
            return 1;
    for (int i = 0; i < m->nforce; i++)
        if (strcmp(col, m->force_names[i]) == 0)
            return 1;
    return -1;
}

/* "value +- tol" or "value +- p%" */
static rs_error get_near(const parse_ctx *c, double *value, double *tol)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", c->e->value);
    char *pm = strstr(buf, "+-");
    if (!pm)
        return fail(c, "expected 'value +- tolerance' (tolerance may end in %%), got '%s'", c->e->value);
    *pm = '\0';
    char *t = pm + 2;
    const size_t tl = strlen(t);
    int percent = 0;
    while (tl > 0 && isspace((unsigned char)t[strlen(t) - 1]))
        t[strlen(t) - 1] = '\0';
    if (strlen(t) > 0 && t[strlen(t) - 1] == '%') {
        percent = 1;
        t[strlen(t) - 1] = '\0';
    }
    if (!parse_real_text(buf, value) || !parse_real_text(t, tol) || !isfinite(*value) ||
        !isfinite(*tol) || *tol < 0.0)
        return fail(c, "expected 'value +- tolerance' with finite numbers and tolerance >= 0, got '%s'",
                    c->e->value);
    if (percent)
        *tol = fabs(*value) * *tol / 100.0;
    return RS_OK;
}

/* "atol" or "atol + rtol%": a mixed tolerance atol + rtol/100 |reference|. */
static rs_error get_mixed_bound(const parse_ctx *c, double *atol, double *rtol)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", c->e->value);
    char *plus = strstr(buf, " + ");
    *rtol = 0.0;
    if (plus) {
        *plus = '\0';
        char *r = plus + 3;
        while (*r == ' ')
            r++;
        size_t len = strlen(r);
        while (len > 0 && r[len - 1] == ' ')
            r[--len] = '\0';
        if (len == 0 || r[len - 1] != '%' || (r[len - 1] = '\0', !parse_real_text(r, rtol)) ||
            !(*rtol >= 0.0 && *rtol <= 100.0))
            return fail(c, "expected 'atol' or 'atol + rtol%%' with 0 <= rtol <= 100, got '%s'",
                        c->e->value);
        *rtol /= 100.0;
    }
    if (!parse_real_text(buf, atol) || !(*atol >= 0.0) || !isfinite(*atol))
        return fail(c, "expected 'atol' or 'atol + rtol%%' with a finite atol >= 0, got '%s'",
                    c->e->value);
    return RS_OK;
}

static rs_error apply_expect(const parse_ctx *c, rs_scenario *sc)
{
    const rs_model *m = sc->model;
    const char *key = c->e->key;
    int slot = sc->ncheck; /* a key given again (--set) replaces its check, as for any key */
    for (int i = 0; i < sc->ncheck; i++)
        if (strcmp(sc->checks[i].key, key) == 0)
            slot = i;
    if (slot >= RS_SCENARIO_MAX_CHECKS)
        return fail(c, "more than %d checks", RS_SCENARIO_MAX_CHECKS);
    rs_check *ck = &sc->checks[slot];
    memset(ck, 0, sizeof *ck);
    snprintf(ck->key, sizeof ck->key, "%s", key);
    snprintf(ck->text, sizeof ck->text, "%.60s = %.90s", key, c->e->value); /* report text */
    ck->line = c->e->line;
    int iv = 0;
    if (strcmp(key, "nlp_failed_steps_max") == 0 || strcmp(key, "lemke_failed_steps_max") == 0 ||
        strcmp(key, "nlp_failed_steps_min") == 0 || strcmp(key, "lemke_failed_steps_min") == 0) {
        TRY(get_int(c, 0, RS_SCENARIO_MAX_STEPS, &iv));
        ck->kind = strstr(key, "_min") ? RS_CHECK_AT_LEAST : RS_CHECK_AT_MOST;
        ck->a = iv;
    } else if (strcmp(key, "grad_failed_max") == 0 || strcmp(key, "grad_disagree_max") == 0) {
        TRY(get_int(c, 0, 1000000, &iv)); /* (output, key) pairs of relaxsim grad */
        ck->kind = RS_CHECK_AT_MOST;
        ck->a = iv;
    } else if (strcmp(key, "grad_lcp_fd_max_rel") == 0 ||
               strcmp(key, "grad_nlp_fd_max_rel") == 0) {
        TRY(get_real(c, 0.0, INFINITY, &ck->a));
        ck->kind = RS_CHECK_AT_MOST;
    } else if (strcmp(key, "mode_agreement_max") == 0) {
        TRY(get_real(c, 0.0, 1.0, &ck->a));
        ck->kind = RS_CHECK_AT_MOST;
    } else if (strcmp(key, "first_contact_step") == 0) {
        TRY(get_int(c, 0, RS_SCENARIO_MAX_STEPS, &iv));
        ck->kind = RS_CHECK_EQUAL;
        ck->a = iv;
    } else if (strcmp(key, "mode_agreement_min") == 0) {
        TRY(get_real(c, 0.0, 1.0, &ck->a));
        ck->kind = RS_CHECK_AT_LEAST;
    } else if (strncmp(key, "max_speed_nlp.", 14) == 0 || strncmp(key, "max_speed_lemke.", 16) == 0) {
        /* "b" or "b from T": the body's largest speed |(xd, zd)| from time T on */
        const char *body = strchr(key, '.') + 1;
        if (rs_speed_columns(m, body, NULL, NULL) != 0)
            return fail(c, "no body '%s' in model %s (a speed check names a body whose state "
                           "has %s.xd_mps and %s.zd_mps)", body, m->name, body, body);
        char buf[512];
        snprintf(buf, sizeof buf, "%s", c->e->value);
        char *from = strstr(buf, " from ");
        ck->b = 0.0;
        if (from) {
            *from = '\0';
            if (!parse_real_text(from + 6, &ck->b) || !(ck->b >= 0.0) || !isfinite(ck->b))
                return fail(c, "expected 'bound' or 'bound from T' with a finite T >= 0 (s), "
                               "got '%s'", c->e->value);
        }
        if (!parse_real_text(buf, &ck->a) || !(ck->a >= 0.0) || !isfinite(ck->a))
            return fail(c, "expected 'bound' or 'bound from T' with a finite bound >= 0 (m/s), "
                           "got '%s'", c->e->value);
        ck->kind = RS_CHECK_AT_MOST;
    } else if (strcmp(key, "rest_time_s") == 0) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", c->e->value);
        char *dots = strstr(buf, "..");
        if (!dots)
            return fail(c, "expected 'lo .. hi', got '%s'", c->e->value);
        *dots = '\0';
        if (!parse_real_text(buf, &ck->a) || !parse_real_text(dots + 2, &ck->b) ||
            !isfinite(ck->a) || !isfinite(ck->b) || ck->a > ck->b)
            return fail(c, "expected 'lo .. hi' with finite lo <= hi, got '%s'", c->e->value);
        ck->kind = RS_CHECK_RANGE;
    } else {
        static const char *const prefixes[] = {"shadow_max_abs", "drift_max_abs", "min_nlp",
                                               "final_nlp", "final_lemke", "final_diff",
                                               "min_lemke", "max_nlp", "max_lemke"};
        int found = -1;
        for (int p = 0; p < 9 && found < 0; p++) {
            const int r = column_key(m, key, prefixes[p]);
            if (r < 0)
                return fail(c, "no column '%s' in model %s", strchr(key, '.') + 1, m->name);
            if (r > 0)
                found = p;
        }
        if (found < 0)
            return fail(c, "unknown check: a column's check is final_nlp., final_lemke., "
                           "min_nlp., max_nlp., min_lemke., max_lemke., shadow_max_abs., "
                           "drift_max_abs. or final_diff. and a column such as %.60s; the others "
                           "are nlp_/lemke_failed_steps_max/_min, mode_agreement_min/_max, "
                           "first_contact_step, rest_time_s, max_speed_nlp./max_speed_lemke. and a body, "
                           "and grad_* (docs/scenario.md)",
                        m->state_names[0]);
        if (found <= 1) {
            TRY(get_real(c, 0.0, INFINITY, &ck->a));
            ck->kind = RS_CHECK_AT_MOST;
        } else if (found == 2 || found >= 6) { /* min_* >= bound, max_* <= bound */
            TRY(get_real(c, -INFINITY, INFINITY, &ck->a));
            ck->kind = found == 7 || found == 8 ? RS_CHECK_AT_MOST : RS_CHECK_AT_LEAST;
        } else if (found == 5) {
            TRY(get_mixed_bound(c, &ck->a, &ck->b));
            ck->kind = RS_CHECK_AT_MOST; /* the bound atol + rtol |Lemke| is applied in sim */
        } else {
            TRY(get_near(c, &ck->a, &ck->b));
            ck->kind = RS_CHECK_NEAR;
        }
    }
    if (slot == sc->ncheck)
        sc->ncheck++;
    return RS_OK;
}

/* ---- whole file ---------------------------------------------------------------------------- */

static rs_error scenario_defaults(rs_scenario *sc, const rs_model *m)
{
    sc->model = m;
    if (rs_scenario_alloc_values(sc) != RS_OK)
        return RS_ERR_NOMEM;
    sc->variant = 0;
    for (int i = 0; i < m->nparams; i++)
        sc->params[i] = m->params[i].value;
    for (int i = 0; i < m->nstate; i++)
        sc->initial[i] = m->state_default[i];
    sc->input.kind = RS_INPUT_CONSTANT;
    sc->input.hold_steps = 1;
    sc->steps = 1000;
    sc->dt = 1e-3;
    rs_nlp_settings_default(&sc->nlp);
    rs_lemke_settings_default(&sc->lemke);
    sc->lemke_warm = 1;
    sc->mode_tols.force = 1e-6;
    sc->mode_tols.speed = 1e-6;
    sc->rest_speed = 1e-6;
    sc->agree_atol = 1e-6;
    sc->agree_rtol = 1e-6;
    sc->agree_force_rtol = 0.01;
    sc->on_nlp_failure = RS_ON_FAILURE_CONTINUE;
    return RS_OK;
}

/* Point c at the last [input] entry of key (the one that counts), or at the section if there is
 * none; key is a printf format for the key. */
static void at_input_key(parse_ctx *c, const entry *section, const entry *entries, int count,
                         const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static void at_input_key(parse_ctx *c, const entry *section, const entry *entries, int count,
                         const char *fmt, ...)
{
    char key[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(key, sizeof key, fmt, ap);
    va_end(ap);
    c->e = section;
    for (int i = count - 1; i >= 0; i--)
        if (strcmp(entries[i].section, "input") == 0 && strcmp(entries[i].key, key) == 0) {
            c->e = &entries[i];
            return;
        }
}

/* The key of input i in a scenario file: its name without the unit ("ux" for ux_N). */
static int input_key_len(const rs_model *m, int i)
{
    const char *unit = strrchr(m->input_names[i], '_');
    return unit ? (int)(unit - m->input_names[i]) : (int)strlen(m->input_names[i]);
}

/* The [input] section as a whole: what one key cannot check alone, each message at the line of
 * the key it is about (c->e is [input] type, or the section, otherwise). */
static rs_error check_inputs(parse_ctx *c, rs_scenario *sc, const entry *entries, int count)
{
    const rs_model *m = sc->model;
    rs_input_schedule *in = &sc->input;
    static const char *const kind_name[] = {"constant", "piecewise", "random"};
    const entry *section = c->e;
    /* the keys of one type only: another type's keys would be ignored silently */
    for (int i = 0; i < count; i++) {
        const entry *e = &entries[i];
        if (strcmp(e->section, "input") != 0)
            continue;
        const size_t len = strlen(e->key);
        const int bound = len > 4 && (strcmp(e->key + len - 4, "_min") == 0 ||
                                      strcmp(e->key + len - 4, "_max") == 0);
        const char *wants = NULL;
        if (bound || strcmp(e->key, "seed") == 0 || strcmp(e->key, "hold_steps") == 0)
            wants = in->kind == RS_INPUT_RANDOM ? NULL : "type = random";
        else if (strcmp(e->key, "times") == 0)
            wants = in->kind == RS_INPUT_PIECEWISE ? NULL : "type = piecewise";
        else if (strcmp(e->key, "type") != 0 && strcmp(e->key, "unit") != 0)
            wants = in->kind != RS_INPUT_RANDOM ? NULL : "type = constant or piecewise";
        if (wants) {
            c->e = e;
            return fail(c, "only for %s (this input is of type %s)", wants, kind_name[in->kind]);
        }
    }
    c->e = section;
    if (in->kind == RS_INPUT_PIECEWISE) {
        if (in->npieces == 0) {
            at_input_key(c, section, entries, count, "type");
            return fail(c, "piecewise input needs 'times = t0, t1, ...'");
        }
        at_input_key(c, section, entries, count, "times");
        if (in->times[0] != 0.0)
            return fail(c, "piecewise times must start at 0");
        for (int k = 1; k < in->npieces; k++)
            if (!(in->times[k] > in->times[k - 1]))
                return fail(c, "piecewise times must increase strictly");
        for (int i = 0; i < m->ninput; i++)
            if (in->nvalues[i] != 0 && in->nvalues[i] != in->npieces) {
                at_input_key(c, section, entries, count, "%.*s", input_key_len(m, i),
                             m->input_names[i]);
                return fail(c, "%d values for %d times", in->nvalues[i], in->npieces);
            }
    } else {
        for (int i = 0; i < m->ninput; i++)
            if (in->nvalues[i] > 1) {
                at_input_key(c, section, entries, count, "%.*s", input_key_len(m, i),
                             m->input_names[i]);
                return fail(c, "a list of values, but the input type is not piecewise");
            }
    }
    if (in->kind == RS_INPUT_RANDOM)
        for (int i = 0; i < m->ninput; i++)
            if (in->lo[i] > in->hi[i]) {
                at_input_key(c, section, entries, count, "%.*s_max", input_key_len(m, i),
                             m->input_names[i]);
                return fail(c, "input %.*s: _min is above _max", input_key_len(m, i),
                            m->input_names[i]);
            }
    /* in weights, every value times m g must stay within the range of a force value */
    const double weight = in->in_weights ? m->force_scale(sc->params) : 1.0;
    for (int i = 0; i < m->ninput; i++) {
        double largest = 0.0;
        if (in->kind == RS_INPUT_RANDOM)
            largest = fmax(fabs(in->lo[i]), fabs(in->hi[i]));
        else
            for (int v = 0; v < in->nvalues[i]; v++)
                largest = fmax(largest, fabs(in->values[i][v]));
        if (!(largest * weight <= 1e12)) {
            at_input_key(c, section, entries, count, "unit");
            return fail(c, "input %.*s: %g weights are %g N, beyond 1e12 N", input_key_len(m, i),
                        m->input_names[i], largest, largest * weight);
        }
    }
    c->e = section;
    return RS_OK;
}

/* Where word first occurs in text as a whole word (not inside a longer name), or -1. */
static long word_at(const char *text, const char *word)
{
    const size_t n = strlen(word);
    for (const char *p = strstr(text, word); n > 0 && p; p = strstr(p + 1, word)) {
        const int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
        const int after = isalnum((unsigned char)p[n]) || p[n] == '_';
        if (!before && !after)
            return (long)(p - text);
    }
    return -1;
}

/* The [initial] or [input] entry a domain message is about: the key it names first ("xdm = -1:
 * ... needs xdp >= 0 and xdm >= 0" is initial.xdm's), or for a body's key (initial.a.z) the body
 * it names ("body a ... is 1.1 m inside the obstacle"); the last entry of that key or body (a
 * --set after the file's line); NULL if it names none. */
static const entry *entry_named_in(const char *message, const entry *entries, int count)
{
    const entry *found = NULL;
    long first = -1;
    for (int i = 0; i < count; i++) {
        if (strcmp(entries[i].section, "initial") != 0 && strcmp(entries[i].section, "input") != 0)
            continue;
        long at = word_at(message, entries[i].key);
        const char *dot = strchr(entries[i].key, '.');
        if (at < 0 && dot) { /* BODY.x: "body BODY" */
            char body[sizeof entries[i].key + 8];
            snprintf(body, sizeof body, "body %.*s", (int)(dot - entries[i].key),
                     entries[i].key);
            at = word_at(message, body);
        }
        if (at >= 0 && (first < 0 || at <= first)) {
            first = at;
            found = &entries[i];
        }
    }
    return found;
}

/* The model's domain (e.g. forward-only motion): the initial state with every input extreme. A
 * refusal names the line (or the --set) of the value the model's message is about, when it names
 * one; else the initial state and input as a whole. */
static rs_error check_domain(parse_ctx *c, const rs_scenario *sc, const entry *entries, int count)
{
    const rs_model *m = sc->model;
    if (!m->check_step)
        return RS_OK;
    const rs_input_schedule *in = &sc->input;
    const int cases = in->kind == RS_INPUT_PIECEWISE ? in->npieces : 2;
    double *u = malloc(sizeof(double) * ((size_t)m->ninput + 1));
    if (!u)
        return RS_ERR_NOMEM;
    for (int k = 0; k < cases; k++) {
        for (int i = 0; i < m->ninput; i++) {
            if (in->kind == RS_INPUT_PIECEWISE)
                u[i] = in->nvalues[i] ? in->values[i][k] : 0.0;
            else if (in->kind == RS_INPUT_RANDOM)
                u[i] = k == 0 ? in->lo[i] : in->hi[i];
            else
                u[i] = in->constant[i];
        }
        const rs_step_data d = {sc->params, sc->initial, u, sc->dt, sc->variant, &sc->nlp,
                                sc->scene, 0, NULL};
        rs_error_detail why;
        if (m->check_step(&d, &why) != RS_OK) {
            free(u);
            const entry *named = entry_named_in(why.message, entries, count);
            if (named)
                c->e = named;
            return fail(c, "%s", why.message);
        }
    }
    free(u);
    return RS_OK;
}

/* 1 if the len characters at name are one of a scenario's sections. */
static int is_section(const char *name, size_t len)
{
    static const char *const sections[] = {"model", "initial", "input", "run",
                                           "nlp",   "lemke",   "expect"};
    for (size_t k = 0; k < sizeof sections / sizeof sections[0]; k++)
        if (strlen(sections[k]) == len && strncmp(name, sections[k], len) == 0)
            return 1;
    return 0;
}

/* Every [section] line of the text names a known section, also one without keys, which the
 * entries never show (a misspelt empty [expcet] was taken silently). */
static rs_error check_section_lines(const char *path, const char *text, rs_error_detail *detail)
{
    int line = 1;
    for (const char *p = text; *p; line++) {
        const char *end = strchr(p, '\n');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        size_t i = 0;
        while (i < len && (p[i] == ' ' || p[i] == '\t'))
            i++;
        if (i < len && p[i] == '[') {
            const char *close = memchr(p + i, ']', len - i);
            const size_t n = close ? (size_t)(close - (p + i + 1)) : 0;
            if (close && !is_section(p + i + 1, n))
                return rs_detail_set(detail, RS_ERR_PARSE,
                                     "%s:%d: [%.*s]: unknown section (expected model, initial, "
                                     "input, run, nlp, lemke, expect)",
                                     path, line, (int)(n < 60 ? n : 60), p + i + 1);
        }
        p += len + (end ? 1 : 0);
    }
    return RS_OK;
}

static rs_error interpret(const char *path, const char *const *scene_text, entry *entries,
                          int count, rs_scenario *sc, rs_error_detail *detail)
{
    static const entry model_section = {"model", "name", "", -1};
    static const entry input_section = {"input", "type", "", -1};
    parse_ctx c = {path, detail, &model_section, scene_text != NULL,
                   scene_text ? *scene_text : NULL};
    /* The model first: it decides which keys exist. The last name given wins (--set). */
    const entry *name = NULL;
    for (int i = 0; i < count; i++)
        if (strcmp(entries[i].section, "model") == 0 && strcmp(entries[i].key, "name") == 0)
            name = &entries[i];
    if (!name) { /* a misspelt section ([MODEL], [ model ], a key before any) says more */
        for (int i = 0; i < count; i++) {
            if (!is_section(entries[i].section, strlen(entries[i].section))) {
                c.e = &entries[i];
                return fail(&c, "%s (expected model, initial, input, run, nlp, lemke, expect)",
                            entries[i].section[0] ? "unknown section"
                                                  : "a key before any [section]");
            }
        }
        return rs_detail_set(detail, RS_ERR_PARSE, "%s: model.name: missing ([model] name = ...)", path);
    }
    const rs_model *m = rs_model_find(name->value);
    if (!m) {
        char list[300] = "";
        for (int i = 0; i < rs_model_count(); i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     rs_model_at(i)->name);
        c.e = name;
        return fail(&c, "unknown model '%s' (models: %s)", name->value, list);
    }
    /* a scenario given as text with its scene as text: the scene is that text, with or without
     * a [model] scene line to name it (the line's file is never opened) */
    static const entry scene_given = {"model", "scene", "scene_text", -1};
    const int takes_scene = m->instantiate || m->needs_scene;
    if (c.scene_text && !takes_scene) {
        c.e = name;
        return fail(&c, "model %s takes no scene, yet a scene text was given", m->name);
    }
    if (m->instantiate) { /* the model is its scene's: the scene first, then the model of it */
        const entry *scene = c.scene_text ? &scene_given : NULL;
        for (int i = 0; i < count; i++)
            if (strcmp(entries[i].section, "model") == 0 && strcmp(entries[i].key, "scene") == 0)
                scene = &entries[i];
        if (!scene) {
            c.e = name;
            return fail(&c, "model %s needs a scene: [model] scene = FILE (the bodies and "
                            "obstacles; docs/bodies.md)", m->name);
        }
        c.e = scene;
        TRY(load_scene(&c, sc));
        rs_model *inst = NULL;
        rs_error_detail why;
        const rs_error err = m->instantiate(m, sc->scene, &inst, &why);
        if (err != RS_OK)
            return err == RS_ERR_NOMEM ? err : fail(&c, "%s", why.message);
        sc->model_instance = inst;
        m = inst;
    }
    TRY(scenario_defaults(sc, m));
    for (int i = 0; i < count; i++) {
        const entry *e = &entries[i];
        c.e = e;
        /* Duplicates within the file are errors; --set entries override. */
        for (int j = 0; j < i && e->line > 0; j++)
            if (entries[j].line > 0 && strcmp(entries[j].section, e->section) == 0 &&
                strcmp(entries[j].key, e->key) == 0)
                return fail(&c, "duplicate key (first given at line %d)", entries[j].line);
        rs_error err;
        if (strcmp(e->section, "model") == 0)
            err = apply_model(&c, sc);
        else if (strcmp(e->section, "initial") == 0)
            err = apply_initial(&c, sc);
        else if (strcmp(e->section, "input") == 0)
            err = apply_input(&c, sc);
        else if (strcmp(e->section, "run") == 0)
            err = apply_run(&c, sc);
        else if (strcmp(e->section, "nlp") == 0)
            err = apply_nlp(&c, sc);
        else if (strcmp(e->section, "lemke") == 0)
            err = apply_lemke(&c, sc);
        else if (strcmp(e->section, "expect") == 0)
            err = apply_expect(&c, sc);
        else
            err = fail(&c, "unknown section [%s] (expected model, initial, input, run, nlp, lemke, "
                           "expect)", e->section);
        if (err != RS_OK)
            return err;
    }
    if (m->needs_scene && !sc->scene && c.scene_text) {
        c.e = &scene_given;
        TRY(load_scene(&c, sc));
    }
    if (m->needs_scene && !sc->scene) {
        c.e = name;
        return fail(&c, "model %s needs a scene: [model] scene = FILE (docs/models.md, "
                    "docs/bodies.md)", m->name);
    }
    if (sc->nlp.relax_lcp && rs_model_own_nlp(m) && !m->lcp_units) { /* [nlp] before [model] */
        static const entry form = {"nlp", "form", "relaxation", -1};
        c.e = &form;
        return fail(&c, "model %s has no relaxation (its LCP has no units to pose it in): use own",
                    m->name);
    }
    c.e = &input_section; /* whole-section checks */
    TRY(check_inputs(&c, sc, entries, count));
    static const entry initial_section = {"initial state and input", "", "", -1};
    c.e = &initial_section;
    TRY(check_domain(&c, sc, entries, count));
    return RS_OK;
}

/* The whole file at path as text (malloc'd); a NUL byte inside is named with its line. */
static rs_error read_scenario_file(const char *path, char **text, rs_error_detail *detail)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return rs_detail_set(detail, RS_ERR_IO, "%s: is a directory, not a file", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return rs_detail_set(detail, RS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0;) {
        len += got;
        if (cap - len < 2) {
            char *more = cap < ((size_t)1 << 26) ? realloc(buf, 2 * cap) : NULL;
            if (!more) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = more;
            cap *= 2;
        }
    }
    const int failed = ferror(f);
    fclose(f);
    if (!buf)
        return rs_detail_set(detail, RS_ERR_IO, "%s: too large for a scenario (64 MB)", path);
    if (failed) {
        free(buf);
        return rs_detail_set(detail, RS_ERR_IO, "%s: read error", path);
    }
    buf[len] = '\0';
    const size_t nul = strlen(buf);
    if (nul < len) {
        int line = 1;
        for (size_t i = 0; i < nul; i++)
            line += buf[i] == '\n';
        free(buf);
        return rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: a NUL byte (not a text file?)", path,
                             line);
    }
    *text = buf;
    return RS_OK;
}

/* [b, e) without the blanks (spaces, tabs) at its ends: *len characters from the result. */
static const char *trim_span(const char *b, const char *e, int *len)
{
    while (b < e && (*b == ' ' || *b == '\t'))
        b++;
    while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    *len = (int)(e - b);
    return b;
}

/* An override "section.key=value" split as a line of the file is: each part without the blanks
 * at its ends ("model.mu = 0.2"). 0 if it is not of that form (no dot before the =, or an empty
 * section or key). */
typedef struct override_parts {
    const char *section, *key, *value;
    int section_len, key_len, value_len;
} override_parts;

static int split_override(const char *o, override_parts *p)
{
    const char *dot = strchr(o, '.'), *eq = strchr(o, '=');
    if (!dot || !eq || dot > eq)
        return 0;
    p->section = trim_span(o, dot, &p->section_len);
    p->key = trim_span(dot + 1, eq, &p->key_len);
    p->value = trim_span(eq + 1, eq + strlen(eq), &p->value_len);
    return p->section_len > 0 && p->key_len > 0;
}

/* 1 if the override sets model.scene as the loader reads it (split_override: "model . scene=F"
 * sets it too). */
int rs_override_sets_scene(const char *override)
{
    override_parts p;
    return split_override(override, &p) && p.section_len == 5 &&
           strncmp(p.section, "model", 5) == 0 && p.key_len == 5 && strncmp(p.key, "scene", 5) == 0;
}

/* Load from the file at path, or (text != NULL) from text named path in messages, with its scene
 * as *scene_text. */
static rs_error load(const char *path, const char *text, const char *const *scene_text,
                     const char *const *overrides, int noverrides, rs_scenario *out,
                     rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!path || !out || (noverrides > 0 && !overrides))
        return RS_ERR_NULL_ARG;
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path);
    entry *entries = calloc(MAX_ENTRIES, sizeof(entry));
    if (!entries)
        return RS_ERR_NOMEM;
    int count = 0;
    rs_error err = RS_OK;
    if (text) {
        out->text = strdup(text);
    } else { /* the file read once: what is parsed is what a capsule keeps */
        err = read_scenario_file(path, &out->text, detail);
    }
    if (err == RS_OK && !out->text)
        err = RS_ERR_NOMEM;
    if (err == RS_OK)
        err = rs_ini_read_entries_text(path, out->text, entries, MAX_ENTRIES, &count, detail);
    if (err == RS_OK)
        err = check_section_lines(path, out->text, detail);
    for (int k = 0; err == RS_OK && k < noverrides; k++) {
        const char *o = overrides[k];
        override_parts p;
        if (!split_override(o, &p) || count >= MAX_ENTRIES) {
            err = rs_detail_set(detail, RS_ERR_PARSE,
                                "--set %s: expected section.key=value (e.g. model.mu=0.2)", o);
            break;
        }
        entry *e = &entries[count++];
        snprintf(e->section, sizeof e->section, "%.*s", p.section_len, p.section);
        snprintf(e->key, sizeof e->key, "%.*s", p.key_len, p.key);
        snprintf(e->value, sizeof e->value, "%.*s", p.value_len, p.value);
        e->line = 0;
    }
    if (err == RS_OK)
        err = interpret(path, scene_text, entries, count, out, detail);
    free(entries);
    if (err != RS_OK)
        rs_scenario_release(out); /* a failed load owns nothing */
    return err;
}

rs_error rs_scenario_load(const char *path, const char *const *overrides, int noverrides,
                          rs_scenario *out, rs_error_detail *detail)
{
    const locale_t caller = rs_c_locale_enter(); /* numbers and messages in the C locale */
    const rs_error err = load(path, NULL, NULL, overrides, noverrides, out, detail);
    rs_c_locale_leave(caller);
    return err;
}

rs_error rs_scenario_load_text(const char *name, const char *text, const char *scene_text,
                               const char *const *overrides, int noverrides, rs_scenario *out,
                               rs_error_detail *detail)
{
    if (!text)
        return RS_ERR_NULL_ARG;
    const locale_t caller = rs_c_locale_enter();
    const rs_error err = load(name, text, &scene_text, overrides, noverrides, out, detail);
    rs_c_locale_leave(caller);
    return err;
}
