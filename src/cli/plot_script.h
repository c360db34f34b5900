/*
 * plot_script.h (internal): what the pictures of `relaxsim plot` share (cmd_plot.c): the gnuplot
 * script DIR/plot.gp and its run, and the gradient sweep's picture (plot_grad.c).
 */
#ifndef RS_CLI_PLOT_SCRIPT_H
#define RS_CLI_PLOT_SCRIPT_H

#include <stdio.h>

/* DIR/plot.gp opened for writing with the settings every plot shares; NULL (message printed) if
 * it cannot be written. */
FILE *rs_plot_open_script(const char *dir);

/* Run DIR/plot.gp from DIR, gnuplot's messages into DIR/plot.log; 0 (message printed) if gnuplot
 * failed. */
int rs_plot_run_gnuplot(const char *dir);

/* DIR/grad_sweep.png from DIR/sweep.csv (relaxsim grad --sweep); an exit code. */
int rs_plot_grad_sweep(const char *dir);

#endif
