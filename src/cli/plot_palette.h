/*
 * plot_palette.h (internal): the colours of relaxsim plot's pictures, one list for all of them
 * (a column, a run), so that the same index has the same colour everywhere.
 */
#ifndef RS_CLI_PLOT_PALETTE_H
#define RS_CLI_PLOT_PALETTE_H

#define RS_PLOT_PALETTE_SIZE 8

static const char *const rs_plot_palette[RS_PLOT_PALETTE_SIZE] = {
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};

#endif
