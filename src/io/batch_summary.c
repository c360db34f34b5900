/* batch_summary.c: sorted, timing-free summary of a batch (see batch_summary.h). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/batch_summary.h"
#include "io/outset.h"
#include "io/output.h"
#include "io/ini_entries.h"
#include "core/detail.h"

typedef struct run_entry {
    long run;
    cJSON *json;
} run_entry;

static int by_run(const void *a, const void *b)
{
    const long x = ((const run_entry *)a)->run, y = ((const run_entry *)b)->run;
    return (x > y) - (x < y);
}

static rs_batch_group *group_of(rs_batch_summary *s, int key, double value)
{
    for (int g = 0; g < s->ngroups[key]; g++)
        if (s->groups[key][g].value == value)
            return &s->groups[key][g];
    if (s->ngroups[key] >= RS_BATCH_MAX_GROUP_VALUES)
        return NULL;
    rs_batch_group *g = &s->groups[key][s->ngroups[key]++];
    memset(g, 0, sizeof *g);
    g->value = value;
    return g;
}

const char *rs_results_csv_text(const char *word, char *buf, size_t size)
{
    snprintf(buf, size, "%s", word);
    for (char *c = buf; (c = strchr(c, ',')) != NULL; c++)
        *c = ';';
    return buf;
}

static void write_csv_row(FILE *f, const rs_sweep *sw, const cJSON *o, const cJSON *columns)
{
    char num[40], text[RS_SWEEP_WORD_LEN];
    const cJSON *params = cJSON_GetObjectItem(o, "params");
    fprintf(f, "%ld", (long)cJSON_GetObjectItem(o, "run")->valuedouble);
    for (int k = 0; k < sw->nkeys; k++) { /* only a value of the key (a line may be edited) */
        const rs_sweep_key *key = &sw->keys[k];
        double v;
        if (!rs_sweep_param_value(key, cJSON_GetObjectItem(params, key->name), &v))
            fputc(',', f);
        else if (key->words)
            fprintf(f, ",%s", rs_results_csv_text(key->words[(int)v], text, sizeof text));
        else
            fprintf(f, ",%s", rs_format_real(v, num, sizeof num));
    }
    fprintf(f, ",%s", cJSON_GetObjectItem(o, "outcome")->valuestring);
    const cJSON *nf = cJSON_GetObjectItem(o, "nlp_failed_steps");
    const cJSON *ma = cJSON_GetObjectItem(o, "mode_agreement");
    fprintf(f, nf ? ",%d" : ",", nf ? nf->valueint : 0);
    if (cJSON_IsNumber(ma))
        fprintf(f, ",%s", rs_format_real(ma->valuedouble, num, sizeof num));
    else
        fprintf(f, ",");
    const cJSON *worst = cJSON_GetObjectItem(o, "shadow_max_abs");
    for (const cJSON *c = columns ? columns->child : NULL; c; c = c->next) {
        const cJSON *v = cJSON_GetObjectItem(worst, c->string);
        if (cJSON_IsNumber(v))
            fprintf(f, ",%s", rs_format_real(v->valuedouble, num, sizeof num));
        else
            fprintf(f, ",nan"); /* no comparison for this run: its outcome says why */
    }
    fputc('\n', f);
}

