/*
 * dataset.h (internal): a scenario's steps as learning data (`relaxsim dataset`, the learning
 * studies of src/study/).
 *
 * The trajectory is Lemke's: each step's LCP solved exactly, from the state the previous step
 * reached. Row k holds
 *     the state x_k at the start of the step, the input applied during the step (u_{k+1} in note
 *     000's indexing), the step LCP's z and w = M z + q, and the state x_{k+1} at its end,
 * each in the model's own units (the column names end in them). Models that name their LCP's
 * components (rs_model.lcp_z_names) only: fixed-size LCPs.
 *
 * Optional measurement noise: every measured column (state, z, w, next state; not the input, a
 * commanded value) gets independent Gaussian noise of standard deviation sigma times the
 * column's root mean square over the noise-free run (a column that is 0 throughout stays 0),
 * drawn from one seeded stream row by row. Every cell gets its own draw: a state that appears in
 * two rows (row k's next state, row k+1's state) or twice in one (sliding_block_direct's z and
 * next velocities) is measured twice, independently. The noise-free values are kept beside the
 * noisy ones.
 */
#ifndef RS_SIM_DATASET_H
#define RS_SIM_DATASET_H

#include <stdint.h>

#include "relaxsim/error.h"
#include "sim/run_config.h"

typedef struct rs_dataset {
    int rows;          /* steps recorded: all of them, or those before the failed one */
    int failed_step;   /* -1, or the step whose Lemke solve failed (the run stops there) */
    int failed_status; /* its rs_lemke_status (or RS_LEMKE_TOO_LARGE) */
    int nstate, ninput, nlcp;
    int ncol;     /* nstate + ninput + 2 nlcp + nstate */
    double noise; /* sigma, relative to each measured column's RMS */
    uint64_t noise_seed;
    double *values; /* rows x ncol, row-major, with the noise */
    double *clean;  /* the same without it */
    double *rms;    /* ncol: each column's noise-free root mean square */
} rs_dataset;

/* Column c's offsets: state at 0, input at nstate, z at nstate + ninput, w after z, next state
 * last. */
static inline int rs_dataset_z_col(const rs_dataset *d)
{
    return d->nstate + d->ninput;
}

static inline int rs_dataset_next_col(const rs_dataset *d)
{
    return d->nstate + d->ninput + 2 * d->nlcp;
}

/* Record sc's Lemke trajectory (sc->steps rows). RS_ERR_BAD_ARG if the model does not name its
 * LCP's components, RS_ERR_BAD_SETTING for a noise outside [0, 1e3], RS_ERR_NOMEM. A failed
 * Lemke step is not an error: it is recorded in failed_step and the rows stop before it. */
rs_error rs_dataset_record(const rs_scenario *sc, double noise, uint64_t noise_seed,
                           rs_dataset *out);
void rs_dataset_free(rs_dataset *d);

/* The name of column c (a state, input, z, w or next-state name), written to buf. */
const char *rs_dataset_column_name(const rs_scenario *sc, const rs_dataset *d, int c, char *buf,
                                   int len);

#endif
