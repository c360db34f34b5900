/* sweep.c: reading sweep files and numbering their runs (see sweep.h). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/c_locale.h"
#include "io/sweep.h"
#include "core/detail.h"
#include "core/rng.h"
#include "io/ini_entries.h"
#include "io/scenario.h"

#define MAX_ENTRIES 64

void rs_sweep_free(rs_sweep *sw)
{
    if (!sw)
        return;
    for (int k = 0; k < sw->nkeys; k++) {
        free(sw->keys[k].values);
        free(sw->keys[k].words);
        sw->keys[k].values = NULL;
        sw->keys[k].words = NULL;
    }
    sw->nkeys = 0;
}

/* The parts of "[random | lograndom] lo .. hi / n [seed s]" (text after the keyword), each
 * parsed strictly (decimal reals, counts without overflow); 0 if the text is not of that form. */
static int parse_range(const char *text, int with_seed, double *lo, double *hi, long *n,
                       long *seed)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    char *dots = strstr(buf, ".."), *slash = strchr(buf, '/');
    if (!dots || !slash || slash < dots)
        return 0;
    *dots = '\0';
    *slash = '\0';
    char *count = slash + 1, *seed_text = NULL;
    if (with_seed) {
        seed_text = strstr(count, "seed");
        if (!seed_text)
            return 0;
        *seed_text = '\0';
        seed_text += 4;
    }
    return rs_parse_real(buf, lo) == 1 && rs_parse_real(dots + 2, hi) == 1 &&
           rs_parse_count(count, 1, RS_SWEEP_MAX_VALUES, n) &&
           (!with_seed || rs_parse_count(seed_text, 0, LONG_MAX, seed));
}

/* A word: letters, digits, '_', '-', '.', starting with a letter, shorter than RS_SWEEP_WORD_LEN. */
static int is_word(const char *w)
{
    const size_t n = strlen(w);
    if (n == 0 || n >= RS_SWEEP_WORD_LEN || !((w[0] >= 'a' && w[0] <= 'z') ||
                                             (w[0] >= 'A' && w[0] <= 'Z')))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.", w[i]))
            return 0;
    return 1;
}

/* key's arrays for a list of words (or quoted texts); 0 when out of memory. */
static int alloc_words(rs_sweep_key *key)
{
    key->values = malloc(sizeof(double) * RS_SWEEP_MAX_VALUES);
    key->words = malloc(sizeof *key->words * RS_SWEEP_MAX_VALUES);
    return key->values && key->words;
}

/* Word number count of key: the n characters at w (shorter than RS_SWEEP_WORD_LEN), its value
 * its index; 0 (why, the word in quote marks q) when the key has it already. */
static int add_word(rs_sweep_key *key, int count, const char *w, size_t n, char q, char *why,
                    size_t why_len)
{
    snprintf(key->words[count], RS_SWEEP_WORD_LEN, "%.*s", (int)n, w);
    for (int j = 0; j < count; j++)
        if (strcmp(key->words[j], key->words[count]) == 0) {
            snprintf(why, why_len, "%c%.40s%c is listed twice", q, key->words[count], q);
            return 0;
        }
    key->values[count] = count;
    return 1;
}

/* Parse "w1, w2, ..." (words, each once) into key->words; values are their indices. */
static int parse_words(const char *text, rs_sweep_key *key, char *why, size_t why_len)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    if (!alloc_words(key))
        return 0;
    char *items[RS_MAX_LIST_ITEMS];
    const int nitems = rs_split_list(buf, items, RS_MAX_LIST_ITEMS);
    if (nitems < 0) {
        snprintf(why, why_len, "a list with an empty item");
        return 0;
    }
    int count = 0;
    for (int it = 0; it < nitems; it++) {
        char *tok = items[it];
        if (!is_word(tok) || count >= RS_SWEEP_MAX_VALUES) {
            snprintf(why, why_len, "expected a list of numbers or of words (letters, digits, _ - .; "
                                   "not both), '%.40s' is neither", tok);
            return 0;
        }
        if (!add_word(key, count, tok, strlen(tok), '\'', why, why_len))
            return 0;
        count++;
    }
    key->nvalues = count;
    return count > 0;
}

