/*
 * plot_script.h (internal): what every picture of the command shares (gnuplot.c): the gnuplot
 * script plot.gp in an output set, its run, the quoting of every string that goes into a script,
 * and the gradient sweep's picture (plot_grad.c).
 */
#ifndef RS_CLI_PLOT_SCRIPT_H
#define RS_CLI_PLOT_SCRIPT_H

#include <stddef.h>
#include <stdio.h>

#include "io/outset.h"

/* text as a gnuplot string literal (in single quotes, quotes doubled, control characters
 * replaced by '?'), in buf (cut to fit); returns buf. Nothing in it is ever expanded by gnuplot. */
const char *rs_gnuplot_string(char *buf, size_t len, const char *text);

/* 1 if a gnuplot executable is on the PATH. */
int rs_gnuplot_found(void);

/* plot.gp created in the set with the settings every plot shares; NULL (message printed) if it
 * cannot be written. */
FILE *rs_plot_open_script(rs_outset *set);

/* Close the script and run it: gnuplot in the set's staging directory (fork and exec, no shell),
 * the output directory on its loadpath, its messages into plot.log of the set. pictures: the
 * files the script draws (registered in the set; dropped if gnuplot fails). 1 on success; 0
 * (message printed) if gnuplot failed. */
int rs_plot_run_gnuplot(rs_outset *set, FILE *script, const char *const *pictures, int npictures);

/* The most varied keys a batch picture is drawn for (batch_0.png ..). */
#define RS_PLOT_MAX_KEYS 16

/* DIR/grad_sweep.png from DIR/sweep.csv (relaxsim grad --sweep), into the set; an exit code.
 * On success wrote holds the line to print once the set is committed. */
int rs_plot_grad_sweep(const char *dir, rs_outset *set, char *wrote, size_t wrote_len);

#endif
