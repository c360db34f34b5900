/* ini_entries.c: INI entries with line numbers (see ini_entries.h). libinih reads the file
 * through a line reader of ours, so the handler knows the line of each key = value, no line is
 * cut silently (libinih reads at most INI_MAX_LINE bytes at a time and would take the rest of a
 * longer line as a new one), and '#' after a blank starts a comment as ';' does. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "io/ini_entries.h"
#include "core/c_locale.h"
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
    int nul;      /* line of the first NUL byte (a binary file) */
    int indented; /* 1 if the line being parsed starts with a blank */
    int continued; /* line of the first indented line libinih took as a continuation */
    int continues; /* the line of the entry it continues */
} reader;

static char *read_line(char *str, int num, void *stream)
{
    reader *r = stream;
    int len = 0, ch = 0;
    while (len < num - 1 && (ch = getc(r->f)) != EOF) {
        if (ch == '\0') { /* text stops at a NUL: note it, read on */
            if (!r->nul)
                r->nul = r->line + 1;
            ch = ' ';
        }
        str[len++] = (char)ch;
        if (ch == '\n')
            break;
    }
    if (len == 0)
        return NULL;
    str[len] = '\0';
    char *s = str;
    r->line++;
    r->indented = s[0] == ' ' || s[0] == '\t';
    char *nl = strchr(s, '\n');
    if (!nl && !feof(r->f)) { /* longer than libinih's buffer: refuse, never split */
        if (!r->too_long) {
            r->too_long = r->line;
            r->max_len = num - 2;
        }
        while ((ch = getc(r->f)) != EOF && ch != '\n')
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
    /* libinih takes an indented line after "key = value" as more of that value and calls this
     * again with the same key: refused, with a message that says so */
    if (r->indented && r->count > 0 && strcmp(r->entries[r->count - 1].section, section) == 0 &&
        strcmp(r->entries[r->count - 1].key, name) == 0) {
        if (!r->continued) {
            r->continued = r->line;
            r->continues = r->entries[r->count - 1].line;
        }
        return 1;
    }
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

/* The entries of an open stream; name is what messages call it (a path, "CAPSULE: scenario"). */
static rs_error read_stream(FILE *f, const char *path, rs_ini_entry *entries, int max, int *count,
                            rs_error_detail *detail)
{
    reader r = {f, 0, entries, max, 0, 0, 0, 0, 0, 0, 0, 0};
    const int bad_line = ini_parse_stream(read_line, &r, collect, &r);
    if (ferror(r.f))
        return rs_detail_set(detail, RS_ERR_IO, "%s: read error", path);
    if (r.nul)
        return rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: a NUL byte (not a text file?)", path,
                             r.nul);
    if (r.continued)
        return rs_detail_set(detail, RS_ERR_PARSE,
                             "%s:%d: an indented line continues the value of line %d (INI "
                             "continuation lines): remove the indentation",
                             path, r.continued, r.continues);
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

rs_error rs_ini_read_entries(const char *path, rs_ini_entry *entries, int max, int *count,
                             rs_error_detail *detail)
{
    struct stat st;
    *count = 0;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return rs_detail_set(detail, RS_ERR_IO, "%s: is a directory, not a file", path);
    FILE *f = fopen(path, "r");
    if (!f)
        return rs_detail_set(detail, RS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    const rs_error err = read_stream(f, path, entries, max, count, detail);
    fclose(f);
    return err;
}

rs_error rs_ini_read_entries_text(const char *name, const char *text, rs_ini_entry *entries,
                                  int max, int *count, rs_error_detail *detail)
{
    *count = 0;
    const size_t len = strlen(text);
    FILE *f = fmemopen((void *)(len ? text : " "), len ? len : 1, "r");
    if (!f)
        return rs_detail_set(detail, RS_ERR_NOMEM, "%s: cannot be read", name);
    const rs_error err = read_stream(f, name, entries, max, count, detail);
    fclose(f);
    return err;
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
    const locale_t caller = rs_c_locale_enter();
    errno = 0;
    const double v = strtod(text, &end);
    const int range = errno;
    rs_c_locale_leave(caller);
    if (end == text)
        return 0;
    while (isspace((unsigned char)*end))
        end++;
    if (*end != '\0')
        return 0;
    if (!isfinite(v))
        return -1; /* 1e999 */
    if (range == ERANGE && fabs(v) < DBL_MIN)
        return -2; /* 1e-400: not 0, yet read as 0 (or a subnormal that has lost digits) */
    *out = v;
    return 1;
}

char *rs_format_real(double v, char *buf, size_t len)
{
    if (!isfinite(v)) {
        snprintf(buf, len, "%s", isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
        return buf;
    }
    const locale_t caller = rs_c_locale_enter();
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    rs_c_locale_leave(caller);
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

int rs_split_list(char *text, char **items, int max_items)
{
    int count = 0;
    for (char *item = text;;) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = '\0';
        while (*item == ' ' || *item == '\t')
            item++;
        char *end = item + strlen(item);
        while (end > item && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
            *--end = '\0';
        if (*item == '\0')
            return -1;
        if (count == max_items)
            return -2;
        items[count++] = item;
        if (!comma)
            return count;
        item = comma + 1;
    }
}
