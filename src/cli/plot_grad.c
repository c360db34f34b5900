/*
 * plot_grad.c: the picture of a gradient sweep (relaxsim grad --sweep KEY=LO:HI:N -o DIR):
 * DIR/grad_sweep.png, one panel per (output, key) pair (at most RS_PLOT_MAX_PANELS), each
 * gradient against the swept value: the LCP's forward mode (points: it jumps where a contact
 * switches, and a line would draw the jump as a slope), the NLP's KKT sensitivity (a line: the
 * relaxation makes it smooth), the central differences of the Lemke trajectory (open circles;
 * crosses where the difference straddles a switch) and, when computed, those of the NLP
 * trajectory (open triangles).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/plot_palette.h"
#include "cli/plot_script.h"

#define RS_PLOT_MAX_PANELS 6

/* The distinct (output, key) pairs of sweep.csv in their order (columns 2 and 3), read from the
 * first swept value's rows; the swept key's name from the header. */
typedef struct sweep_pairs {
    char key[64];
    int n;
    char output[RS_PLOT_MAX_PANELS][64], wrt[RS_PLOT_MAX_PANELS][64];
    int total; /* pairs in the file (more than n: only the first n are drawn) */
    int has_fd_nlp;
    int has_non_smooth; /* some difference straddles a switch (drawn, and in the key, only then) */
} sweep_pairs;

static int read_pairs(const char *path, sweep_pairs *p)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[2048], first[64] = "";
    memset(p, 0, sizeof *p);
    int ok = fgets(line, sizeof line, f) != NULL;
    if (ok)
        sscanf(line, "%63[^,]", p->key);
    int in_first = 1;
    while (ok && fgets(line, sizeof line, f)) {
        char value[64], output[64], wrt[64];
        if (sscanf(line, "%63[^,],%63[^,],%63[^,]", value, output, wrt) != 3)
            break;
        p->has_non_smooth |= strstr(line, ",non_smooth,") != NULL;
        if (!first[0])
            snprintf(first, sizeof first, "%s", value);
        in_first &= strcmp(value, first) == 0;
        if (!in_first)
            continue;
        if (p->n < RS_PLOT_MAX_PANELS) {
            snprintf(p->output[p->n], sizeof p->output[0], "%s", output);
            snprintf(p->wrt[p->n], sizeof p->wrt[0], "%s", wrt);
            p->n++;
        }
        p->total++;
        /* column 13, fd_nlp: "nan" when the NLP differences were not run */
        const char *fd_nlp = line;
        for (int c = 1; c < 13 && fd_nlp; c++)
            if ((fd_nlp = strchr(fd_nlp, ',')))
                fd_nlp++;
        p->has_fd_nlp |= fd_nlp && strncmp(fd_nlp, "nan", 3) != 0;
    }
    fclose(f);
    return p->n > 0;
}

int rs_plot_grad_sweep(const char *dir, rs_outset *set, char *wrote, size_t wrote_len)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/sweep.csv", dir);
    sweep_pairs p;
    if (!read_pairs(path, &p))
        return rs_cli_usage_error("plot: %s: no gradient sweep rows", path);
    FILE *g = rs_plot_open_script(set);
    if (!g)
        return RS_EXIT_USAGE;
    char key[160], title[400], text[300];
    snprintf(text, sizeof text, "gradients against %s: LCP (forward mode), NLP (relaxation, KKT "
             "sensitivity), central differences", p.key);
    /* sweep.csv columns: 1 swept value, 2 output, 3 key, 5 lcp, 6 nlp, 7 fd, 12 verdict,
     * 13 fd_nlp */
    fprintf(g,
            "set output 'grad_sweep.png'\nset terminal pngcairo noenhanced size 1100,%d "
            "font ',11'\nset multiplot layout %d,1 title %s\n",
            300 + 260 * p.n, p.n, rs_gnuplot_string(title, sizeof title, text));
    fprintf(g, "set xlabel %s\nset key outside right\n", rs_gnuplot_string(key, sizeof key, p.key));
    for (int i = 0; i < p.n; i++) {
        /* each swept value has one row per pair, in the same order: pair i is every total-th
         * row from row i */
        char rows[64];
        snprintf(rows, sizeof rows, "skip 1 every %d::%d", p.total, i);
        char ylabel[200];
        snprintf(text, sizeof text, "d %s / d %s", p.output[i], p.wrt[i]);
        fprintf(g, "set ylabel %s\n", rs_gnuplot_string(ylabel, sizeof ylabel, text));
        fprintf(g,
                "plot 'sweep.csv' %s using 1:6 with lines lw 2 lc rgb '%s' title 'NLP', \\\n"
                "     '' %s using 1:5 with points pt 7 ps 1.2 lc rgb '%s' title 'LCP', \\\n"
                "     '' %s using 1:(strcol(12) ne 'non_smooth' ? $7 : NaN) with points pt 6 "
                "ps 1.6 lc rgb '%s' title 'FD'",
                rows, rs_plot_palette[0], rows, rs_plot_palette[1], rows, rs_plot_palette[2]);
        if (p.has_non_smooth)
            fprintf(g,
                    ", \\\n     '' %s using 1:(strcol(12) eq 'non_smooth' ? $7 : NaN) with "
                    "points pt 2 ps 1.6 lc rgb '%s' title 'FD across a switch'",
                    rows, rs_plot_palette[3]);
        if (p.has_fd_nlp)
            fprintf(g,
                    ", \\\n     '' %s using 1:13 with points pt 8 ps 1.4 lc rgb '%s' title "
                    "'FD (NLP)'",
                    rows, rs_plot_palette[4]);
        fputc('\n', g);
    }
    fprintf(g, "unset multiplot\n");
    static const char *const pictures[] = {"grad_sweep.png"};
    if (!rs_plot_run_gnuplot(set, g, pictures, 1))
        return RS_EXIT_FAILED;
    snprintf(wrote, wrote_len, "wrote %s/grad_sweep.png (%d panel%s%s)\n", dir, p.n,
             p.n == 1 ? "" : "s",
             p.total > p.n ? "; more pairs in sweep.csv than panels: the first are drawn" : "");
    return RS_EXIT_OK;
}
