/* scene_file.c: the scene file format (scene_file.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/c_locale.h"
#include "io/scene_file.h"
#include "core/detail.h"
#include "io/ini_entries.h"

#define LINE_MAX_CHARS 4096

/* What is wrong with a number rs_parse_real refused (its code r). */
static const char *number_problem(int r)
{
    return r == -2 ? "below 2.2e-308 in magnitude, the normal range of doubles"
           : r < 0 ? "not finite"
                   : "not a decimal number";
}

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
        if (k == 3 && strchr(tok[2], '=')) {
            snprintf(why, n, "point %d: '%.40s' after the vertices: a body's keys come before "
                             "'vertices'", *count + 1, tok[2]);
            return 0;
        }
        if (k != 2) {
            snprintf(why, n, "point %d: expected two numbers \"x y\", got %s (points are separated "
                             "by commas: x y, x y, ...)", *count + 1, k < 3 ? (k ? "one" : "none") : "more");
            return 0;
        }
        for (int i = 0; i < 2; i++) {
            const int r = rs_parse_real(tok[i], &xy[2 * *count + i]);
            if (r != 1) {
                snprintf(why, n, "point %d: %s \"%s\" is %s", *count + 1, i ? "y" : "x", tok[i],
                         number_problem(r));
                return 0;
            }
        }
        (*count)++;
    }
    return 1;
}

