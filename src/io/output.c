/* output.c: trajectory CSV, shadow CSV, per-step JSON Lines and summary.json (see output.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/output.h"
#include "io/ini_entries.h"
#include "core/detail.h"

const char *rs_step_status_name(rs_backend backend, const rs_step_result *s)
{
    return backend == RS_BACKEND_NLP ? rs_nlp_status_name((rs_nlp_status)s->status)
                                     : rs_lemke_status_name((rs_lemke_status)s->status);
}

rs_error rs_make_directory(const char *path, rs_error_detail *detail)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return rs_detail_set(detail, RS_ERR_IO, "%s: cannot create: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return rs_detail_set(detail, RS_ERR_IO, "%s: cannot create: %s", buf, strerror(errno));
    struct stat st; /* EEXIST: a directory, or a file in the way */
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return rs_detail_set(detail, RS_ERR_IO, "%s: exists and is not a directory", buf);
    return RS_OK;
}





char *rs_read_text_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        const long len = ftell(f);
        if (len >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)len + 1))) {
            if (fread(text, 1, (size_t)len, f) == (size_t)len)
                text[len] = '\0';
            else {
                free(text);
                text = NULL;
            }
        }
    }
    fclose(f);
    return text;
}

cJSON *rs_read_json_file(const char *path)
{
    char *text = rs_read_text_file(path);
    cJSON *o = text ? cJSON_Parse(text) : NULL;
    free(text);
    return o;
}

/* Flush and close, naming the OS error of a failed write (a full disk: ENOSPC). */
rs_error rs_close_written(FILE *f, const char *path, rs_error_detail *detail)
{
    /* The reason: a flush or close that fails says it itself (glibc keeps a failed write's bytes
     * in the buffer, and the flush writes them again); else the errno of the write that failed,
     * if it is one a write sets (a later call, an isatty or an ftell, may have set another since:
     * EIO is said then) */
    const int earlier = ferror(f) ? errno : 0;
    int bad = ferror(f) != 0, e = 0;
    if (fflush(f) != 0) {
        bad = 1;
        e = errno;
    }
    if (fclose(f) != 0) {
        bad = 1;
        e = e ? e : errno;
    }
    if (bad && !e) /* only an errno a write sets is its reason: anything else is stale */
        e = earlier == ENOSPC || earlier == EDQUOT || earlier == EFBIG || earlier == EPIPE ||
                    earlier == EROFS
                ? earlier
                : 0;
    if (bad)
        return rs_detail_set(detail, RS_ERR_WRITE, "%s: cannot write: %s", path,
                             strerror(e ? e : EIO));
    return RS_OK;
}

/* The shortest form that reads back exactly, and "nan" spelled out for a non-finite value. */
static void put_number(FILE *f, double v)
{
    char buf[40];
    fprintf(f, ",%s", rs_format_real(v, buf, sizeof buf));
}

void rs_trajectory_csv_header(FILE *f, const rs_scenario *sc, rs_backend backend)
{
    const rs_model *m = sc->model;
    fprintf(f, "step,t_s");
    for (int i = 0; i < m->ninput; i++)
        fprintf(f, ",%s", m->input_names[i]);
    for (int i = 0; i < m->nstate; i++)
        fprintf(f, ",%s", m->state_names[i]);
    for (int i = 0; i < m->nforce; i++)
        fprintf(f, ",%s", m->force_names[i]);
    for (int i = 0; i < m->ncontacts; i++)
        fprintf(f, m->ncontacts == 1 ? ",mode" : ",mode_%d", i);
    fprintf(f, ",status,%s,primal,complementarity\n",
            backend == RS_BACKEND_NLP ? "iterations" : "pivots");
}

