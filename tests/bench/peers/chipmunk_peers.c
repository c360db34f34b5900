/*
 * chipmunk_peers.c -- six planar rigid-body benchmark scenes run in Chipmunk2D
 * 7.0.3, each compared against its closed-form answer.
 *
 * Build:  gcc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L chipmunk_peers.c -lchipmunk -lm -o chipmunk_peers
 * Usage:  chipmunk_peers SCENEFILE_DIR [iterations]
 *         iterations: N -> cpSpaceSetIterations(space, N); default Chipmunk's 10.
 * Output (stdout, TSV, one line per measured quantity):
 *   scene  engine  quantity  closed_form  measured  rel_error  us_per_step
 *   rel_error = |measured - closed| / |closed|; when the closed form is 0 the
 *   absolute value is printed and the quantity name says "absolute".
 *   us_per_step = wall-clock microseconds per step (CLOCK_MONOTONIC around the
 *   stepping loop only, space construction excluded).
 * If the environment variable PEERS_POSES is set, the final poses of the pile
 * scene are written there ("NAME x z theta", %.17g, in the scene file's order).
 *
 * Conventions common to all scenes: Chipmunk's y axis is the scene's z axis
 * (up), g = 9.81 m/s^2 along -z, elasticity 0 on every shape, sleeping off
 * (the sleep time threshold is left at its default, INFINITY), one cpSpaceStep
 * per time step, Chipmunk's default collision bias, and
 *   cpSpaceSetCollisionSlop(space, 1e-4)   (metres; the default 0.1 is meant
 *                                            for pixel units).
 * Friction: Chipmunk multiplies the two shapes' coefficients.  In the one-body
 * scenes (slide, tip, slip_roll, ramp) the static ground has friction 1 and
 * the body mu; in the multi-body scenes (stack, pile) every shape, static ones
 * included, has friction sqrt(mu), so every pair mixes to mu.
 * Bodies are created with cpBodyNew(m, I), I = cpMomentForBox(m, w, h) =
 * m (w^2+h^2)/12 or cpMomentForCircle(m, 0, r, 0) = m r^2/2; their shapes carry
 * no mass of their own.  The ground is a static segment (radius 0) on z = 0.
 * The Debian library is built with debug checks and prints a banner to stdout
 * when the first space is created; that banner is redirected to stderr.
 *
 * Scenes and closed forms:
 *  1 slide     box 0.4 x 0.2, m = 2, on the ground, mu = 0.3, horizontal force
 *              F = 8 N at its centre every step; dt = 1e-3, 1000 steps.
 *              a = F/m - mu g = 1.057 m/s^2; measured (xd(1000)-xd(500))/(500 dt).
 *  2 tip       box 0.2 wide x 0.4 tall, m = 2, mu = 1; force F at the centre plus
 *              torque -0.1 F (= F acting 0.3 m above the ground).  It tips over
 *              the front corner when F 0.3 > m g w/2: F* = m g w / 0.6 = 6.54 N.
 *              Measured by 16 bisection halvings on [0.5 F*, 1.5 F*]; a run is
 *              2000 steps of 1e-3 s from rest, "tipped" if angle < -0.01 rad.
 *  3 slip_roll disc r = 0.1, m = 1, mu = 0.2, thrown at 3 m/s without spin;
 *              dt = 1e-3, 1000 steps.  It slips, then rolls at 2/3 v0 = 2 m/s
 *              (from t = v0/(3 mu g) = 0.51 s).  Measured xd and -omega r at the end.
 *  4 ramp      box 0.4 x 0.2, m = 2, at rest on a real 30 degree inclined static
 *              segment (gravity is NOT rotated), mu = 0.3; dt = 1e-3, 1000 steps.
 *              a = g (sin 30 - mu cos 30) = 2.356287 m/s^2, measured from the
 *              velocity component along the slope, (v(1000)-v(500))/(500 dt).
 *  5 stack     five boxes 0.4 x 0.2, m = 1, stacked at z = 0.1 ... 0.9, mu = 0.5;
 *              dt = 1e-3, 2000 steps.  Normal force under box k is (6-k) m g;
 *              measured after each step as the normal component of
 *              cpArbiterTotalImpulse / dt of the arbiter between boxes k-1 and k
 *              (ground for k = 1), found with cpBodyEachArbiter, averaged over the
 *              last 100 steps.  Also the top box's drift (closed form 0).
 *  6 pile      SCENEFILE_DIR/bodies_pile.scene: 12 boxes and 12 discs dropped into
 *              a 45 degree V valley (two half-planes, each modelled as a 4 m long
 *              static segment centred at the half-plane's point); mu = 0.5,
 *              dt = 2e-3, 1000 steps.  Closed form: the pile comes to rest, so
 *              the largest linear body speed at the end should be 0.
 */
