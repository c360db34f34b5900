/* consumer.c: uses the installed relaxsim to solve a 2x2 LCP and checks its certificate. */
#include <stdio.h>

#include <relaxsim/relaxsim.h>

int main(void)
{
    /* M = [[2, 1], [1, 2]] (column-major), q = (-5, -6): z = (4/3, 7/3). */
    const double M[4] = {2.0, 1.0, 1.0, 2.0}, q[2] = {-5.0, -6.0};
    double z[2], w[2];
    rs_lemke_info info;
    const rs_error err = rs_lemke_solve_alloc(2, M, q, NULL, NULL, z, w, &info);
    if (err != RS_OK || info.status != RS_LEMKE_SOLVED || !info.cert.passed) {
        fprintf(stderr, "consumer: %s, status %s\n", rs_error_string(err),
                rs_lemke_status_name(info.status));
        return 1;
    }
    printf("consumer: relaxsim %s solved z = (%.6f, %.6f) in %d pivots\n", rs_version(), z[0], z[1],
           info.pivots);
    return 0;
}
