/*
 * plot_palette.h (internal): the colours of relaxsim's pictures. A column has one colour in
 * every picture of the project (rs_plot_column_colour: by its name, never by its place in a
 * file); runs and methods take the palette in order.
 */
#ifndef RS_CLI_PLOT_PALETTE_H
#define RS_CLI_PLOT_PALETTE_H

#define RS_PLOT_PALETTE_SIZE 8

static const char *const rs_plot_palette[RS_PLOT_PALETTE_SIZE] = {
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};

/* The colour of a state or force column by its name ("xd_mps", "shadow_max_abs_fz_N",
 * "box1.x_m"): its coordinate decides (x blue, y green, z red, an angle purple; the same letter in
 * the position, the velocity and the force), any other name a fixed colour of its own. */
const char *rs_plot_column_colour(const char *name);

/* The same hue darker (each channel times 0.55), as "#rrggbb" in out[8]: the Lemke curve drawn
 * dashed inside the NLP curve of the same column, so that equal curves still show their dashes. */
const char *rs_plot_colour_darker(const char *colour, char out[8]);

/* The unit of a column by its name's suffix: 0 m, 1 m/s, 2 N, 3 rad, 4 rad/s, 5 N m; -1 none. */
#define RS_PLOT_UNITS 6
int rs_plot_column_unit(const char *name);

/* The units' labels ("positions (m)", ...) and suffixes ("_m", ...). */
extern const char *const rs_plot_unit_label[RS_PLOT_UNITS];
extern const char *const rs_plot_unit_suffix[RS_PLOT_UNITS];

#endif