void rs_trajectory_csv_row(FILE *f, const rs_scenario *sc, rs_backend backend, int k,
                           const rs_compare_step *st)
{
    const rs_model *m = sc->model;
    const rs_step_result *s = backend == RS_BACKEND_NLP ? &st->nlp : &st->lemke;
    fprintf(f, "%d", k);
    put_number(f, (k + 1) * sc->dt);
    for (int i = 0; i < m->ninput; i++)
        put_number(f, st->input[i]);
    for (int i = 0; i < m->nstate; i++)
        put_number(f, s->state_next[i]);
    for (int i = 0; i < m->nforce; i++)
        put_number(f, s->forces[i]);
    for (int i = 0; i < m->ncontacts; i++)
        fprintf(f, ",%s", rs_contact_mode_name(s->modes[i]));
    fprintf(f, ",%s,%d", rs_step_status_name(backend, s), s->iterations);
    put_number(f, s->primal);
    put_number(f, s->complementarity);
    fputc('\n', f);
}

void rs_contacts_csv_header(FILE *f)
{
    fprintf(f, "step,t_s,contact,a,b,x_m,z_m,nx,nz,gap_m,fn_N,ft_N\n");
}

void rs_contacts_csv_rows(FILE *f, const rs_scenario *sc, rs_backend backend, int k,
                          const rs_compare_step *st)
{
    const rs_step_result *s = backend == RS_BACKEND_NLP ? &st->nlp : &st->lemke;
    const rs_scene *scene = sc->scene;
    for (int i = 0; s->geometry && i < s->ncontact; i++) {
        const rs_contact_geometry *g = &s->geometry[i];
        fprintf(f, "%d", k);
        put_number(f, (k + 1) * sc->dt);
        fprintf(f, ",%d,%s,%s", i, rs_scene_body_name(scene, g->a), rs_scene_body_name(scene, g->b));
        const double v[7] = {g->point[0],  g->point[1],       g->normal[0],      g->normal[1],
                             g->gap,       s->contact[2 * i], s->contact[2 * i + 1]};
        for (int j = 0; j < 7; j++)
            put_number(f, v[j]);
        fputc('\n', f);
    }
}

void rs_shadow_csv_header(FILE *f, const rs_scenario *sc)
{
    const rs_model *m = sc->model;
    fprintf(f, "step,t_s");
    for (int c = 0; c < m->nstate + m->nforce; c++)
        fprintf(f, ",diff_%s", c < m->nstate ? m->state_names[c] : m->force_names[c - m->nstate]);
    fprintf(f, ",verdict,verdict_code,nlp_ok,lemke_ok,nlp_iterations,nlp_time_us\n");
}

void rs_shadow_csv_row(FILE *f, const rs_scenario *sc, int k, const rs_compare_step *st)
{
    const rs_model *m = sc->model;
    fprintf(f, "%d", k);
    put_number(f, (k + 1) * sc->dt);
    for (int c = 0; c < m->nstate + m->nforce; c++)
        put_number(f, st->diff[c]);
    fprintf(f, ",%s,%d,%d,%d,%d", rs_verdict_name(st->verdict), (int)st->verdict, st->nlp.ok,
            st->shadow.ok, st->nlp.iterations);
    put_number(f, 1e6 * st->nlp.time_s);
    fputc('\n', f);
}

