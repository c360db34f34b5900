/* dataset_csv.c: the CSV file of `relaxsim dataset` (see dataset_csv.h). */
#include <stdio.h>

#include "core/c_locale.h"
#include "io/dataset_csv.h"
#include "io/output.h"

void rs_write_dataset_csv(FILE *f, const rs_scenario *sc, const rs_dataset *d)
{
    const rs_model *m = sc->model;
    const locale_t caller = rs_c_locale_enter(); /* numbers in the C locale */
    fprintf(f, "# relaxsim dataset of %s\n# model %s (%s):", sc->path, m->name,
            m->variants[sc->variant]);
    for (int i = 0; i < m->nparams; i++)
        fprintf(f, "%s %s = %.17g", i ? "," : "", m->params[i].name, sc->params[i]);
    fprintf(f, "; dt = %.17g s; %d steps\n", sc->dt, sc->steps);
    fprintf(f, "# row k: the state at the start of step k (t_s = k dt), the input applied during "
               "the step, the step LCP's z and w = M z + q (solved by Lemke), the state at its "
               "end (next_*); units at the end of each name\n");
    if (d->noise > 0.0)
        fprintf(f,
                "# noise: Gaussian, standard deviation %.17g times each measured column's "
                "noise-free RMS (every column but the input), each cell its own draw (a state in "
                "two columns or rows is measured twice, independently), seed %llu\n",
                d->noise, (unsigned long long)d->noise_seed);
    else
        fprintf(f, "# noise: none\n");
    if (d->failed_step >= 0)
        fprintf(f, "# rows: %d; Lemke failed at step %d (%s), the run stops there\n", d->rows,
                d->failed_step, rs_lemke_status_name((rs_lemke_status)d->failed_status));
    else
        fprintf(f, "# rows: %d\n", d->rows);
    fprintf(f, "step,t_s");
    char name[128];
    for (int c = 0; c < d->ncol; c++)
        fprintf(f, ",%s", rs_dataset_column_name(sc, d, c, name, (int)sizeof name));
    fputc('\n', f);
    for (int k = 0; k < d->rows; k++) {
        fprintf(f, "%d,%.17g", k, k * sc->dt);
        for (int c = 0; c < d->ncol; c++)
            fprintf(f, ",%.17g", d->values[(size_t)k * d->ncol + c]);
        fputc('\n', f);
    }
    rs_c_locale_leave(caller);
}