rs_error rs_batch_summarize(const char *dir, const rs_sweep *sw, rs_batch_summary *out,
                            rs_error_detail *detail)
{
    memset(out, 0, sizeof *out);
    char path[1200];
    snprintf(path, sizeof path, "%s/results.jsonl", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return rs_detail_set(detail, RS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1024, n = 0;
    run_entry *runs = malloc(cap * sizeof *runs);
    enum { LINE_CAP = 1 << 16 };
    char *line = malloc(LINE_CAP);
    rs_error err = runs && line ? RS_OK : RS_ERR_NOMEM;
    while (err == RS_OK && fgets(line, LINE_CAP, f)) {
        cJSON *o = cJSON_Parse(line);
        const cJSON *run = cJSON_GetObjectItem(o, "run");
        if (!cJSON_IsNumber(run) || !cJSON_IsString(cJSON_GetObjectItem(o, "outcome"))) {
            cJSON_Delete(o);
            err = rs_detail_set(detail, RS_ERR_PARSE, "%s: a line is not a run result", path);
            break;
        }
        cJSON_DeleteItemFromObject(o, "time_s"); /* timings vary; the summary must not */
        cJSON_DeleteItemFromObject(o, "nlp_step_max_us");
        if (n == cap) {
            run_entry *more = realloc(runs, 2 * cap * sizeof *runs);
            if (!more) {
                cJSON_Delete(o);
                err = RS_ERR_NOMEM;
                break;
            }
            runs = more;
            cap *= 2;
        }
        runs[n].run = (long)run->valuedouble;
        runs[n++].json = o;
    }
    free(line);
    fclose(f);
    if (err == RS_OK)
        qsort(runs, n, sizeof *runs, by_run);
    /* columns: those of the first run that has a comparison */
    const cJSON *columns = NULL;
    for (size_t i = 0; i < n && !columns; i++)
        columns = cJSON_GetObjectItem(runs[i].json, "shadow_max_abs");
    cJSON *sum = cJSON_CreateObject();
    cJSON_AddStringToObject(sum, "sweep", sw->path);
    cJSON_AddStringToObject(sum, "scenario", sw->scenario);
    cJSON *keys = cJSON_AddArrayToObject(sum, "keys");
    for (int k = 0; k < sw->nkeys; k++)
        cJSON_AddItemToArray(keys, cJSON_CreateString(sw->keys[k].name));
    cJSON *choices = NULL; /* the words of each key of words, in the sweep's order */
    for (int k = 0; k < sw->nkeys; k++) {
        if (!sw->keys[k].words)
            continue;
        if (!choices)
            choices = cJSON_AddObjectToObject(sum, "choices");
        cJSON *list = cJSON_AddArrayToObject(choices, sw->keys[k].name);
        for (int v = 0; v < sw->keys[k].nvalues; v++)
            cJSON_AddItemToArray(list, cJSON_CreateString(sw->keys[k].words[v]));
    }
    cJSON *results = cJSON_AddArrayToObject(sum, "results");
    /* results.csv and summary.json are written whole and put in place (io/outset.h), the
     * summary last: never torn, also on a full disk */
    char csv_path[1200];
    snprintf(csv_path, sizeof csv_path, "%s/results.csv", dir);
    rs_outfile *csv_out = NULL;
    if (err == RS_OK)
        err = rs_outfile_begin(csv_path, &csv_out, detail);
    FILE *csv = csv_out ? rs_outfile_stream(csv_out) : NULL;
    if (csv) {
        fprintf(csv, "run");
        for (int k = 0; k < sw->nkeys; k++)
            fprintf(csv, ",%s", sw->keys[k].name);
        fprintf(csv, ",outcome,nlp_failed_steps,mode_agreement");
        for (const cJSON *c = columns ? columns->child : NULL; c; c = c->next)
            fprintf(csv, ",shadow_max_abs_%s", c->string);
        fputc('\n', csv);
    }
    for (size_t i = 0; i < n && err == RS_OK; i++) {
        if (i > 0 && runs[i].run == runs[i - 1].run)
            continue; /* never count a run twice */
        const cJSON *o = runs[i].json;
        const char *outcome = cJSON_GetObjectItem(o, "outcome")->valuestring;
        const int passed = strcmp(outcome, "passed") == 0;
        out->runs++;
        out->passed += passed;
        out->contract_failed += strcmp(outcome, "contract_failed") == 0;
        out->bad_input += strcmp(outcome, "bad_input") == 0;
        out->crashed += strcmp(outcome, "crashed") == 0;
        out->keep_errors += cJSON_GetObjectItem(o, "keep_error") != NULL;
        double worst = 0.0;
        char worst_col[32] = "";
        const cJSON *w = cJSON_GetObjectItem(o, "shadow_max_abs");
        for (const cJSON *c = w ? w->child : NULL; c; c = c->next)
            if (cJSON_IsNumber(c) && c->valuedouble > worst) {
                worst = c->valuedouble;
                snprintf(worst_col, sizeof worst_col, "%s", c->string);
            }
        const cJSON *params = cJSON_GetObjectItem(o, "params");
        for (int k = 0; k < sw->nkeys; k++) {
            const cJSON *value = cJSON_GetObjectItem(params, sw->keys[k].name);
            double v;
            rs_batch_group *g =
                rs_sweep_param_value(&sw->keys[k], value, &v) ? group_of(out, k, v) : NULL;
            if (!g) /* a line without this key's value (written by hand): in no group */
                continue;
            g->runs++;
            g->passed += passed;
            if (worst > g->worst) {
                g->worst = worst;
                snprintf(g->worst_column, sizeof g->worst_column, "%s", worst_col);
            }
        }
        write_csv_row(csv, sw, o, columns);
        cJSON_AddItemReferenceToArray(results, runs[i].json);
    }
    cJSON *c = cJSON_AddObjectToObject(sum, "counts");
    cJSON_AddNumberToObject(c, "runs", (double)out->runs);
    cJSON_AddNumberToObject(c, "passed", (double)out->passed);
    cJSON_AddNumberToObject(c, "contract_failed", (double)out->contract_failed);
    cJSON_AddNumberToObject(c, "bad_input", (double)out->bad_input);
    cJSON_AddNumberToObject(c, "crashed", (double)out->crashed);
    if (csv_out && err == RS_OK)
        err = rs_outfile_commit(csv_out, detail);
    else
        rs_outfile_abort(csv_out);
    if (err == RS_OK) {
        snprintf(path, sizeof path, "%s/summary.json", dir);
        rs_outfile *sum_out;
        err = rs_outfile_begin(path, &sum_out, detail);
        if (err == RS_OK) {
            err = rs_write_json_stream(rs_outfile_stream(sum_out), cJSON_Print(sum));
            if (err == RS_OK)
                err = rs_outfile_commit(sum_out, detail);
            else
                rs_outfile_abort(sum_out);
        }
    }
    cJSON_Delete(sum);
    for (size_t i = 0; i < n; i++)
        cJSON_Delete(runs[i].json);
    free(runs);
    return err;
}