cJSON *rs_step_result_json(const rs_model *m, rs_backend backend, const rs_step_result *s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "status", rs_step_status_name(backend, s));
    cJSON_AddBoolToObject(o, "ok", s->ok);
    cJSON_AddNumberToObject(o, backend == RS_BACKEND_NLP ? "iterations" : "pivots", s->iterations);
    cJSON_AddNumberToObject(o, "lcp_size", s->lcp_size);
    if (backend == RS_BACKEND_NLP) {
        cJSON_AddNumberToObject(o, "attempts", s->attempts);
        cJSON_AddBoolToObject(o, "at_start", s->at_start);
        cJSON_AddBoolToObject(o, "polished", s->polished);
        cJSON_AddStringToObject(o, "path", rs_nlp_path_name(s->path));
        cJSON_AddBoolToObject(o, "stacked", s->stacked);
        if (s->stacked) {
            cJSON_AddBoolToObject(o, "split", s->split);
            cJSON_AddNumberToObject(o, "stack_iterations", s->stack_iterations);
        }
        cJSON *paths = cJSON_AddObjectToObject(o, "paths"); /* every path tried */
        for (int p = 0; p < RS_PATH_COUNT; p++) {
            if (!s->path_attempts[p])
                continue;
            cJSON *pj = cJSON_AddObjectToObject(paths, rs_nlp_path_name(p));
            cJSON_AddNumberToObject(pj, "attempts", s->path_attempts[p]);
            if (rs_nlp_path_is_ipopt(p))
                cJSON_AddNumberToObject(pj, "iterations", s->path_iterations[p]);
            if (p == RS_PATH_IPOPT_WARM)
                cJSON_AddStringToObject(pj, "start",
                                        s->warm_from == RS_PATH_START_CONTACT_FREE ? "contact_free"
                                                                                   : "previous");
        }
    }
    cJSON_AddNumberToObject(o, "time_us", 1e6 * s->time_s);
    cJSON_AddNumberToObject(o, "primal", s->primal);
    cJSON_AddNumberToObject(o, "complementarity", s->complementarity);
    cJSON *modes = cJSON_AddArrayToObject(o, "modes");
    for (int i = 0; i < m->ncontacts; i++)
        cJSON_AddItemToArray(modes, cJSON_CreateString(rs_contact_mode_name(s->modes[i])));
    cJSON *state = cJSON_AddObjectToObject(o, "state");
    for (int i = 0; i < m->nstate; i++)
        cJSON_AddNumberToObject(state, m->state_names[i], s->state_next[i]);
    cJSON *forces = cJSON_AddObjectToObject(o, "forces");
    for (int i = 0; i < m->nforce; i++)
        cJSON_AddNumberToObject(forces, m->force_names[i], s->forces[i]);
    return o;
}

rs_error rs_steps_jsonl_row(FILE *f, const rs_scenario *sc, int k, const rs_compare_step *st)
{
    const rs_model *m = sc->model;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "step", k);
    cJSON_AddNumberToObject(o, "t_s", (k + 1) * sc->dt);
    cJSON *in = cJSON_AddObjectToObject(o, "input");
    for (int i = 0; i < m->ninput; i++)
        cJSON_AddNumberToObject(in, m->input_names[i], st->input[i]);
    cJSON_AddItemToObject(o, "nlp", rs_step_result_json(m, RS_BACKEND_NLP, &st->nlp));
    cJSON_AddItemToObject(o, "lemke", rs_step_result_json(m, RS_BACKEND_LEMKE, &st->shadow));
    cJSON *diff = cJSON_AddObjectToObject(o, "diff");
    for (int c = 0; c < m->nstate + m->nforce; c++)
        cJSON_AddNumberToObject(diff, c < m->nstate ? m->state_names[c]
                                                    : m->force_names[c - m->nstate],
                                st->diff[c]);
    cJSON_AddStringToObject(o, "verdict", rs_verdict_name(st->verdict));
    cJSON_AddBoolToObject(o, "fallback", st->fallback);
    char *text = cJSON_PrintUnformatted(o);
    if (text)
        fprintf(f, "%s\n", text);
    free(text);
    cJSON_Delete(o);
    return text ? RS_OK : RS_ERR_NOMEM; /* out of memory: the file must not count as whole */
}

static cJSON *columns_json(const rs_compare_result *r, const double *values)
{
    cJSON *o = cJSON_CreateObject();
    for (int c = 0; c < r->ncol; c++)
        cJSON_AddNumberToObject(o, r->col_names[c], values[c]);
    return o;
}