#include <chipmunk/chipmunk.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define G 9.81
#define PI 3.14159265358979323846 /* M_PI is not in strict C11 */
#define MAX_BODIES 256
#define MAX_SHAPES 256

static int g_iters = 10;     /* solver iterations per step */
static char g_engine[96];    /* engine label naming the iteration count */

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

/* One TSV output line. */
static void emit(const char *scene, const char *quantity, double closed, double measured,
                 double us_per_step)
{
    double err = (closed == 0.0) ? fabs(measured) : fabs(measured - closed) / fabs(closed);
    printf("%s\t%s\t%s\t%.6g\t%.6g\t%.6g\t%.6g\n", scene, g_engine, quantity, closed, measured,
           err, us_per_step);
}

/* A space together with everything added to it, so that it can be freed. */
typedef struct {
    cpSpace *space;
    cpBody *bodies[MAX_BODIES];
    int nbodies;
    cpShape *shapes[MAX_SHAPES];
    int nshapes;
} World;

static void world_init(World *W)
{
    W->space = cpSpaceNew();
    W->nbodies = W->nshapes = 0;
    cpSpaceSetGravity(W->space, cpv(0.0, -G));
    cpSpaceSetIterations(W->space, g_iters);
    cpSpaceSetCollisionSlop(W->space, 1e-4); /* metres */
    /* sleep time threshold left at INFINITY: sleeping off; damping left at 1 */
}

static void world_free(World *W)
{
    for (int i = 0; i < W->nshapes; ++i) cpSpaceRemoveShape(W->space, W->shapes[i]);
    for (int i = 0; i < W->nbodies; ++i) cpSpaceRemoveBody(W->space, W->bodies[i]);
    for (int i = 0; i < W->nshapes; ++i) cpShapeFree(W->shapes[i]);
    for (int i = 0; i < W->nbodies; ++i) cpBodyFree(W->bodies[i]);
    cpSpaceFree(W->space);
}

static cpShape *add_shape(World *W, cpShape *s, double friction)
{
    if (W->nshapes >= MAX_SHAPES) {
        fprintf(stderr, "too many shapes\n");
        exit(1);
    }
    cpShapeSetFriction(s, friction);
    cpShapeSetElasticity(s, 0.0);
    W->shapes[W->nshapes++] = cpSpaceAddShape(W->space, s);
    return s;
}

/* Static segment from a to b on the space's static body. */
static void add_segment(World *W, double ax, double az, double bx, double bz, double friction)
{
    add_shape(W, cpSegmentShapeNew(cpSpaceGetStaticBody(W->space), cpv(ax, az), cpv(bx, bz), 0.0),
              friction);
}

static cpBody *add_body(World *W, double m, double I, double x, double z, double theta)
{
    if (W->nbodies >= MAX_BODIES) {
        fprintf(stderr, "too many bodies\n");
        exit(1);
    }
    cpBody *b = cpSpaceAddBody(W->space, cpBodyNew(m, I));
    cpBodySetPosition(b, cpv(x, z));
    cpBodySetAngle(b, theta);
    W->bodies[W->nbodies++] = b;
    return b;
}

static cpBody *add_box(World *W, double w, double h, double m, double x, double z, double theta,
                       double friction)
{
    cpBody *b = add_body(W, m, cpMomentForBox(m, w, h), x, z, theta);
    add_shape(W, cpBoxShapeNew(b, w, h, 0.0), friction);
    return b;
}

static cpBody *add_disc(World *W, double r, double m, double x, double z, double friction)
{
    cpBody *b = add_body(W, m, cpMomentForCircle(m, 0.0, r, cpvzero), x, z, 0.0);
    add_shape(W, cpCircleShapeNew(b, r, cpvzero), friction);
    return b;
}

