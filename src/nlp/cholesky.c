/* cholesky.c: dense Cholesky factor and solve (see cholesky.h), column by column: every inner
 * loop runs down a column, contiguous in the column-major storage, and a zero entry of the
 * factor skips its column's update (the normal matrices of a contact problem are block-sparse,
 * and so mostly are their factors). */
#include <math.h>
#include <stddef.h>

#include "nlp/cholesky.h"

int rs_cholesky_factor(double *G, int k, double ridge)
{
    for (int j = 0; j < k; j++) {
        double *cj = G + (size_t)j * k;
        cj[j] += ridge;
        for (int t = 0; t < j; t++) { /* column j -= L(j, t) column t, on rows j .. k - 1 */
            const double *ct = G + (size_t)t * k;
            const double ljt = ct[j];
            if (ljt == 0.0)
                continue;
            for (int a = j; a < k; a++)
                cj[a] -= ct[a] * ljt;
        }
        if (!(cj[j] > 0.0))
            return 0;
        const double d = sqrt(cj[j]);
        cj[j] = d;
        for (int a = j + 1; a < k; a++)
            cj[a] /= d;
    }
    return 1;
}

void rs_cholesky_solve(const double *G, int k, double *v)
{
    for (int t = 0; t < k; t++) { /* L y = v, column by column */
        const double *ct = G + (size_t)t * k;
        v[t] /= ct[t];
        const double vt = v[t];
        if (vt != 0.0)
            for (int a = t + 1; a < k; a++)
                v[a] -= ct[a] * vt;
    }
    for (int a = k - 1; a >= 0; a--) { /* L^T x = y: row a of L^T is column a of L */
        const double *ca = G + (size_t)a * k;
        double s = v[a];
        for (int t = a + 1; t < k; t++)
            s -= ca[t] * v[t];
        v[a] = s / ca[a];
    }
}
