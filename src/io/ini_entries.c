/* ini_entries.c: INI entries with line numbers (see ini_entries.h). libinih reads the file
 * through a line reader of ours, so the handler knows the line of each key = value. */
#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <string.h>

#include "io/ini_entries.h"
#include "core/detail.h"

typedef struct reader {
    FILE *f;
    int line;
    rs_ini_entry *entries;
    int max;
    int count;
    int overflow; /* line of the first entry that did not fit */
} reader;

static char *read_line(char *str, int num, void *stream)
{
    reader *r = stream;
    char *s = fgets(str, num, r->f);
    if (s)
        r->line++;
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
    reader r = {fopen(path, "r"), 0, entries, max, 0, 0};
    *count = 0;
    if (!r.f)
        return rs_detail_set(detail, RS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    const int bad_line = ini_parse_stream(read_line, &r, collect, &r);
    fclose(r.f);
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
