/*
 * replay.h (internal): the parts of `relaxsim replay` (cmd_replay.c).
 */
#ifndef RS_CLI_REPLAY_H
#define RS_CLI_REPLAY_H

#include "sim/run_config.h"
#include "sim/stepper.h"

/* The relaxation-bias curve of the capsule's step (replay_continuation.c): printed, and with dir
 * (may be NULL) written and drawn there. An exit code: 0 the distance shrinks with the
 * relaxation, 1 it does not (flagged), 2 bad usage. */
int rs_replay_continuation(rs_scenario *sc, const rs_stepper_snapshot *snap, const double *state,
                           const double *input, int step, const char *dir);

#endif