static cJSON *trajectory_json(const rs_compare_result *r, const rs_trajectory_stats *t, int nlp)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "failed_steps", t->failed_steps);
    cJSON *counts = cJSON_AddObjectToObject(o, "status_counts");
    for (int st = 0; st < RS_STATUS_SLOTS; st++) {
        const rs_step_result probe = {.status = st};
        const char *name = rs_step_status_name(nlp ? RS_BACKEND_NLP : RS_BACKEND_LEMKE, &probe);
        if (t->status_counts[st] && strcmp(name, "unknown") != 0)
            cJSON_AddNumberToObject(counts, name, t->status_counts[st]);
    }
    cJSON_AddNumberToObject(o, nlp ? "iterations_mean" : "pivots_mean", t->iterations_mean);
    cJSON_AddNumberToObject(o, "us_per_step_median", t->us_per_step_median);
    cJSON_AddNumberToObject(o, "us_per_step_mean", t->us_per_step_mean);
    cJSON_AddNumberToObject(o, "us_per_step_max", t->us_per_step_max);
    cJSON_AddNumberToObject(o, "first_contact_step", t->first_contact_step);
    cJSON_AddNumberToObject(o, "rest_time_s", t->rest_time_s);
    cJSON_AddItemToObject(o, "min", columns_json(r, t->min));
    cJSON_AddItemToObject(o, "max", columns_json(r, t->max));
    return o;
}

void rs_add_skipped_checks(cJSON *o, const char *name, const rs_compare_result *r)
{
    cJSON *skipped = cJSON_AddArrayToObject(o, name);
    for (int i = 0; i < r->nskipped; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "check", r->skipped[i].check->text);
        cJSON_AddStringToObject(e, "reason", r->skipped[i].reason);
        cJSON_AddItemToArray(skipped, e);
    }
}

