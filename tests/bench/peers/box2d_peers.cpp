/*
 * box2d_peers.cpp -- six planar rigid-body benchmark scenes run in Box2D 2.4.1,
 * each compared against its closed-form answer.
 *
 * Build:  g++ -O2 -std=c++17 box2d_peers.cpp -lbox2d -o box2d_peers
 * Usage:  box2d_peers SCENEFILE_DIR [iterations]
 *         iterations: "N"   -> N velocity / ceil(N/2) position iterations
 *                     "V,P" -> V velocity / P position iterations
 *         default: Box2D's usual 8 velocity / 3 position iterations.
 * Output (stdout, TSV, one line per measured quantity):
 *   scene  engine  quantity  closed_form  measured  rel_error  us_per_step
 *   rel_error = |measured - closed| / |closed|; when the closed form is 0 the
 *   absolute value is printed and the quantity name says "absolute".
 *   us_per_step = wall-clock microseconds per step (CLOCK_MONOTONIC around the
 *   stepping loop only, world construction excluded).
 * If the environment variable PEERS_POSES is set, the final poses of the pile
 * scene are written there ("NAME x z theta", %.17g, in the scene file's order).
 *
 * Conventions common to all scenes: the engine's y axis is the scene's z axis
 * (up), g = 9.81 m/s^2 along -z, restitution 0, sleeping off, one World::Step
 * per time step.  Every fixture of a scene gets friction mu, so Box2D's mixing
 * rule sqrt(f1 f2) gives exactly mu for every pair.  Masses and moments of
 * inertia are set explicitly (SetMassData) to m and m (w^2+h^2)/12 (box) or
 * m r^2/2 (disc) about the centre, after creating fixtures with density m/area.
 * The ground is a two-sided static edge (b2EdgeShape) on the line z = 0.
 * Box2D's compiled-in settings are left alone: linear slop 0.005 m, polygon
 * skin radius 0.01 m on boxes and edges (so a box rests about 0.015 m and a
 * disc about 0.005 m above an edge), Baumgarte factor 0.2.
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
 *              edge (gravity is NOT rotated), mu = 0.3; dt = 1e-3, 1000 steps.
 *              a = g (sin 30 - mu cos 30) = 2.356287 m/s^2, measured from the
 *              velocity component along the slope, (v(1000)-v(500))/(500 dt).
 *  5 stack     five boxes 0.4 x 0.2, m = 1, stacked at z = 0.1 ... 0.9, mu = 0.5;
 *              dt = 1e-3, 2000 steps.  Normal force under box k is (6-k) m g;
 *              measured as the sum of the manifold points' normalImpulse / dt of
 *              the contact between boxes k-1 and k (ground for k = 1), averaged
 *              over the last 100 steps.  Also the top box's drift (closed form 0).
 *  6 pile      SCENEFILE_DIR/bodies_pile.scene: 12 boxes and 12 discs dropped into
 *              a 45 degree V valley (two half-planes, each modelled as a 4 m long
 *              static edge centred at the half-plane's point); mu = 0.5,
 *              dt = 2e-3, 1000 steps.  Closed form: the pile comes to rest, so
 *              the largest linear body speed at the end should be 0.
 */
#include <box2d/box2d.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <time.h>

