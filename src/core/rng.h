/*
 * rng.h (internal): a portable seeded random number generator.
 *
 * xoshiro256** seeded through splitmix64 (Blackman & Vigna). Integer arithmetic only, so the
 * stream is bitwise identical on every platform and compiler for the same seed.
 */
#ifndef RS_CORE_RNG_H
#define RS_CORE_RNG_H

#include <stdint.h>

typedef struct rs_rng {
    uint64_t s[4];
} rs_rng;

/** Seed the generator; every seed (0 included) gives a valid, distinct stream. */
void rs_rng_seed(rs_rng *rng, uint64_t seed);

/** Next 64 random bits. */
uint64_t rs_rng_next(rs_rng *rng);

/** Uniform double in [0, 1) with 53 random bits. */
double rs_rng_uniform(rs_rng *rng);

/** Uniform double in [lo, hi). */
double rs_rng_range(rs_rng *rng, double lo, double hi);

/** A standard normal deviate (mean 0, standard deviation 1; Box-Muller, libm's log and cos). */
double rs_rng_normal(rs_rng *rng);

/** Uniform integer in [0, bound) for bound >= 1 (rejection sampling, unbiased). */
uint64_t rs_rng_below(rs_rng *rng, uint64_t bound);

#endif
