/* scene_file.c: the scene file format (scene_file.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/c_locale.h"
#include "io/scene_file.h"
#include "core/detail.h"
#include "io/ini_entries.h"

#define LINE_MAX_CHARS 4096

/* Split "x y, x y, ..." into numbers: 1 and *count pairs in xy, or 0 with a message in why. */
static int read_pairs(char *text, double *xy, int max_pairs, int *count, char *why, size_t n)
{
    *count = 0;
    char *items[RS_SCENE_MAX_POLYGON_VERTICES + 2];
    const int nitems = rs_split_list(text, items, max_pairs);
    if (nitems == -2) {
        snprintf(why, n, "more than %d points", max_pairs);
        return 0;
    }
    if (nitems < 0) {
        snprintf(why, n,
                 "an empty point (points are separated by commas: x y, x y, ...; none "
                 "before the first or after the last)");
        return 0;
    }
    for (int it = 0; it < nitems; it++) {
        char *pair = items[it];
        char *inner = NULL, *tok[3];
        int k = 0;
        for (char *t = strtok_r(pair, " \t\r", &inner); t && k < 3; t = strtok_r(NULL, " \t\r", &inner))
            tok[k++] = t;
        if (k != 2) {
            snprintf(why, n, "point %d: expected two numbers \"x y\", got %s (points are separated "
                             "by commas: x y, x y, ...)", *count + 1, k < 3 ? (k ? "one" : "none") : "more");
            return 0;
        }
        for (int i = 0; i < 2; i++) {
            const int r = rs_parse_real(tok[i], &xy[2 * *count + i]);
            if (r != 1) {
                snprintf(why, n, "point %d: %s \"%s\" is %s", *count + 1, i ? "y" : "x", tok[i],
                         r < 0 ? "not finite" : "not a decimal number");
                return 0;
            }
        }
        (*count)++;
    }
    return 1;
}

/* The scene of an open stream; path is what messages call it. */
static rs_error read_stream(FILE *f, const char *path, rs_scene *scene, rs_error_detail *detail)
{
    char line[LINE_MAX_CHARS + 2];
    double xy[2 * (RS_SCENE_MAX_POLYGON_VERTICES + 1)];
    char why[256];
    rs_error_detail reason;
    rs_error err = RS_OK;
    int lineno = 0;
    while (err == RS_OK && fgets(line, sizeof line, f)) {
        lineno++;
        const size_t len = strlen(line);
        if (len > LINE_MAX_CHARS && line[len - 1] != '\n') {
            err = rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: the line is longer than %d "
                                "characters", path, lineno, LINE_MAX_CHARS);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *rest = line + strspn(line, " \t\r\n");
        if (*rest == '\0')
            continue;
        const size_t kw_len = strcspn(rest, " \t\r\n");
        char keyword[16] = "";
        snprintf(keyword, sizeof keyword, "%.*s", (int)(kw_len < 15 ? kw_len : 15), rest);
        rest += kw_len;
        rest[strcspn(rest, "\n")] = '\0';
        int npoints = 0;
        const int is_polygon = strcmp(keyword, "polygon") == 0;
        if (!is_polygon && strcmp(keyword, "halfplane") != 0) {
            err = rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: unknown keyword \"%s\" (expected "
                                "polygon or halfplane)", path, lineno, keyword);
        } else if (!read_pairs(rest, xy, is_polygon ? RS_SCENE_MAX_POLYGON_VERTICES + 1 : 2,
                               &npoints, why, sizeof why)) {
            err = rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: %s: %s", path, lineno, keyword, why);
        } else if (!is_polygon && npoints != 2) {
            err = rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: halfplane: expected \"px py, nx ny\" "
                                "(a point on the boundary and the outward normal), got %d points",
                                path, lineno, npoints);
        } else {
            const rs_error e = is_polygon
                                   ? rs_scene_add_polygon(scene, npoints, xy, &reason)
                                   : rs_scene_add_halfplane(scene, xy, xy + 2, &reason);
            if (e == RS_ERR_NOMEM)
                err = rs_detail_set(detail, e, "%s:%d: out of memory", path, lineno);
            else if (e != RS_OK)
                err = rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: %s: %s", path, lineno, keyword,
                                    reason.message);
        }
    }
    if (err == RS_OK && ferror(f))
        err = rs_detail_set(detail, RS_ERR_IO, "%s: read error", path);
    if (err == RS_OK && scene->nobstacles == 0)
        err = rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: the scene has no obstacle (expected "
                            "polygon or halfplane lines)", path, lineno);
    return err;
}

rs_error rs_scene_read(const char *path, rs_scene *scene, rs_error_detail *detail)
{
    rs_scene_init(scene);
    rs_detail_clear(detail);
    FILE *f = fopen(path, "r");
    if (!f)
        return rs_detail_set(detail, RS_ERR_IO, "%s: cannot open the scene file: %s", path,
                             strerror(errno));
    const locale_t caller = rs_c_locale_enter(); /* numbers and messages in the C locale */
    const rs_error err = read_stream(f, path, scene, detail);
    rs_c_locale_leave(caller);
    fclose(f);
    return err;
}

rs_error rs_scene_read_text(const char *name, const char *text, rs_scene *scene,
                            rs_error_detail *detail)
{
    rs_scene_init(scene);
    rs_detail_clear(detail);
    const size_t len = strlen(text);
    FILE *f = fmemopen((void *)(len ? text : "\n"), len ? len : 1, "r");
    if (!f)
        return rs_detail_set(detail, RS_ERR_NOMEM, "%s: cannot be read", name);
    const locale_t caller = rs_c_locale_enter();
    const rs_error err = read_stream(f, name, scene, detail);
    rs_c_locale_leave(caller);
    fclose(f);
    return err;
}
