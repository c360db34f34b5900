/* rng.c: xoshiro256** with splitmix64 seeding; see rng.h. */
#include <math.h>

#include "core/rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void rs_rng_seed(rs_rng *rng, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        rng->s[i] = splitmix64(&x);
}

uint64_t rs_rng_next(rs_rng *rng)
{
    uint64_t *s = rng->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double rs_rng_uniform(rs_rng *rng)
{
    return (double)(rs_rng_next(rng) >> 11) * 0x1.0p-53;
}

double rs_rng_range(rs_rng *rng, double lo, double hi)
{
    return lo + (hi - lo) * rs_rng_uniform(rng);
}

uint64_t rs_rng_below(rs_rng *rng, uint64_t bound)
{
    /* Reject the top partial copy of [0, bound) so every residue is equally likely. */
    const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t r;
    do {
        r = rs_rng_next(rng);
    } while (r >= limit);
    return r % bound;
}

double rs_rng_normal(rs_rng *rng)
{
    /* Box-Muller; 1 - u lies in (0, 1], so the logarithm is finite */
    const double u1 = 1.0 - rs_rng_uniform(rng), u2 = rs_rng_uniform(rng);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}
