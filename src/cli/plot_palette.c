/* plot_palette.c: a column's colour and unit by its name (see plot_palette.h). */
#include <stdio.h>
#include <string.h>

#include "cli/plot_palette.h"

const char *const rs_plot_unit_label[RS_PLOT_UNITS] = {
    "positions (m)", "velocities (m/s)", "forces (N)", "angles (rad)", "angular velocities (rad/s)",
    "torques (N m)"};
const char *const rs_plot_unit_suffix[RS_PLOT_UNITS] = {"_m", "_mps", "_N", "_rad", "_radps",
                                                        "_Nm"};

static int ends_with(const char *s, const char *suffix)
{
    const size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

int rs_plot_column_unit(const char *name)
{
    for (int u = 0; u < RS_PLOT_UNITS; u++)
        if (ends_with(name, rs_plot_unit_suffix[u]))
            return u;
    return -1;
}

const char *rs_plot_column_colour(const char *name)
{
    /* the column's own name: after any prefix ("shadow_max_abs_", "diff_", a body "box1."),
     * before its unit */
    const char *base = strrchr(name, '.');
    base = base ? base + 1 : name;
    static const char *const prefixes[] = {"shadow_max_abs_", "diff_"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(base, prefixes[i], strlen(prefixes[i])) == 0)
            base += strlen(prefixes[i]);
    char stem[64];
    size_t len = strcspn(base, "_");
    if (len >= sizeof stem)
        len = sizeof stem - 1;
    memcpy(stem, base, len);
    stem[len] = '\0';
    /* the coordinate: x, y, z or theta, as a position (x), a velocity (xd) or a force (fx) */
    const char *coord = stem;
    if (stem[0] == 'f' && stem[1]) /* fx, fz, ftheta; fn and f fall through */
        coord = stem + 1;
    if (strcmp(coord, "x") == 0 || strcmp(coord, "xd") == 0)
        return "#1f77b4";
    if (strcmp(coord, "y") == 0 || strcmp(coord, "yd") == 0)
        return "#2ca02c";
    if (strcmp(coord, "z") == 0 || strcmp(coord, "zd") == 0)
        return "#d62728";
    if (strncmp(coord, "th", 2) == 0 || strcmp(coord, "tau") == 0)
        return "#9467bd";
    /* the other columns of the models: their own colours */
    static const char *const named[][2] = {{"xdp", "#ff7f0e"}, {"xdm", "#17becf"},
                                           {"f", "#8c564b"},   {"fn", "#8c564b"},
                                           {"ft", "#e377c2"}};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strcmp(stem, named[i][0]) == 0)
            return named[i][1];
    /* any other: one of the remaining colours, by a hash of the name (the same everywhere) */
    static const char *const others[] = {"#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#bcbd22",
                                         "#7f7f7f"};
    unsigned h = 2166136261u;
    for (const unsigned char *c = (const unsigned char *)stem; *c; c++)
        h = (h ^ *c) * 16777619u;
    return others[h % (sizeof others / sizeof others[0])];
}

const char *rs_plot_colour_darker(const char *colour, char out[8])
{
    unsigned r = 0, g = 0, b = 0;
    if (sscanf(colour, "#%2x%2x%2x", &r, &g, &b) != 3)
        r = g = b = 0;
    snprintf(out, 8, "#%02x%02x%02x", (unsigned)(0.55 * r), (unsigned)(0.55 * g),
             (unsigned)(0.55 * b));
    return out;
}