/* A body's name: a letter or '_', then letters, digits, '_' (a scenario key's part). */
static int valid_name(const char *s)
{
    if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
        return 0;
    size_t n = 0;
    for (; s[n]; n++)
        if (!(s[n] == '_' || (s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
              (s[n] >= '0' && s[n] <= '9')))
            return 0;
    return n < RS_BODY_NAME_LEN;
}

/* The keys of a body line, their ranges and where the value goes. */
enum { K_R, K_W, K_H, K_M, K_INERTIA, K_X, K_Z, K_THETA, K_XD, K_ZD, K_THETAD, NKEYS };
static const char *const body_keys[NKEYS] = {"r", "w", "h", "m", "inertia", "x", "z", "theta",
                                             "xd", "zd", "thetad"};

/*
 * body NAME disc r=R [m=M] [inertia=I] [x=..] [z=..] [theta=..] [xd=..] [zd=..] [thetad=..]
 * body NAME box w=W h=H [the same optional keys]
 * body NAME polygon [the same optional keys] vertices x1 z1, x2 z2, ...
 * (lengths m, angles rad, speeds m/s and rad/s, m kg (default 1), inertia kg m^2 (default:
 * the uniform shape's)). 0 with the message in why.
 */
static int read_body(char *rest, int lineno, rs_scene *scene, char *why, size_t n)
{
    rs_body b;
    memset(&b, 0, sizeof b);
    b.line = lineno;
    b.mass = 1.0;
    char *save = NULL, *name = strtok_r(rest, " \t\r", &save);
    char *shape = name ? strtok_r(NULL, " \t\r", &save) : NULL;
    if (!name || !shape) {
        snprintf(why, n, "expected \"body NAME disc|box|polygon key=value ...\"");
        return 0;
    }
    if (!valid_name(name) || strcmp(name, "static") == 0) {
        snprintf(why, n, "the name '%.40s' is not a body name (a letter or '_', then letters, "
                         "digits or '_', at most %d characters; 'static' is reserved)",
                 name, RS_BODY_NAME_LEN - 1);
        return 0;
    }
    snprintf(b.name, sizeof b.name, "%s", name);
    const int disc = strcmp(shape, "disc") == 0, box = strcmp(shape, "box") == 0,
              polygon = strcmp(shape, "polygon") == 0;
    if (!disc && !box && !polygon) {
        snprintf(why, n, "body %s: unknown shape '%.40s' (expected disc, box or polygon)", name,
                 shape);
        return 0;
    }
    double value[NKEYS] = {0};
    int given[NKEYS] = {0};
    char *vertices = NULL;
    int rotation_given = 0;
    for (char *tok = strtok_r(NULL, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
        if (strcmp(tok, "vertices") == 0) {
            vertices = save; /* the rest of the line */
            break;
        }
        if (strncmp(tok, "rotation=", 9) == 0) { /* free (default) or locked */
            if (rotation_given || (strcmp(tok + 9, "free") != 0 && strcmp(tok + 9, "locked") != 0)) {
                snprintf(why, n, "body %s: %s", name,
                         rotation_given ? "rotation given twice"
                                        : "rotation must be free or locked");
                return 0;
            }
            rotation_given = 1;
            b.locked = strcmp(tok + 9, "locked") == 0;
            continue;
        }
        char *eq = strchr(tok, '=');
        int k = -1;
        if (eq) {
            *eq = '\0';
            for (int i = 0; i < NKEYS; i++)
                if (strcmp(tok, body_keys[i]) == 0)
                    k = i;
        }
        const int fits = k >= 0 && (k == K_R ? disc : (k == K_W || k == K_H) ? box : 1);
        if (!fits) {
            snprintf(why, n, "body %s: %s '%.40s' for a %s (expected %s%sm, inertia, x, z, theta, "
                             "xd, zd, thetad as key=value, rotation=free|locked%s)",
                     name, eq ? "unknown key" : "expected key=value, got", tok, shape,
                     disc ? "r, " : "", box ? "w, h, " : "",
                     polygon ? ", then vertices x1 z1, x2 z2, ..." : "");
            return 0;
        }
        if (given[k]) {
            snprintf(why, n, "body %s: %s given twice", name, body_keys[k]);
            return 0;
        }
        const int r = rs_parse_real(eq + 1, &value[k]);
        if (r != 1) {
            snprintf(why, n, "body %s: %s = '%.40s' is %s", name, body_keys[k], eq + 1,
                     number_problem(r));
            return 0;
        }
        given[k] = 1;
    }
    /* ranges: masses and inertias positive, coordinates within the scene's, speeds within 1e6 */
    /* (the mass's range is the scenario key model.NAME.m's, [1e-9, 1e9]; the pose and velocity
     * the scenario's [initial] keys', +-1e12: one range whichever file gives the value) */
    static const double lo[NKEYS] = {0, 0, 0, 1e-9, 0, -RS_SCENE_MAX_COORD, -RS_SCENE_MAX_COORD,
                                     -1e12, -1e12, -1e12, -1e12};
    static const double hi[NKEYS] = {RS_SCENE_MAX_COORD, RS_SCENE_MAX_COORD, RS_SCENE_MAX_COORD,
                                     1e9, 1e12, RS_SCENE_MAX_COORD, RS_SCENE_MAX_COORD, 1e12, 1e12,
                                     1e12, 1e12};
    for (int k = 0; k < NKEYS; k++) {
        const int positive = k <= K_INERTIA && k != K_M;
        if (given[k] && (positive ? !(value[k] > lo[k]) : !(value[k] >= lo[k])) ) {
            if (k == K_M)
                snprintf(why, n, "body %s: m = %g must be within [1e-9, 1e9] kg (as "
                         "model.%s.m)", name, value[k], name);
            else
                snprintf(why, n, "body %s: %s = %g must be %s", name, body_keys[k], value[k],
                         positive ? "> 0" : "within the documented range");
            return 0;
        }
        if (given[k] && value[k] > hi[k]) {
            snprintf(why, n, "body %s: %s = %g is beyond %g", name, body_keys[k], value[k], hi[k]);
            return 0;
        }
    }
    rs_error_detail reason;
    rs_error e;
    const int locked = b.locked;
    if (disc) {
        if (!given[K_R]) {
            snprintf(why, n, "body %s: a disc needs its radius: r=...", name);
            return 0;
        }
        e = rs_body_set_disc(&b, value[K_R], &reason);
    } else if (box) {
        if (!given[K_W] || !given[K_H]) {
            snprintf(why, n, "body %s: a box needs its width and height: w=... h=...", name);
            return 0;
        }
        e = rs_body_set_box(&b, value[K_W], value[K_H], &reason);
    } else {
        double xy[2 * (RS_SCENE_MAX_POLYGON_VERTICES + 1)];
        int npoints = 0;
        char pwhy[200];
        if (!vertices || !*vertices) {
            snprintf(why, n, "body %s: a polygon needs its vertices: ... vertices x1 z1, x2 z2, "
                             "x3 z3 (body frame, counter-clockwise)", name);
            return 0;
        }
        if (!read_pairs(vertices, xy, RS_SCENE_MAX_POLYGON_VERTICES + 1, &npoints, pwhy,
                        sizeof pwhy)) {
            snprintf(why, n, "body %s: vertices: %s", name, pwhy);
            return 0;
        }
        e = rs_body_set_polygon(&b, npoints, xy, &reason);
    }
    if (e == RS_OK && vertices && !polygon)
        e = rs_detail_set(&reason, RS_ERR_BAD_ARG, "vertices are for a polygon");
    if (e != RS_OK) {
        snprintf(why, n, "body %s: %s", name, e == RS_ERR_NOMEM ? "out of memory" : reason.message);
        rs_body_free(&b);
        return 0;
    }
    b.locked = locked;
    b.mass = given[K_M] ? value[K_M] : 1.0;
    b.inertia = given[K_INERTIA] ? value[K_INERTIA] : 0.0;
    for (int k = K_X; k <= K_THETAD; k++)
        b.initial[k - K_X] = value[k];
    if ((e = rs_scene_add_body(scene, &b, &reason)) != RS_OK) {
        snprintf(why, n, "body %s: %s", name, e == RS_ERR_NOMEM ? "out of memory" : reason.message);
        rs_body_free(&b);
        return 0;
    }
    return 1;
}

/* friction A B MU (B may be "static": A against every obstacle); the bodies declared before. */
static int read_friction(char *rest, int lineno, rs_scene *scene, char *why, size_t n)
{
    char *save = NULL, *tok[4];
    int k = 0;
    for (char *t = strtok_r(rest, " \t\r", &save); t && k < 4; t = strtok_r(NULL, " \t\r", &save))
        tok[k++] = t;
    if (k != 3) {
        snprintf(why, n, "expected \"friction BODY BODY|static MU\"");
        return 0;
    }
    int idx[2];
    for (int i = 0; i < 2; i++) {
        idx[i] = i == 1 && strcmp(tok[1], "static") == 0 ? -1 : rs_scene_body_index(scene, tok[i]);
        if (idx[i] < 0 && !(i == 1 && strcmp(tok[1], "static") == 0)) {
            snprintf(why, n, "no body named '%.40s' (declare a body before its friction line; "
                             "'static' stands for the obstacles)", tok[i]);
            return 0;
        }
    }
    if (idx[0] == idx[1]) {
        snprintf(why, n, "a body has no friction with itself");
        return 0;
    }
    double mu;
    const int r = rs_parse_real(tok[2], &mu);
    if (r != 1 || !(mu >= 0.0 && mu <= 10.0)) {
        snprintf(why, n, "mu = '%.40s': expected a number in [0, 10]", tok[2]);
        return 0;
    }
    const int given = rs_scene_pair_friction(scene, idx[0], idx[1]); /* (either order) */
    if (given >= 0) {
        snprintf(why, n, "the pair %.40s %.40s has its friction on line %d already: give each "
                         "pair one line", tok[0], tok[1], scene->friction[given].line);
        return 0;
    }
    if (rs_scene_set_friction(scene, idx[0], idx[1], mu, lineno) != RS_OK) {
        snprintf(why, n, "out of memory");
        return 0;
    }
    return 1;
}

/* The scene of an open stream; path is what messages call it. */
static rs_error read_stream(FILE *f, const char *path, rs_scene *scene, rs_error_detail *detail)
{
    char line[LINE_MAX_CHARS + 2];
    double xy[2 * (RS_SCENE_MAX_POLYGON_VERTICES + 1)];
    char why[400];
    rs_error_detail reason;
    rs_error err = RS_OK;
    int lineno = 0;
    for (;;) {
        memset(line, 0, sizeof line); /* so that bytes after a NUL inside the line show */
        if (err != RS_OK || !fgets(line, sizeof line, f))
            break;
        lineno++;
        const size_t len = strlen(line);
        int after_nul = 0;
        for (size_t k = len + 1; k < sizeof line; k++)
            after_nul |= line[k] != '\0';
        if (after_nul) { /* the rest of the line would be dropped unread */
            err = rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: a NUL byte in the line (not a text "
                                "file?)", path, lineno);
            break;
        }
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
        if (strcmp(keyword, "body") == 0 || strcmp(keyword, "friction") == 0) {
            if (!(keyword[0] == 'b' ? read_body : read_friction)(rest, lineno, scene, why,
                                                                 sizeof why))
                err = rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: %s: %s", path, lineno, keyword,
                                    why);
        } else if (!is_polygon && strcmp(keyword, "halfplane") != 0) {
            err = rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: unknown keyword \"%s\" (expected "
                                "polygon, halfplane, body or friction)", path, lineno, keyword);
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
            if (e == RS_OK)
                scene->obstacles[scene->nobstacles - 1].line = lineno;
            if (e == RS_ERR_NOMEM)
                err = rs_detail_set(detail, e, "%s:%d: out of memory", path, lineno);
            else if (e != RS_OK)
                err = rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: %s: %s", path, lineno, keyword,
                                    reason.message);
        }
    }
    if (err == RS_OK && ferror(f))
        err = rs_detail_set(detail, RS_ERR_IO, "%s: read error", path);
    if (err == RS_OK && scene->nobstacles == 0 && scene->nbodies == 0)
        err = rs_detail_set(detail, RS_ERR_PARSE, "%s:%d: the scene has no obstacle and no body "
                            "(expected polygon, halfplane or body lines)", path, lineno);
    snprintf(scene->name, sizeof scene->name, "%s", path);
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
