/* grad_output.c: the files of relaxsim grad (see grad_output.h). */
#include <cjson/cJSON.h>
#include <stdlib.h>

#include "io/grad_output.h"
#include "io/ini_entries.h"
#include "io/output.h"
#include "nlp/kkt_sensitivity.h"
#include "relaxsim/lcp_derivative.h"

static void put_number(FILE *f, double v)
{
    char buf[40];
    fprintf(f, ",%s", rs_format_real(v, buf, sizeof buf));
}

static const char gradient_columns[] =
    "output,key,value,lcp,nlp,fd,fd_step,rel_lcp_fd,rel_nlp_fd,switch_step,verdict,fd_nlp,"
    "rel_nlp_fd_nlp,fd_sided";

/* One row per (output, key), after the given leading fields. */
static void gradient_rows(FILE *f, const char *lead, const rs_grad_config *cfg,
                          const rs_grad_result *r)
{
    for (int o = 0; o < r->noutputs; o++)
        for (int j = 0; j < r->nkeys; j++) {
            const rs_grad_entry *e = &r->entries[o * r->nkeys + j];
            fprintf(f, "%s%s,%s", lead, cfg->outputs[o].name, cfg->keys[j].name);
            const double v[] = {e->value,   e->lcp,     e->nlp,    e->fd,
                                e->fd_step, e->rel_lcp, e->rel_nlp};
            for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
                put_number(f, v[i]);
            fprintf(f, ",%d,%s", e->switch_step, rs_grad_verdict_name(e->verdict));
            put_number(f, e->fd_nlp);
            put_number(f, e->rel_nlp_fdnlp);
            fprintf(f, ",%d\n", e->fd_sided);
        }
}

void rs_write_gradients_csv(FILE *f, const rs_grad_config *cfg, const rs_grad_result *r)
{
    fprintf(f, "%s\n", gradient_columns);
    gradient_rows(f, "", cfg, r);
}

void rs_sweep_csv_header(FILE *f, const char *swept_key)
{
    fprintf(f, "%s,%s\n", swept_key, gradient_columns);
}

void rs_sweep_csv_rows(FILE *f, double swept_value, const rs_grad_config *cfg,
                       const rs_grad_result *r)
{
    char buf[40], lead[48];
    snprintf(lead, sizeof lead, "%s,", rs_format_real(swept_value, buf, sizeof buf));
    gradient_rows(f, lead, cfg, r);
}

void rs_write_tangents_csv(FILE *f, const rs_scenario *sc, const rs_grad_config *cfg,
                           const rs_grad_result *r)
{
    fprintf(f, "step,t_s,key,method,status");
    for (int c = 0; c < r->ncol; c++)
        fprintf(f, ",d_%s", r->col_names[c]);
    fputc('\n', f);
    for (int k = 0; k < r->steps; k++) {
        const rs_grad_step *gs = &r->step[k];
        for (int j = 0; j < r->nkeys; j++)
            for (int method = 0; method < 2; method++) {
                const int st = method == 0 ? gs->lcp_status : gs->nlp_status;
                const char *status;
                if (st == RS_GRAD_STEP_FAILED)
                    status = "step_failed";
                else if (st == RS_GRAD_AFTER_FAILURE)
                    status = "after_failure";
                else if (method == 1)
                    status = rs_kkt_sensitivity_status_name(st);
                else if (st == RS_LCP_DERIVATIVE_FLOATING_FAILED)
                    status = "tie_break"; /* the right answer, by the clamping tie-break */
                else
                    status = rs_lcp_derivative_status_name(st);
                fprintf(f, "%d", k);
                put_number(f, (k + 1) * sc->dt);
                fprintf(f, ",%s,%s,%s", cfg->keys[j].name, method == 0 ? "lcp" : "nlp", status);
                const double *t = (method == 0 ? r->lcp_tangent : r->nlp_tangent) +
                                  ((size_t)k * r->nkeys + j) * r->ncol;
                for (int c = 0; c < r->ncol; c++)
                    put_number(f, t[c]);
                fputc('\n', f);
            }
    }
}

rs_error rs_write_grad_json(FILE *f, const rs_scenario *sc, const rs_grad_config *cfg,
                            const rs_grad_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "scenario", sc->path);
    cJSON_AddStringToObject(o, "model", sc->model->name);
    cJSON_AddNumberToObject(o, "steps", r->steps);
    cJSON_AddNumberToObject(o, "dt", sc->dt);
    cJSON_AddNumberToObject(o, "nlp_tol", sc->nlp.tol);
    cJSON_AddNumberToObject(o, "fd_rel", cfg->fd_rel);
    cJSON_AddNumberToObject(o, "rtol", cfg->rtol);
    if (cfg->fd_nlp)
        cJSON_AddNumberToObject(o, "fd_nlp_rel", cfg->fd_nlp_rel);
    cJSON *keys = cJSON_AddArrayToObject(o, "keys");
    for (int j = 0; j < cfg->nkeys; j++)
        cJSON_AddItemToArray(keys, cJSON_CreateString(cfg->keys[j].name));
    cJSON *outs = cJSON_AddArrayToObject(o, "outputs");
    for (int i = 0; i < cfg->noutputs; i++)
        cJSON_AddItemToArray(outs, cJSON_CreateString(cfg->outputs[i].name));
    cJSON *v = cJSON_AddObjectToObject(o, "verdicts");
    for (int i = 0; i < RS_GRAD_VERDICT_COUNT; i++)
        cJSON_AddNumberToObject(v, rs_grad_verdict_name((rs_grad_verdict)i), r->verdicts[i]);
    cJSON_AddNumberToObject(o, "lcp_fd_max_rel", r->lcp_fd_max_rel);
    cJSON_AddNumberToObject(o, "nlp_fd_max_rel", r->nlp_fd_max_rel);
    cJSON_AddNumberToObject(o, "lcp_failed_steps", r->lcp_failed_steps);
    cJSON_AddNumberToObject(o, "nlp_failed_steps", r->nlp_failed_steps);
    cJSON_AddNumberToObject(o, "lcp_singular_steps", r->lcp_singular_steps);
    cJSON_AddNumberToObject(o, "floating_steps", r->floating_steps);
    cJSON_AddNumberToObject(o, "tiebreak_steps", r->tiebreak_steps);
    cJSON_AddNumberToObject(o, "max_sensitivity_residual", r->max_sens_residual);
    cJSON *t = cJSON_AddObjectToObject(o, "time_s");
    cJSON_AddNumberToObject(t, "lcp", r->lcp_time_s);
    cJSON_AddNumberToObject(t, "nlp", r->nlp_time_s);
    cJSON_AddNumberToObject(t, "fd", r->fd_time_s);
    cJSON *checks = cJSON_AddArrayToObject(o, "checks");
    for (int i = 0; i < r->nchecks; i++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "check", r->checks[i].check->text);
        cJSON_AddNumberToObject(c, "actual", r->checks[i].actual);
        cJSON_AddBoolToObject(c, "passed", r->checks[i].passed);
        cJSON_AddItemToArray(checks, c);
    }
    cJSON_AddBoolToObject(o, "contract_passed", r->contract_passed);
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    return rs_write_json_stream(f, text);
}