/* Parse '"text 1", "text 2", ...' (quoted texts, each once: a value that is itself a list, such
 * as a piecewise input's "0, 1, 3") into key->words, as a key of words; values are their
 * indices. */
static int parse_texts(const char *text, rs_sweep_key *key, char *why, size_t why_len)
{
    if (!alloc_words(key))
        return 0;
    int count = 0;
    const char *c = text;
    for (;;) {
        while (*c == ' ' || *c == '\t')
            c++;
        const char *end = *c == '"' ? strchr(c + 1, '"') : NULL;
        if (!end) {
            snprintf(why, why_len, "a list of quoted values, \"a, b\", \"c, d\": %s",
                     *c == '"' ? "a quote is not closed" : "expected a quote");
            return 0;
        }
        const size_t n = (size_t)(end - c - 1);
        if (n == 0 || n >= RS_SWEEP_WORD_LEN || count >= RS_SWEEP_MAX_VALUES) {
            snprintf(why, why_len, n == 0 ? "an empty quoted value"
                                   : count >= RS_SWEEP_MAX_VALUES ? "more than %d values"
                                                                  : "a quoted value of more than "
                                                                    "%d characters",
                     n == 0 ? 0 : count >= RS_SWEEP_MAX_VALUES ? RS_SWEEP_MAX_VALUES
                                                               : RS_SWEEP_WORD_LEN - 1);
            return 0;
        }
        if (!add_word(key, count, c + 1, n, '"', why, why_len))
            return 0;
        count++;
        for (c = end + 1; *c == ' ' || *c == '\t'; c++)
            ;
        if (*c == '\0')
            break;
        if (*c != ',') {
            snprintf(why, why_len, "a list of quoted values, \"a, b\", \"c, d\": expected a "
                                   "comma after \"%.40s\"", key->words[count - 1]);
            return 0;
        }
        c++;
    }
    key->nvalues = count;
    return 1;
}

/* Parse "a, b, c", "lo .. hi / n", "random lo .. hi / n seed s" or "lograndom lo .. hi / n seed
 * s" into key->values. */
static int parse_values(const char *text, rs_sweep_key *key, char *why, size_t why_len)
{
    double lo, hi;
    long n = 0, seed = 0;
    while (*text == ' ' || *text == '\t')
        text++;
    const int is_random = strncmp(text, "random ", 7) == 0;
    const int is_log = strncmp(text, "lograndom ", 10) == 0;
    if (is_random || is_log) {
        if (!parse_range(text + (is_log ? 10 : 7), 1, &lo, &hi, &n, &seed) || lo > hi ||
            (is_log && !(lo > 0.0))) {
            snprintf(why, why_len, "%s: need finite %slo <= hi, 1 <= n <= %d and a seed >= 0",
                     is_log ? "lograndom" : "random", is_log ? "0 < " : "", RS_SWEEP_MAX_VALUES);
            return 0;
        }
        key->values = malloc(sizeof(double) * (size_t)n);
        if (!key->values)
            return 0;
        rs_rng rng;
        rs_rng_seed(&rng, (uint64_t)seed);
        for (long i = 0; i < n; i++) /* log-uniform: uniform in log(value) */
            key->values[i] = is_log ? exp(rs_rng_range(&rng, log(lo), log(hi)))
                                    : rs_rng_range(&rng, lo, hi);
        key->nvalues = (int)n;
        return 1;
    }
    if (strstr(text, "..")) {
        if (!parse_range(text, 0, &lo, &hi, &n, &seed)) {
            snprintf(why, why_len, "range: need 'lo .. hi / n' with finite ends and 1 <= n <= %d",
                     RS_SWEEP_MAX_VALUES);
            return 0;
        }
        key->values = malloc(sizeof(double) * (size_t)n);
        if (!key->values)
            return 0;
        for (long i = 0; i < n; i++)
            key->values[i] = n == 1 ? lo : lo + (hi - lo) * (double)i / (double)(n - 1);
        key->nvalues = (int)n;
        return 1;
    }
    /* quoted values: each a text, a list itself (input.u = "0, 1", "0, 2": a piecewise input) */
    if (*text == '"')
        return parse_texts(text, key, why, why_len);
    /* an explicit list of words: a choice key (model.formulation = egan_simple, egan_accurate) */
    char first[64] = "";
    sscanf(text, " %63[^, ]", first);
    double probe;
    if (first[0] && rs_parse_real(first, &probe) != 1)
        return parse_words(text, key, why, why_len);
    /* an explicit list of numbers */
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    key->values = malloc(sizeof(double) * RS_SWEEP_MAX_VALUES);
    if (!key->values)
        return 0;
    char *items[RS_MAX_LIST_ITEMS];
    const int nitems = rs_split_list(buf, items, RS_MAX_LIST_ITEMS);
    if (nitems < 0) {
        snprintf(why, why_len, "a list with an empty item");
        return 0;
    }
    int count = 0;
    for (int it = 0; it < nitems; it++) {
        char *tok = items[it];
        double v;
        if (rs_parse_real(tok, &v) != 1 || count >= RS_SWEEP_MAX_VALUES) {
            snprintf(why, why_len, "expected a list 'a, b, c', a range 'lo .. hi / n', "
                                   "'random lo .. hi / n seed s' or 'lograndom lo .. hi / n seed s'");
            return 0;
        }
        key->values[count++] = v;
    }
    key->nvalues = count;
    if (count == 0)
        snprintf(why, why_len, "no values");
    return count > 0;
}