/* ---------------------------------------------------------------- scene 1 */
static void scene_slide(void)
{
    const double w = 0.4, h = 0.2, m = 2, mu = 0.3, F = 8, dt = 1e-3;
    const int n = 1000;
    World W;
    world_init(&W);
    add_segment(&W, -10, 0, 10, 0, 1.0);
    cpBody *b = add_box(&W, w, h, m, 0, h / 2, 0, mu);
    double v500 = 0;
    double t0 = now_us();
    for (int i = 1; i <= n; ++i) {
        cpBodySetForce(b, cpv(F, 0.0)); /* Chipmunk zeroes forces after each step */
        cpSpaceStep(W.space, dt);
        if (i == n / 2) v500 = cpBodyGetVelocity(b).x;
    }
    double us = (now_us() - t0) / n;
    double a = (cpBodyGetVelocity(b).x - v500) / ((n / 2) * dt);
    emit("slide", "acceleration (m/s^2)", F / m - mu * G, a, us);
    world_free(&W);
}

/* ---------------------------------------------------------------- scene 2 */
/* One tipping run; returns the final angle and accumulates time and steps. */
static double tip_run(double F, double *elapsed_us, long *steps)
{
    const double w = 0.2, h = 0.4, m = 2, mu = 1, dt = 1e-3;
    const int n = 2000;
    World W;
    world_init(&W);
    add_segment(&W, -10, 0, 10, 0, 1.0);
    cpBody *b = add_box(&W, w, h, m, 0, h / 2, 0, mu);
    double t0 = now_us();
    for (int i = 0; i < n; ++i) {
        cpBodySetForce(b, cpv(F, 0.0));
        cpBodySetTorque(b, -0.1 * F); /* F acting 0.1 m above the centre */
        cpSpaceStep(W.space, dt);
    }
    *elapsed_us += now_us() - t0;
    *steps += n;
    double angle = cpBodyGetAngle(b);
    world_free(&W);
    return angle;
}

static void scene_tip(void)
{
    const double w = 0.2, m = 2;
    const double Fstar = m * G * w / (2 * 0.3);
    double lo = 0.5 * Fstar, hi = 1.5 * Fstar, elapsed = 0;
    long steps = 0;
    for (int k = 0; k < 16; ++k) {
        double mid = 0.5 * (lo + hi);
        if (tip_run(mid, &elapsed, &steps) < -0.01)
            hi = mid;
        else
            lo = mid;
    }
    emit("tip", "tipping force (N)", Fstar, 0.5 * (lo + hi), elapsed / steps);
}

/* ---------------------------------------------------------------- scene 3 */
static void scene_slip_roll(void)
{
    const double r = 0.1, m = 1, mu = 0.2, v0 = 3, dt = 1e-3;
    const int n = 1000;
    World W;
    world_init(&W);
    add_segment(&W, -10, 0, 10, 0, 1.0);
    cpBody *b = add_disc(&W, r, m, 0, r, mu);
    cpBodySetVelocity(b, cpv(v0, 0.0));
    double t0 = now_us();
    for (int i = 0; i < n; ++i) cpSpaceStep(W.space, dt);
    double us = (now_us() - t0) / n;
    emit("slip_roll", "rolling speed (m/s)", 2.0 * v0 / 3.0, cpBodyGetVelocity(b).x, us);
    emit("slip_roll", "spin x radius (m/s)", 2.0 * v0 / 3.0, -cpBodyGetAngularVelocity(b) * r, us);
    world_free(&W);
}

/* ---------------------------------------------------------------- scene 4 */
/* A real inclined segment through the origin, descending towards +x at 30 degrees. */
static void scene_ramp(void)
{
    const double w = 0.4, h = 0.2, m = 2, mu = 0.3, dt = 1e-3;
    const int n = 1000;
    const double th = PI / 6;
    const double dx = cos(th), dz = -sin(th); /* unit vector down the slope */
    const double nx = sin(th), nz = cos(th);  /* outward normal of the face */
    World W;
    world_init(&W);
    add_segment(&W, -4 * dx, -4 * dz, 4 * dx, 4 * dz, 1.0);
    /* start 1 m up the slope, box bottom face lying on the ramp face */
    const double px = -1.0 * dx, pz = -1.0 * dz;
    cpBody *b = add_box(&W, w, h, m, px + nx * h / 2, pz + nz * h / 2, -th, mu);
    double v500 = 0;
    double t0 = now_us();
    for (int i = 1; i <= n; ++i) {
        cpSpaceStep(W.space, dt);
        if (i == n / 2) v500 = cpvdot(cpBodyGetVelocity(b), cpv(dx, dz));
    }
    double us = (now_us() - t0) / n;
    double a = (cpvdot(cpBodyGetVelocity(b), cpv(dx, dz)) - v500) / ((n / 2) * dt);
    emit("ramp", "acceleration (m/s^2)", G * (sin(th) - mu * cos(th)), a, us);
    world_free(&W);
}

