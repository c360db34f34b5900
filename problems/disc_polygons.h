/*
 * disc_polygons.h (internal to problems/): what the parts of the disc_polygons model share: its
 * parameters, state and formulations, and the step's contact set (disc_polygons_contacts.c),
 * which the LCPs (disc_polygons.c) and the model's own NLP (disc_polygons_nlp.c) are built on.
 */
#ifndef RS_PROBLEMS_DISC_POLYGONS_H
#define RS_PROBLEMS_DISC_POLYGONS_H

#include "sim/model.h"

enum { P_M, P_G, P_R, P_REACH, P_MU, P_CORNERS, NPARAM };
enum { S_X, S_Z, S_XD, S_ZD, NSTATE };
enum { U_X, U_Z };
enum { F_X, F_Z };
enum { FORM_STEWART_TRINKLE, FORM_EGAN_SIMPLE, FORM_EGAN_ACCURATE_NOTE, FORM_EGAN_ACCURATE, NFORM };

/* The largest LCP: more unknowns than this in one step refuse the step. */
#define MAX_UNKNOWNS 64
#define MAX_CONTACTS MAX_UNKNOWNS

typedef struct contact {
    double n[2], t[2]; /* outward unit normal; tangent t = (n_z, -n_x) */
    double k;
    unsigned long long id; /* which feature: 2 * edge (+ 1 for the vertex at the edge's start) */
    /* how the line moves with the position p and the radius r (the step's derivatives): an edge's
     * is fixed, n = const, k = c + r; a vertex's follows p, n = (p - v)/|p - v|, k = n . v + r:
     * dn = N dp with N = (I - n n') / |p - v| (row-major), dk = (N' v) . dp + dr */
    double dn_dp[4];
    double dk_dp[2];
} contact;

/* Where a group's unknowns sit in z (absolute columns; -1: absent in this formulation). */
typedef struct group_layout {
    int first, n; /* its contacts: [first, first + n) */
    int c;        /* c_2..c_n; egan_accurate: e_ij at c + pair_index(n, i, j) */
    int g;        /* g_1..g_n (egan_accurate_note) */
    int p;        /* p_1..p_n */
    int fr;       /* (beta+_i, beta-_i, lambda_i) at fr + 3 i (mu > 0) */
    int dummy;    /* the dummy p (egan_accurate_note) */
    int end;      /* one past its last column */
} group_layout;

typedef struct active_set {
    int ncontacts, ngroups, nunknowns;
    contact c[MAX_CONTACTS];
    group_layout g[MAX_CONTACTS];
} active_set;

/* v_free = v + dt (u/m - g e_z), the velocity without contact forces. */
void dp_free_velocity(const rs_step_data *d, double *v_free);
/* Its tangent along t. */
void dp_free_velocity_tangent(const rs_step_data *d, const rs_step_tangent *t, double *dv_free);
/* A contact's normal, tangent and offset tangents along t (the contact set held fixed). */
void dp_contact_tangent(const contact *c, const rs_step_tangent *t, double *dn, double *dtan,
                        double *dk);
/* The step's natural units (model.h): V from |v|, |v_free| and g dt. */
void dp_step_scales(const rs_step_data *d, rs_step_scales *sc);
/* 1 when the contacts have friction (mu > 0). */
int dp_has_friction(const rs_step_data *d);
/* The contact's line at x: d(x) = n . x - k. */
double dp_line_distance(const contact *c, const double *x);
/* Column offset of e_ij (i != j) among a group's n (n - 1) pairwise auxiliaries. */
int dp_pair_index(int n, int i, int j);
/* The step's active set (deterministic: every callback of a step rebuilds the same one); 0 when
 * it would need more than MAX_UNKNOWNS unknowns. */
int dp_find_active(const rs_step_data *d, active_set *a);

/* The model's own NLP (disc_polygons_nlp.c). */
void dp_nlp_size(const rs_step_data *d, int *n, int *m);
void dp_nlp_describe(rs_nlp_problem *p, int variant);
void dp_nlp_start(const rs_step_data *d, rs_nlp_start which, double *x0);
void dp_nlp_recover(const rs_step_data *d, const double *x, double *state_next, double *forces, double *per_contact);

#endif