/* A key given twice (in one section, or in [set] and [vary]) would be taken once, silently, and
 * the runs labelled with values they did not run with: refused. */
static rs_error check_duplicates(const char *path, const rs_ini_entry *e, int count,
                                 rs_error_detail *detail)
{
    for (int i = 1; i < count; i++)
        for (int j = 0; j < i; j++) {
            if (strcmp(e[i].key, e[j].key) != 0)
                continue;
            if (strcmp(e[i].section, e[j].section) == 0)
                return rs_detail_set(detail, RS_ERR_PARSE,
                                     "%s:%d: %s.%s: duplicate key (first given at line %d)", path,
                                     e[i].line, e[i].section, e[i].key, e[j].line);
            const int set_vary =
                (strcmp(e[i].section, "set") == 0 && strcmp(e[j].section, "vary") == 0) ||
                (strcmp(e[i].section, "vary") == 0 && strcmp(e[j].section, "set") == 0);
            if (set_vary)
                return rs_detail_set(detail, RS_ERR_PARSE,
                                     "%s:%d: %s.%s: already in [%s] at line %d (a key is either "
                                     "fixed or varied)",
                                     path, e[i].line, e[i].section, e[i].key, e[j].section,
                                     e[j].line);
        }
    return RS_OK;
}

static rs_error interpret(rs_sweep *sw, const rs_ini_entry *e, int count, rs_error_detail *detail)
{
    const char *path = sw->path;
    int have_scenario = 0;
    const rs_error dup = check_duplicates(path, e, count, detail);
    if (dup != RS_OK)
        return dup;
    for (int i = 0; i < count; i++, e++) {
        if (strcmp(e->section, "sweep") == 0) {
            if (strcmp(e->key, "scenario") == 0) {
                /* relative to the sweep file's directory */
                const char *slash = strrchr(path, '/');
                int len;
                if (e->value[0] == '/' || !slash)
                    len = snprintf(sw->scenario, sizeof sw->scenario, "%s", e->value);
                else
                    len = snprintf(sw->scenario, sizeof sw->scenario, "%.*s/%s",
                                   (int)(slash - path), path, e->value);
                if (len < 0 || (size_t)len >= sizeof sw->scenario)
                    return rs_detail_set(detail, RS_ERR_PARSE,
                                         "%s:%d: sweep.scenario: path longer than %zu characters",
                                         path, e->line, sizeof sw->scenario - 1);
                have_scenario = 1;
                sw->scenario_line = e->line;
            } else if (strcmp(e->key, "combine") == 0) {
                if (strcmp(e->value, "product") != 0 && strcmp(e->value, "zip") != 0)
                    return rs_detail_set(detail, RS_ERR_PARSE,
                                         "%s:%d: sweep.combine: '%s' is not one of: product, zip",
                                         path, e->line, e->value);
                sw->zip = strcmp(e->value, "zip") == 0;
            } else {
                return rs_detail_set(detail, RS_ERR_PARSE,
                                     "%s:%d: sweep.%s: unknown key (expected scenario, combine)",
                                     path, e->line, e->key);
            }
        } else if (strcmp(e->section, "vary") == 0) {
            if (sw->nkeys >= RS_SWEEP_MAX_KEYS)
                return rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: more than %d varied keys",
                                     path, e->line, RS_SWEEP_MAX_KEYS);
            if (!strchr(e->key, '.'))
                return rs_detail_set(detail, RS_ERR_PARSE,
                                     "%s:%d: vary.%s: expected a scenario key section.key "
                                     "(e.g. model.mu)", path, e->line, e->key);
            rs_sweep_key *k = &sw->keys[sw->nkeys];
            snprintf(k->name, sizeof k->name, "%s", e->key);
            k->line = e->line;
            char why[160] = "out of memory";
            if (!parse_values(e->value, k, why, sizeof why)) {
                free(k->values);
                free(k->words);
                k->values = NULL;
                k->words = NULL;
                return rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: vary.%s: %s, got '%s'", path,
                                     e->line, e->key, why, e->value);
            }
            sw->nkeys++;
        } else if (strcmp(e->section, "set") == 0) {
            if (sw->nsets >= RS_SWEEP_MAX_SETS)
                return rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: more than %d fixed keys",
                                     path, e->line, RS_SWEEP_MAX_SETS);
            if (!strchr(e->key, '.') || strlen(e->key) > 60 || strlen(e->value) > 66)
                return rs_detail_set(detail, RS_ERR_PARSE,
                                     "%s:%d: set.%s: expected a scenario key section.key "
                                     "(e.g. nlp.check_start) and a value of at most 66 "
                                     "characters", path, e->line, e->key);
            sw->set_line[sw->nsets] = e->line;
            snprintf(sw->sets[sw->nsets++], 128, "%.60s=%.66s", e->key, e->value);
        } else {
            return rs_detail_set(detail, RS_ERR_PARSE,
                                 "%s:%d: %s.%s: unknown section [%s] (expected sweep, vary, set)",
                                 path, e->line, e->section, e->key, e->section);
        }
    }
    if (!have_scenario)
        return rs_detail_set(detail, RS_ERR_PARSE, "%s: sweep.scenario: missing", path);
    if (sw->nkeys == 0)
        return rs_detail_set(detail, RS_ERR_PARSE, "%s: [vary]: no key to vary", path);
    sw->nruns = sw->zip ? sw->keys[0].nvalues : 1;
    for (int k = 0; k < sw->nkeys; k++) {
        if (sw->zip && sw->keys[k].nvalues != sw->keys[0].nvalues)
            return rs_detail_set(detail, RS_ERR_PARSE,
                                 "%s:%d: vary.%s: combine = zip needs equal counts (%d here, %d "
                                 "for %s)",
                                 path, sw->keys[k].line, sw->keys[k].name, sw->keys[k].nvalues,
                                 sw->keys[0].nvalues, sw->keys[0].name);
        if (!sw->zip) {
            sw->nruns *= sw->keys[k].nvalues;
            if (sw->nruns > RS_SWEEP_MAX_RUNS)
                return rs_detail_set(detail, RS_ERR_PARSE, "%s: more than %d runs", path,
                                     RS_SWEEP_MAX_RUNS);
        }
    }
    return RS_OK;
}