namespace {

const double G = 9.81;

int g_vel_iters = 8;   // velocity iterations per step
int g_pos_iters = 3;   // position iterations per step
std::string g_engine;  // engine label naming the iteration counts

double now_us() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

// One TSV output line.
void emit(const char *scene, const char *quantity, double closed, double measured,
          double us_per_step) {
    double err = (closed == 0.0) ? std::fabs(measured)
                                 : std::fabs(measured - closed) / std::fabs(closed);
    std::printf("%s\t%s\t%s\t%.6g\t%.6g\t%.6g\t%.6g\n", scene, g_engine.c_str(), quantity,
                closed, measured, err, us_per_step);
}

// A world with gravity -g along y (= z) and sleeping off.
struct World {
    b2World w;
    World() : w(b2Vec2(0.0f, (float)-G)) { w.SetAllowSleeping(false); }
    void step(double dt) { w.Step((float)dt, g_vel_iters, g_pos_iters); }
};

// Static two-sided edge from a to b with friction mu.
b2Body *add_edge(World &W, double ax, double az, double bx, double bz, double mu) {
    b2BodyDef bd;  // static by default
    b2Body *body = W.w.CreateBody(&bd);
    b2EdgeShape e;
    e.SetTwoSided(b2Vec2((float)ax, (float)az), b2Vec2((float)bx, (float)bz));
    b2FixtureDef fd;
    fd.shape = &e;
    fd.friction = (float)mu;
    fd.restitution = 0.0f;
    body->CreateFixture(&fd);
    return body;
}

// Dynamic body with its centre at (x, z), angle theta, at rest.
b2Body *new_dynamic(World &W, double x, double z, double theta) {
    b2BodyDef bd;
    bd.type = b2_dynamicBody;
    bd.position.Set((float)x, (float)z);
    bd.angle = (float)theta;
    bd.allowSleep = false;
    return W.w.CreateBody(&bd);
}

// Override the fixture-derived mass properties with the exact uniform-density values.
void set_mass(b2Body *b, double m, double I) {
    b2MassData md;
    md.mass = (float)m;
    md.center.Set(0.0f, 0.0f);
    md.I = (float)I;
    b->SetMassData(&md);
}

b2Body *add_box(World &W, double w, double h, double m, double x, double z, double theta,
                double mu) {
    b2Body *b = new_dynamic(W, x, z, theta);
    b2PolygonShape p;
    p.SetAsBox((float)(w / 2), (float)(h / 2));
    b2FixtureDef fd;
    fd.shape = &p;
    fd.density = (float)(m / (w * h));
    fd.friction = (float)mu;
    fd.restitution = 0.0f;
    b->CreateFixture(&fd);
    set_mass(b, m, m * (w * w + h * h) / 12.0);
    return b;
}

b2Body *add_disc(World &W, double r, double m, double x, double z, double mu) {
    b2Body *b = new_dynamic(W, x, z, 0.0);
    b2CircleShape c;
    c.m_radius = (float)r;
    b2FixtureDef fd;
    fd.shape = &c;
    fd.density = (float)(m / (M_PI * r * r));
    fd.friction = (float)mu;
    fd.restitution = 0.0f;
    b->CreateFixture(&fd);
    set_mass(b, m, m * r * r / 2.0);
    return b;
}

// ---------------------------------------------------------------- scene 1
void scene_slide() {
    const double w = 0.4, h = 0.2, m = 2, mu = 0.3, F = 8, dt = 1e-3;
    const int n = 1000;
    World W;
    add_edge(W, -10, 0, 10, 0, mu);
    b2Body *b = add_box(W, w, h, m, 0, h / 2, 0, mu);
    double v500 = 0;
    double t0 = now_us();
    for (int i = 1; i <= n; ++i) {
        b->ApplyForceToCenter(b2Vec2((float)F, 0.0f), true);  // cleared after each Step
        W.step(dt);
        if (i == n / 2) v500 = b->GetLinearVelocity().x;
    }
    double us = (now_us() - t0) / n;
    double a = (b->GetLinearVelocity().x - v500) / ((n / 2) * dt);
    emit("slide", "acceleration (m/s^2)", F / m - mu * G, a, us);
}

// ---------------------------------------------------------------- scene 2
// One tipping run; returns the final angle.  steps accumulates the step count.
double tip_run(double F, double *elapsed_us, long *steps) {
    const double w = 0.2, h = 0.4, m = 2, mu = 1, dt = 1e-3;
    const int n = 2000;
    World W;
    add_edge(W, -10, 0, 10, 0, mu);
    b2Body *b = add_box(W, w, h, m, 0, h / 2, 0, mu);
    double t0 = now_us();
    for (int i = 0; i < n; ++i) {
        b->ApplyForceToCenter(b2Vec2((float)F, 0.0f), true);
        b->ApplyTorque((float)(-0.1 * F), true);  // F acting 0.1 m above the centre
        W.step(dt);
    }
    *elapsed_us += now_us() - t0;
    *steps += n;
    return b->GetAngle();
}

void scene_tip() {
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

// ---------------------------------------------------------------- scene 3
void scene_slip_roll() {
    const double r = 0.1, m = 1, mu = 0.2, v0 = 3, dt = 1e-3;
    const int n = 1000;
    World W;
    add_edge(W, -10, 0, 10, 0, mu);
    b2Body *b = add_disc(W, r, m, 0, r, mu);
    b->SetLinearVelocity(b2Vec2((float)v0, 0.0f));
    double t0 = now_us();
    for (int i = 0; i < n; ++i) W.step(dt);
    double us = (now_us() - t0) / n;
    emit("slip_roll", "rolling speed (m/s)", 2.0 * v0 / 3.0, b->GetLinearVelocity().x, us);
    emit("slip_roll", "spin x radius (m/s)", 2.0 * v0 / 3.0, -b->GetAngularVelocity() * r, us);
}

// ---------------------------------------------------------------- scene 4
// A real inclined edge through the origin, descending towards +x at 30 degrees.
void scene_ramp() {
    const double w = 0.4, h = 0.2, m = 2, mu = 0.3, dt = 1e-3;
    const int n = 1000;
    const double th = M_PI / 6;
    const double dx = std::cos(th), dz = -std::sin(th);  // unit vector down the slope
    const double nx = std::sin(th), nz = std::cos(th);   // outward normal of the face
    World W;
    add_edge(W, -4 * dx, -4 * dz, 4 * dx, 4 * dz, mu);
    // start 1 m up the slope, box bottom face lying on the ramp face
    const double px = -1.0 * dx, pz = -1.0 * dz;
    b2Body *b = add_box(W, w, h, m, px + nx * h / 2, pz + nz * h / 2, -th, mu);
    auto vslope = [&]() {
        b2Vec2 v = b->GetLinearVelocity();
        return v.x * dx + v.y * dz;
    };
    double v500 = 0;
    double t0 = now_us();
    for (int i = 1; i <= n; ++i) {
        W.step(dt);
        if (i == n / 2) v500 = vslope();
    }
    double us = (now_us() - t0) / n;
    double a = (vslope() - v500) / ((n / 2) * dt);
    emit("ramp", "acceleration (m/s^2)", G * (std::sin(th) - mu * std::cos(th)), a, us);
}

// ---------------------------------------------------------------- scene 5
// Sum of the normal impulses of the touching contact between bodies a and b.
double pair_impulse(World &W, const b2Body *a, const b2Body *b) {
    double J = 0;
    for (b2Contact *c = W.w.GetContactList(); c; c = c->GetNext()) {
        if (!c->IsTouching()) continue;
        const b2Body *p = c->GetFixtureA()->GetBody(), *q = c->GetFixtureB()->GetBody();
        if (!((p == a && q == b) || (p == b && q == a))) continue;
        const b2Manifold *mf = c->GetManifold();
        for (int i = 0; i < mf->pointCount; ++i) J += mf->points[i].normalImpulse;
    }
    return J;
}

void scene_stack() {
    const double w = 0.4, h = 0.2, m = 1, mu = 0.5, dt = 1e-3;
    const int n = 2000, navg = 100;
    World W;
    b2Body *body[6];
    body[0] = add_edge(W, -10, 0, 10, 0, mu);
    for (int k = 1; k <= 5; ++k) body[k] = add_box(W, w, h, m, 0, h / 2 + (k - 1) * h, 0, mu);
    const double x0 = 0, z0 = h / 2 + 4 * h;
    double sum[6] = {0, 0, 0, 0, 0, 0};
    double elapsed = 0;
    for (int i = 1; i <= n; ++i) {
        double t0 = now_us();
        W.step(dt);
        elapsed += now_us() - t0;  // the force read-out below is not timed
        if (i > n - navg)
            for (int k = 1; k <= 5; ++k) sum[k] += pair_impulse(W, body[k - 1], body[k]) / dt;
    }
    double us = elapsed / n;
    for (int k = 1; k <= 5; ++k) {
        char q[64];
        std::snprintf(q, sizeof q, "contact force under box %d (N)", k);
        emit("stack", q, (6 - k) * m * G, sum[k] / navg, us);
    }
    b2Vec2 p = body[5]->GetPosition();
    emit("stack", "drift of the top box (m, absolute)", 0.0, std::hypot(p.x - x0, p.y - z0), us);
}

// ---------------------------------------------------------------- scene 6
struct PileBody {
    std::string name;
    bool disc;
    double w, h, r, m, x, z, theta;
};

struct HalfPlane {
    double x, z, nx, nz;
};

// Parse "key=value" tokens of a body line.
bool parse_body(const char *line, PileBody &pb) {
    char name[128], kind[32];
    int used = 0;
    if (std::sscanf(line, "body %127s %31s%n", name, kind, &used) != 2) return false;
    pb.name = name;
    pb.disc = std::strcmp(kind, "disc") == 0;
    if (!pb.disc && std::strcmp(kind, "box") != 0) return false;
    pb.w = pb.h = pb.r = pb.m = pb.x = pb.z = pb.theta = 0;
    const char *s = line + used;
    char key[32];
    double val;
    int adv;
    while (std::sscanf(s, " %31[^= \t\n]=%lf%n", key, &val, &adv) == 2) {
        if (!std::strcmp(key, "w")) pb.w = val;
        else if (!std::strcmp(key, "h")) pb.h = val;
        else if (!std::strcmp(key, "r")) pb.r = val;
        else if (!std::strcmp(key, "m")) pb.m = val;
        else if (!std::strcmp(key, "x")) pb.x = val;
        else if (!std::strcmp(key, "z")) pb.z = val;
        else if (!std::strcmp(key, "theta")) pb.theta = val;
        s += adv;
    }
    return pb.m > 0 && (pb.disc ? pb.r > 0 : (pb.w > 0 && pb.h > 0));
}

bool read_pile(const std::string &path, std::vector<HalfPlane> &hp, std::vector<PileBody> &bodies) {
    FILE *f = std::fopen(path.c_str(), "r");
    if (!f) return false;
    char line[1024];
    while (std::fgets(line, sizeof line, f)) {
        const char *s = line;
        while (*s == ' ' || *s == '\t') ++s;
        if (*s == '#' || *s == '\n' || *s == '\0') continue;
        if (!std::strncmp(s, "halfplane", 9)) {
            HalfPlane p;
            if (std::sscanf(s, "halfplane %lf %lf , %lf %lf", &p.x, &p.z, &p.nx, &p.nz) == 4)
                hp.push_back(p);
            else
                std::fprintf(stderr, "bad halfplane line: %s", line);
        } else if (!std::strncmp(s, "body", 4)) {
            PileBody pb;
            if (parse_body(s, pb))
                bodies.push_back(pb);
            else
                std::fprintf(stderr, "bad body line: %s", line);
        } else {
            std::fprintf(stderr, "ignored line: %s", line);
        }
    }
    std::fclose(f);
    return true;
}

// Returns false if the scene file cannot be read.
bool scene_pile(const std::string &dir) {
    const double mu = 0.5, dt = 2e-3;
    const int n = 1000;
    std::vector<HalfPlane> hp;
    std::vector<PileBody> pbs;
    std::string path = dir + "/bodies_pile.scene";
    if (!read_pile(path, hp, pbs)) {
        std::fprintf(stderr, "cannot read %s\n", path.c_str());
        return false;
    }
    World W;
    for (const HalfPlane &p : hp) {
        // the boundary line of the half-plane: direction (-nz, nx), 4 m long
        double tx = -p.nz, tz = p.nx;
        add_edge(W, p.x - 2 * tx, p.z - 2 * tz, p.x + 2 * tx, p.z + 2 * tz, mu);
    }
    std::vector<b2Body *> bodies;
    for (const PileBody &pb : pbs)
        bodies.push_back(pb.disc ? add_disc(W, pb.r, pb.m, pb.x, pb.z, mu)
                                 : add_box(W, pb.w, pb.h, pb.m, pb.x, pb.z, pb.theta, mu));
    double t0 = now_us();
    for (int i = 0; i < n; ++i) W.step(dt);
    double us = (now_us() - t0) / n;
    double vmax = 0;
    for (b2Body *b : bodies) vmax = std::fmax(vmax, (double)b->GetLinearVelocity().Length());
    emit("pile", "largest speed at the end (m/s, absolute)", 0.0, vmax, us);
    if (const char *out = std::getenv("PEERS_POSES")) {
        FILE *f = std::fopen(out, "w");
        if (!f) {
            std::fprintf(stderr, "cannot write %s\n", out);
            return false;
        }
        for (size_t i = 0; i < bodies.size(); ++i) {
            b2Vec2 p = bodies[i]->GetPosition();
            std::fprintf(f, "%s %.17g %.17g %.17g\n", pbs[i].name.c_str(), (double)p.x,
                         (double)p.y, (double)bodies[i]->GetAngle());
        }
        std::fclose(f);
    }
    return true;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: %s SCENEFILE_DIR [N | V,P]\n", argv[0]);
        return 2;
    }
    if (argc == 3) {
        int v = 0, p = 0;
        if (std::sscanf(argv[2], "%d,%d", &v, &p) == 2) {
        } else if (std::sscanf(argv[2], "%d", &v) == 1) {
            p = (v + 1) / 2;
        }
        if (v < 1 || p < 1) {
            std::fprintf(stderr, "bad iteration count '%s'\n", argv[2]);
            return 2;
        }
        g_vel_iters = v;
        g_pos_iters = p;
    }
    char label[96];
    std::snprintf(label, sizeof label, "Box2D 2.4.1 (%d vel / %d pos iterations)", g_vel_iters,
                  g_pos_iters);
    g_engine = label;

    scene_slide();
    scene_tip();
    scene_slip_roll();
    scene_ramp();
    scene_stack();
    return scene_pile(argv[1]) ? 0 : 1;
}