/* ---------------------------------------------------------------- scene 5 */
typedef struct {
    cpBody *other; /* the body on the far side of the wanted arbiter */
    double jn;     /* accumulated normal impulse found */
} PairQuery;

static void pair_cb(cpBody *body, cpArbiter *arb, void *data)
{
    PairQuery *q = (PairQuery *)data;
    cpBody *a, *b;
    cpArbiterGetBodies(arb, &a, &b);
    cpBody *other = (a == body) ? b : a;
    if (other != q->other) return;
    /* normal component of the total impulse (friction part excluded) */
    q->jn += fabs(cpvdot(cpArbiterTotalImpulse(arb), cpArbiterGetNormal(arb)));
}

static void scene_stack(void)
{
    const double w = 0.4, h = 0.2, m = 1, mu = 0.5, dt = 1e-3;
    const int n = 2000, navg = 100;
    const double f = sqrt(mu); /* every pair mixes to f*f = mu */
    World W;
    world_init(&W);
    add_segment(&W, -10, 0, 10, 0, f);
    cpBody *body[6];
    body[0] = cpSpaceGetStaticBody(W.space);
    for (int k = 1; k <= 5; ++k) body[k] = add_box(&W, w, h, m, 0, h / 2 + (k - 1) * h, 0, f);
    const double x0 = 0, z0 = h / 2 + 4 * h;
    double sum[6] = {0, 0, 0, 0, 0, 0};
    double elapsed = 0;
    for (int i = 1; i <= n; ++i) {
        double t0 = now_us();
        cpSpaceStep(W.space, dt);
        elapsed += now_us() - t0; /* the force read-out below is not timed */
        if (i > n - navg)
            for (int k = 1; k <= 5; ++k) {
                PairQuery q = {body[k - 1], 0.0};
                cpBodyEachArbiter(body[k], pair_cb, &q);
                sum[k] += q.jn / dt;
            }
    }
    double us = elapsed / n;
    for (int k = 1; k <= 5; ++k) {
        char q[64];
        snprintf(q, sizeof q, "contact force under box %d (N)", k);
        emit("stack", q, (6 - k) * m * G, sum[k] / navg, us);
    }
    cpVect p = cpBodyGetPosition(body[5]);
    emit("stack", "drift of the top box (m, absolute)", 0.0, hypot(p.x - x0, p.y - z0), us);
    world_free(&W);
}

/* ---------------------------------------------------------------- scene 6 */
typedef struct {
    char name[64];
    int disc;
    double w, h, r, m, x, z, theta;
} PileBody;

typedef struct {
    double x, z, nx, nz;
} HalfPlane;

/* Parse the "key=value" tokens of a body line; returns 1 on success. */
static int parse_body(const char *line, PileBody *pb)
{
    char kind[32];
    int used = 0;
    memset(pb, 0, sizeof *pb);
    if (sscanf(line, "body %63s %31s%n", pb->name, kind, &used) != 2) return 0;
    pb->disc = strcmp(kind, "disc") == 0;
    if (!pb->disc && strcmp(kind, "box") != 0) return 0;
    const char *s = line + used;
    char key[32];
    double val;
    int adv;
    while (sscanf(s, " %31[^= \t\n]=%lf%n", key, &val, &adv) == 2) {
        if (!strcmp(key, "w")) pb->w = val;
        else if (!strcmp(key, "h")) pb->h = val;
        else if (!strcmp(key, "r")) pb->r = val;
        else if (!strcmp(key, "m")) pb->m = val;
        else if (!strcmp(key, "x")) pb->x = val;
        else if (!strcmp(key, "z")) pb->z = val;
        else if (!strcmp(key, "theta")) pb->theta = val;
        s += adv;
    }
    return pb->m > 0 && (pb->disc ? pb->r > 0 : (pb->w > 0 && pb->h > 0));
}