static rs_error sweep_load(const char *path, rs_sweep *out, rs_error_detail *detail)
{
    rs_detail_clear(detail);
    if (!path || !out)
        return RS_ERR_NULL_ARG;
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path);
    rs_ini_entry entries[MAX_ENTRIES];
    int count = 0;
    rs_error err = rs_ini_read_entries(path, entries, MAX_ENTRIES, &count, detail);
    if (err == RS_OK)
        err = interpret(out, entries, count, detail);
    if (err == RS_OK) {
        /* The base scenario must load, and every varied key must be one of its keys (checked
         * with the key's first value). Values out of range are failures of their runs, recorded
         * by the batch, not errors of the sweep. */
        rs_scenario *sc = calloc(1, sizeof *sc); /* large: not on the stack */
        rs_error_detail d;
        err = sc ? rs_scenario_load(out->scenario, NULL, 0, sc, &d) : RS_ERR_NOMEM;
        if (err == RS_ERR_NOMEM)
            rs_detail_set(detail, err, "%s: out of memory", path);
        else if (err != RS_OK)
            rs_detail_set(detail, err, "%s:%d: sweep.scenario: %s", path, out->scenario_line,
                          d.message);
        for (int i = 0; err == RS_OK && i < out->nsets; i++) { /* fixed keys: valid as given */
            const char *set = out->sets[i];
            rs_scenario_release(sc);
            if (rs_scenario_load(out->scenario, &set, 1, sc, &d) != RS_OK) {
                /* the sweep's line, and the scenario's words without its "--set KEY: " */
                const char *why =
                    strncmp(d.message, "--set ", 6) == 0 ? strstr(d.message, ": ") : NULL;
                err = rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: set.%.*s: %s", path,
                                    out->set_line[i], (int)strcspn(set, "="), set,
                                    why ? why + 2 : d.message);
            }
        }
        /* every varied key must be one of the scenario's keys, checked with its first value; a
         * key of words with each word (a misspelt choice is an error of the sweep) */
        for (int k = 0; err == RS_OK && k < out->nkeys; k++) {
            const rs_sweep_key *key = &out->keys[k];
            for (int v = 0; err == RS_OK && v < (key->words ? key->nvalues : 1); v++) {
                char one[128], num[RS_SWEEP_WORD_LEN];
                snprintf(one, sizeof one, "%.74s=%s", key->name,
                         rs_sweep_value_text(key, key->values[v], num, sizeof num));
                const char *set = one;
                rs_scenario_release(sc);
                if (rs_scenario_load(out->scenario, &set, 1, sc, &d) != RS_OK &&
                    (key->words || strstr(d.message, "unknown"))) {
                    /* the scenario's words, without its "--set KEY: " */
                    const char *why =
                        strncmp(d.message, "--set ", 6) == 0 ? strstr(d.message, ": ") : NULL;
                    err = rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: vary.%s: %s", path,
                                        key->line, key->name, why ? why + 2 : d.message);
                }
            }
        }
        if (sc && err == RS_OK)
            rs_scenario_release(sc);
        free(sc);
    }
    if (err != RS_OK)
        rs_sweep_free(out);
    return err;
}

