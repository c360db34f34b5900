/* cholesky.c: dense Cholesky factor and solve (see cholesky.h). */
#include <math.h>
#include <stddef.h>

#include "nlp/cholesky.h"

int rs_cholesky_factor(double *G, int k, double ridge)
{
    for (int a = 0; a < k; a++)
        for (int b = 0; b <= a; b++) {
            double s = G[a + (size_t)b * k] + (a == b ? ridge : 0.0);
            for (int t = 0; t < b; t++)
                s -= G[a + (size_t)t * k] * G[b + (size_t)t * k];
            if (a == b) {
                if (!(s > 0.0))
                    return 0;
                G[a + (size_t)a * k] = sqrt(s);
            } else {
                G[a + (size_t)b * k] = s / G[b + (size_t)b * k];
            }
        }
    return 1;
}

void rs_cholesky_solve(const double *G, int k, double *v)
{
    for (int a = 0; a < k; a++) {
        double s = v[a];
        for (int t = 0; t < a; t++)
            s -= G[a + (size_t)t * k] * v[t];
        v[a] = s / G[a + (size_t)a * k];
    }
    for (int a = k - 1; a >= 0; a--) {
        double s = v[a];
        for (int t = a + 1; t < k; t++)
            s -= G[t + (size_t)a * k] * v[t];
        v[a] = s / G[a + (size_t)a * k];
    }
}