/* Returns 0 if the scene file cannot be read or the poses not written. */
static int scene_pile(const char *dir)
{
    const double mu = 0.5, dt = 2e-3;
    const int n = 1000;
    const double f = sqrt(mu); /* every pair mixes to f*f = mu */
    static PileBody pbs[MAX_BODIES];
    HalfPlane hp[16];
    int nb = 0, nh = 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/bodies_pile.scene", dir);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "cannot read %s\n", path);
        return 0;
    }
    char line[1024];
    while (fgets(line, sizeof line, fp)) {
        const char *s = line;
        while (*s == ' ' || *s == '\t') ++s;
        if (*s == '#' || *s == '\n' || *s == '\0') continue;
        if (!strncmp(s, "halfplane", 9)) {
            HalfPlane p;
            if (nh < 16 && sscanf(s, "halfplane %lf %lf , %lf %lf", &p.x, &p.z, &p.nx, &p.nz) == 4)
                hp[nh++] = p;
            else
                fprintf(stderr, "bad halfplane line: %s", line);
        } else if (!strncmp(s, "body", 4)) {
            if (nb < MAX_BODIES - 1 && parse_body(s, &pbs[nb]))
                ++nb;
            else
                fprintf(stderr, "bad body line: %s", line);
        } else {
            fprintf(stderr, "ignored line: %s", line);
        }
    }
    fclose(fp);

    World W;
    world_init(&W);
    for (int i = 0; i < nh; ++i) {
        /* the boundary line of the half-plane: direction (-nz, nx), 4 m long */
        double tx = -hp[i].nz, tz = hp[i].nx;
        add_segment(&W, hp[i].x - 2 * tx, hp[i].z - 2 * tz, hp[i].x + 2 * tx, hp[i].z + 2 * tz, f);
    }
    cpBody *bodies[MAX_BODIES];
    for (int i = 0; i < nb; ++i)
        bodies[i] = pbs[i].disc ? add_disc(&W, pbs[i].r, pbs[i].m, pbs[i].x, pbs[i].z, f)
                                : add_box(&W, pbs[i].w, pbs[i].h, pbs[i].m, pbs[i].x, pbs[i].z,
                                          pbs[i].theta, f);
    double t0 = now_us();
    for (int i = 0; i < n; ++i) cpSpaceStep(W.space, dt);
    double us = (now_us() - t0) / n;
    double vmax = 0;
    for (int i = 0; i < nb; ++i) vmax = fmax(vmax, cpvlength(cpBodyGetVelocity(bodies[i])));
    emit("pile", "largest speed at the end (m/s, absolute)", 0.0, vmax, us);
    int ok = 1;
    const char *out = getenv("PEERS_POSES");
    if (out) {
        FILE *fo = fopen(out, "w");
        if (!fo) {
            fprintf(stderr, "cannot write %s\n", out);
            ok = 0;
        } else {
            for (int i = 0; i < nb; ++i) {
                cpVect p = cpBodyGetPosition(bodies[i]);
                fprintf(fo, "%s %.17g %.17g %.17g\n", pbs[i].name, p.x, p.y,
                        cpBodyGetAngle(bodies[i]));
            }
            fclose(fo);
        }
    }
    world_free(&W);
    return ok;
}

/* The debug build of libchipmunk printf()s a banner when the first space is
 * initialised; create and free one space with stdout pointed at stderr. */
static void silence_banner(void)
{
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    if (saved < 0) return;
    dup2(STDERR_FILENO, STDOUT_FILENO);
    cpSpaceFree(cpSpaceNew());
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s SCENEFILE_DIR [N]\n", argv[0]);
        return 2;
    }
    if (argc == 3) {
        char *end;
        long v = strtol(argv[2], &end, 10);
        if (*end != '\0' || v < 1 || v > 100000) {
            fprintf(stderr, "bad iteration count '%s'\n", argv[2]);
            return 2;
        }
        g_iters = (int)v;
    }
    snprintf(g_engine, sizeof g_engine, "Chipmunk 7.0.3 (%d iterations)", g_iters);
    silence_banner();

    scene_slide();
    scene_tip();
    scene_slip_roll();
    scene_ramp();
    scene_stack();
    return scene_pile(argv[1]) ? 0 : 1;
}