void rs_sweep_run_values(const rs_sweep *sw, long run, double *values)
{
    if (sw->zip) {
        for (int k = 0; k < sw->nkeys; k++)
            values[k] = sw->keys[k].values[run];
        return;
    }
    for (int k = sw->nkeys - 1; k >= 0; k--) { /* the last key varies fastest */
        const int n = sw->keys[k].nvalues;
        values[k] = sw->keys[k].values[run % n];
        run /= n;
    }
}

const char *rs_sweep_value_text(const rs_sweep_key *k, double v, char *buf, size_t size)
{
    if (k->words && v >= 0 && v < k->nvalues)
        return k->words[(int)v];
    return rs_format_real(v, buf, size);
}

int rs_sweep_param_value(const rs_sweep_key *k, const cJSON *param, double *value)
{
    if (k->words) {
        for (int i = 0; cJSON_IsString(param) && i < k->nvalues; i++)
            if (strcmp(k->words[i], param->valuestring) == 0) {
                *value = i;
                return 1;
            }
        return 0;
    }
    if (!cJSON_IsNumber(param) || !isfinite(param->valuedouble))
        return 0;
    *value = param->valuedouble;
    return 1;
}

int rs_sweep_run_overrides(const rs_sweep *sw, long run, char (*buf)[128])
{
    double v[RS_SWEEP_MAX_KEYS] = {0};
    rs_sweep_run_values(sw, run, v);
    for (int i = 0; i < sw->nsets; i++)
        memcpy(buf[i], sw->sets[i], 128);
    for (int k = 0; k < sw->nkeys; k++) {
        char num[RS_SWEEP_WORD_LEN];
        snprintf(buf[sw->nsets + k], 128, "%.74s=%s", sw->keys[k].name,
                 rs_sweep_value_text(&sw->keys[k], v[k], num, sizeof num));
    }
    return sw->nsets + sw->nkeys;
}

rs_error rs_sweep_load(const char *path, rs_sweep *out, rs_error_detail *detail)
{
    const locale_t caller = rs_c_locale_enter(); /* numbers and messages in the C locale */
    const rs_error err = sweep_load(path, out, detail);
    rs_c_locale_leave(caller);
    return err;
}
