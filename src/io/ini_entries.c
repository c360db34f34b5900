/* ini_entries.c: INI entries with line numbers (see ini_entries.h). libinih reads the file
 * through a line reader of ours, so the handler knows the line of each key = value, no line is
 * cut silently (libinih reads at most INI_MAX_LINE bytes at a time and would take the rest of a
 * longer line as a new one), and '#' after a blank starts a comment as ';' does. */
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "io/ini_entries.h"
#include "core/detail.h"

typedef struct reader {
    FILE *f;
    int line;
    rs_ini_entry *entries;
    int max;
    int count;
    int overflow; /* line of the first entry that did not fit */
    int too_long; /* line of the first line longer than libinih reads at once */
    int max_len;  /* that length */
} reader;

static char *read_line(char *str, int num, void *stream)
{
    reader *r = stream;
    char *s = fgets(str, num, r->f);
    if (!s)
        return NULL;
    r->line++;
    char *nl = strchr(s, '\n');
    if (!nl && !feof(r->f)) { /* longer than libinih's buffer: refuse, never split */
        if (!r->too_long) {
            r->too_long = r->line;
            r->max_len = num - 2;
        }
        int ch;
        while ((ch = fgetc(r->f)) != EOF && ch != '\n')
            ;
    }
    /* '#' after a blank starts an inline comment, like ';' (a '#' at the line start is one) */
    for (char *p = s + 1; *p; p++)
        if (*p == '#' && isspace((unsigned char)p[-1])) {
            p[0] = '\n';
            p[1] = '\0';
            break;
        }
    return s;
}

static int collect(void *user, const char *section, const char *name, const char *value)
{
    reader *r = user;
    if (r->count >= r->max) {
        if (!r->overflow)
            r->overflow = r->line;
        return 1;
    }
    rs_ini_entry *e = &r->entries[r->count++];
    snprintf(e->section, sizeof e->section, "%s", section);
    snprintf(e->key, sizeof e->key, "%s", name);
    snprintf(e->value, sizeof e->value, "%s", value);
    e->line = r->line;
    return 1;
}

rs_error rs_ini_read_entries(const char *path, rs_ini_entry *entries, int max, int *count,
                             rs_error_detail *detail)
{
    struct stat st;
    *count = 0;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return rs_detail_set(detail, RS_ERR_IO, "%s: is a directory, not a file", path);
    reader r = {fopen(path, "r"), 0, entries, max, 0, 0, 0, 0};
    if (!r.f)
        return rs_detail_set(detail, RS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    const int bad_line = ini_parse_stream(read_line, &r, collect, &r);
    const int read_failed = ferror(r.f);
    fclose(r.f);
    if (read_failed)
        return rs_detail_set(detail, RS_ERR_IO, "%s: read error", path);
    if (r.too_long)
        return rs_detail_set(detail, RS_ERR_PARSE,
                             "%s:%d: line longer than %d characters (split the list or shorten "
                             "the comment)", path, r.too_long, r.max_len);
    if (bad_line != 0)
        return rs_detail_set(detail, RS_ERR_PARSE,
                             "%s:%d: syntax error (expected '[section]' or 'key = value')", path,
                             bad_line);
    if (r.overflow)
        return rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: more than %d keys", path, r.overflow,
                             max);
    *count = r.count;
    return RS_OK;
}

int rs_parse_real(const char *text, double *out)
{
    while (isspace((unsigned char)*text))
        text++;
    const char *word = text + (*text == '+' || *text == '-');
    if (strncasecmp(word, "inf", 3) == 0 || strncasecmp(word, "nan", 3) == 0)
        return -1;
    /* decimal only: strtod would also take hexadecimal ("0x10") and "inf"/"nan" */
    for (const char *p = text; *p && !isspace((unsigned char)*p); p++)
        if (!(isdigit((unsigned char)*p) || *p == '.' || *p == 'e' || *p == 'E' || *p == '+' ||
              *p == '-'))
            return 0;
    char *end;
    const double v = strtod(text, &end);
    if (end == text)
        return 0;
    while (isspace((unsigned char)*end))
        end++;
    if (*end != '\0')
        return 0;
    if (!isfinite(v))
        return -1; /* 1e999 */
    *out = v;
    return 1;
}

char *rs_format_real(double v, char *buf, size_t len)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "%s", isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
        return buf;
    }
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

int rs_parse_count(const char *text, long lo, long hi, long *out)
{
    while (isspace((unsigned char)*text))
        text++;
    if (!isdigit((unsigned char)*text) && !(*text == '-' && isdigit((unsigned char)text[1])))
        return 0;
    char *end;
    errno = 0;
    const long v = strtol(text, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    if (*end != '\0' || errno == ERANGE || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}