char *rs_summary_json_text(const rs_scenario *sc, const rs_compare_result *r)
{
    const rs_model *m = sc->model;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "scenario", sc->path);
    cJSON_AddStringToObject(o, "model", m->name);
    cJSON_AddStringToObject(o, "variant", m->variants[sc->variant]);
    cJSON_AddStringToObject(o, "nlp_form",
                            !rs_model_own_nlp(m) || sc->nlp.relax_lcp ? "relaxation" : "own");
    cJSON *params = cJSON_AddObjectToObject(o, "params");
    for (int i = 0; i < m->nparams; i++)
        cJSON_AddNumberToObject(params, m->params[i].name, sc->params[i]);
    if (sc->scene) { /* where it came from, and its text (what relaxsim plot draws: a file a
                        results directory names is never opened) */
        char *abs = realpath(sc->scene_path, NULL);
        cJSON_AddStringToObject(o, "scene", abs ? abs : sc->scene_path);
        free(abs);
        if (sc->scene_text)
            cJSON_AddStringToObject(o, "scene_text", sc->scene_text);
    }
    cJSON_AddNumberToObject(o, "steps", r->steps);
    cJSON_AddNumberToObject(o, "dt_s", sc->dt);
    const int has_nlp = r->mode != RS_RUN_LEMKE, has_lemke = r->mode != RS_RUN_NLP;
    if (has_nlp) {
        cJSON *n = trajectory_json(r, &r->nlp, 1);
        cJSON_AddNumberToObject(n, "retried_steps", r->nlp.retried_steps);
        cJSON_AddNumberToObject(n, "at_start_steps", r->nlp.at_start_steps);
        cJSON_AddNumberToObject(n, "polished_steps", r->nlp.polished_steps);
        cJSON_AddNumberToObject(n, "ipopt_steps", r->nlp.ipopt_steps);
        cJSON_AddNumberToObject(n, "us_per_ipopt_step_median", r->nlp.us_per_ipopt_step_median);
        cJSON_AddNumberToObject(n, "iterations_per_ipopt_step", r->nlp.iterations_per_ipopt_step);
        cJSON_AddNumberToObject(n, "ipopt_steps_no_iteration", r->nlp.ipopt_steps_no_iteration);
        cJSON_AddNumberToObject(n, "us_per_iterating_ipopt_step_median",
                                r->nlp.us_per_iterating_ipopt_step_median);
        cJSON_AddNumberToObject(n, "warm_from_contact_free_steps",
                                r->nlp.warm_from_contact_free_steps);
        cJSON_AddNumberToObject(n, "stacked_steps", r->nlp.stacked_steps);
        cJSON *paths = cJSON_AddObjectToObject(n, "paths"); /* steps per path that solved them */
        for (int p = 0; p < RS_PATH_COUNT; p++)
            cJSON_AddNumberToObject(paths, rs_nlp_path_name(p), r->nlp.path_counts[p]);
        cJSON_AddNumberToObject(n, "fallback_steps", r->fallback_steps);
        cJSON_AddItemToObject(o, "nlp", n);
    }
    if (has_lemke) {
        cJSON *l = trajectory_json(r, &r->lemke, 0);
        cJSON_AddNumberToObject(l, "warm_started_steps", r->lemke.warm_started_steps);
        cJSON_AddNumberToObject(l, "shadow_failed_steps", r->shadow_failed_steps);
        cJSON_AddItemToObject(o, "lemke", l);
    }
    if (r->mode == RS_RUN_COMPARE) {
        cJSON *sh = cJSON_AddObjectToObject(o, "shadow");
        cJSON_AddItemToObject(sh, "max_abs_diff", columns_json(r, r->shadow_max_abs));
        cJSON_AddNumberToObject(sh, "mode_agreement", r->mode_agreement);
        cJSON *v = cJSON_AddObjectToObject(sh, "verdicts");
        for (int i = 0; i < RS_VERDICT_COUNT; i++)
            cJSON_AddNumberToObject(v, rs_verdict_name((rs_verdict)i), r->verdicts[i]);
        cJSON *dr = cJSON_AddObjectToObject(o, "drift");
        cJSON_AddItemToObject(dr, "max_abs_diff", columns_json(r, r->drift_max_abs));
        cJSON *caps = cJSON_AddArrayToObject(o, "capsules"); /* io/capsule.h */
        for (int i = 0; i < r->ncapsules; i++) {
            char name[64];
            snprintf(name, sizeof name, "capsules/step_%d.json", r->capsules[i].step);
            cJSON_AddItemToArray(caps, cJSON_CreateString(name));
        }
        cJSON_AddNumberToObject(o, "capsules_omitted", r->capsules_omitted);
    }
    cJSON *fin = cJSON_AddObjectToObject(o, "final");
    if (has_nlp)
        cJSON_AddItemToObject(fin, "nlp", columns_json(r, r->nlp.final));
    if (has_lemke)
        cJSON_AddItemToObject(fin, "lemke", columns_json(r, r->lemke.final));
    cJSON *ct = cJSON_AddObjectToObject(o, "contract");
    cJSON_AddBoolToObject(ct, "passed", r->contract_passed);
    cJSON_AddNumberToObject(ct, "declared_checks", r->declared_checks);
    cJSON_AddNumberToObject(ct, "applied_checks", r->applied_checks);
    rs_add_skipped_checks(ct, "skipped", r);
    cJSON *checks = cJSON_AddArrayToObject(ct, "checks");
    cJSON *failed = cJSON_AddArrayToObject(ct, "failed");
    for (int i = 0; i < r->nchecks; i++) {
        const rs_check_result *c = &r->checks[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "check", c->check->text);
        cJSON_AddStringToObject(e, "applies_to", c->which);
        cJSON_AddNumberToObject(e, "actual", c->actual);
        cJSON_AddBoolToObject(e, "passed", c->passed);
        if (!isnan(c->unit)) { /* a check on a column: its natural unit and its bound's floor */
            cJSON_AddNumberToObject(e, "unit", c->unit);
            cJSON_AddNumberToObject(e, "floor", c->floor);
        }
        cJSON_AddItemToArray(checks, e);
        if (!c->passed) {
            char text[200];
            snprintf(text, sizeof text, "%s (%s)", c->check->text, c->which);
            cJSON_AddItemToArray(failed, cJSON_CreateString(text));
        }
    }
    cJSON_AddNumberToObject(o, "wall_time_s", r->wall_time_s);
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    return text;
}

rs_error rs_write_json_stream(FILE *f, char *text)
{
    if (!text)
        return RS_ERR_NOMEM;
    fprintf(f, "%s\n", text);
    free(text);
    return RS_OK;
}
