/* stepper.c: one step of a model by the NLP or the Lemke backend (see stepper.h). */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/stepper.h"
#include "core/timer.h"
#include "lcp/lcp_internal.h"
#include "nlp/ipopt_solver.h"
#include "nlp/kkt_check.h"
#include "nlp/lcp_relaxation.h"

struct rs_stepper {
    rs_stepper_config cfg;
    rs_step_data data;          /* what the model callbacks read; state/input set per step */
    rs_lcp_relaxation relax;    /* used when the model has no NLP of its own */
    rs_nlp_problem problem;
    rs_ipopt_solver *ipopt;     /* the solver and KKT check of this step's size: */
    rs_kkt_check *kkt;
    /* one per LCP size (index n_k, 0 .. cap_lcp) for models whose size changes from step to
     * step, created when a size first occurs; fixed-size models use index lcp_n only */
    rs_ipopt_solver **solver_by_size;
    rs_kkt_check **kkt_by_size;
    unsigned long long *used_by_size; /* the tick of each size's last use */
    unsigned long long tick;    /* counts the uses of a cached solver (least recently used) */
    int ncached;                /* the solvers held, by size and own (<= the cache's size) */
    int use_relaxation;         /* 1: the relaxation of the LCP; 0: the model's own NLP */
    /* the model's own NLP with per-step sizes: one solver per (n, m), created on first use */
    struct own_solver {
        int n, m, nnz_jac, nnz_hess;
        unsigned long long bounds_key;
        unsigned long long used;    /* the tick of its last use */
        rs_ipopt_solver *ipopt;
        rs_kkt_check *kkt;
    } *own;
    int nown, cap_own;
    int lcp_now;                /* this step's LCP size n_k (lcp_n for fixed-size models) */
    unsigned long long structure;       /* this step's key from lcp_size */
    unsigned long long point_structure; /* the key of x_prev (the previous primal-dual point) */
    unsigned long long basis_structure; /* the key of lemke_basis */
    int nlp_n, nlp_m;
    double *x;                  /* NLP iterate */
    double *mult_g, *mult_x_l, *mult_x_u; /* multipliers found by the KKT check */
    double *x_prev, *prev_g, *prev_x_l, *prev_x_u; /* last accepted primal-dual solution */
    double *x_polish;           /* the polish of IPOPT's answer (nlp.polish) */
    double *x_ipopt;            /* IPOPT's answer, kept while its polish is judged */
    double *x_warm;             /* when x_prev was polished (have_warm): IPOPT's own answer, the
                                   start of a warm IPOPT solve (a polished point sits on its
                                   bounds, and IPOPT warm-started there took 3.5 iterations a
                                   step against 1.1) */
    int have_warm;
    int have_prev;
    double *M, *q, *z, *w;      /* step LCP */
    /* the relaxation's LCP in natural units: Ms = D M C, qs = D q, z = C zs, with D and C from
     * the model's units of w and z (rs_model.lcp_units) */
    double *Ms, *qs, *D, *C;
    void *lemke_work;
    size_t lemke_bytes;
    unsigned char *lemke_basis; /* cap_lcp: 1: z_i basic in the last Lemke answer */
    int have_basis;
    int cap_n, cap_m; /* the capacity of the primal-dual arrays (the largest NLP met) */
    int cap_lcp;      /* the capacity of the LCP arrays (the largest LCP met) */
};

void rs_stepper_destroy(rs_stepper *s)
{
    if (!s)
        return;
    for (int k = 0; s->solver_by_size && k <= s->cap_lcp; k++) {
        rs_ipopt_destroy(s->solver_by_size[k]);
        rs_kkt_check_destroy(s->kkt_by_size[k]);
    }
    for (int k = 0; k < s->nown; k++) {
        rs_ipopt_destroy(s->own[k].ipopt);
        rs_kkt_check_destroy(s->own[k].kkt);
    }
    if (s->data.cache)
        s->cfg.model->cache_free(s->data.cache);
    free(s->solver_by_size);
    free(s->kkt_by_size);
    free(s->used_by_size);
    free(s->own);
    free(s->lemke_basis);
    free(s->x);
    free(s->M);
    free(s->lemke_work);
    free(s);
}

/* The primal-dual arrays for an NLP of n variables and m constraints: the iterate, then two
 * primal-dual points (x, g, x_l, x_u multipliers), zeroed when new (a snapshot reads them all);
 * a previous point is kept where it was. RS_ERR_NOMEM. */
static rs_error ensure_nlp(rs_stepper *s, int n, int m)
{
    if (n <= s->cap_n && m <= s->cap_m && s->x)
        return RS_OK;
    const int cn = n > s->cap_n ? n : s->cap_n, cm = m > s->cap_m ? m : s->cap_m;
    const size_t nn = (size_t)cn, mm = (size_t)cm;
    double *x = calloc(4 * nn + 2 * (3 * nn + mm) + 1, sizeof(double));
    if (!x)
        return RS_ERR_NOMEM;
    double *prev = x + nn + mm + 2 * nn; /* x_prev */
    if (s->x) { /* keep the previous point (its multipliers, IPOPT's own answer too) */
        memcpy(prev + 3 * nn + mm + 2 * nn, s->x_warm, sizeof(double) * (size_t)s->cap_n);
        memcpy(prev, s->x_prev, sizeof(double) * (size_t)s->cap_n);
        memcpy(prev + nn, s->prev_g, sizeof(double) * (size_t)s->cap_m);
        memcpy(prev + nn + mm, s->prev_x_l, sizeof(double) * (size_t)s->cap_n);
        memcpy(prev + 2 * nn + mm, s->prev_x_u, sizeof(double) * (size_t)s->cap_n);
    }
    free(s->x);
    s->x = x;
    s->mult_g = s->x + nn;
    s->mult_x_l = s->mult_g + mm;
    s->mult_x_u = s->mult_x_l + nn;
    s->x_prev = s->mult_x_u + nn;
    s->prev_g = s->x_prev + nn;
    s->prev_x_l = s->prev_g + mm;
    s->prev_x_u = s->prev_x_l + nn;
    s->x_polish = s->prev_x_u + nn;
    s->x_ipopt = s->x_polish + nn;
    s->x_warm = s->x_ipopt + nn;
    s->cap_n = cn;
    s->cap_m = cm;
    return RS_OK;
}

/* The LCP arrays (M, q, z, w and the relaxation's Ms, qs, D, C), Lemke's workspace and basis, the
 * solvers by size, and for the relaxation its NLP arrays, for an LCP of size n. RS_ERR_NOMEM. */
static rs_error ensure_lcp(rs_stepper *s, int n)
{
    if (n <= s->cap_lcp && s->M)
        return RS_OK;
    const size_t nl = (size_t)(n > s->cap_lcp ? n : s->cap_lcp);
    double *M = malloc(sizeof(double) * (2 * nl * nl + 6 * nl + 1));
    const size_t bytes = rs_lemke_workspace_size((int)nl);
    void *work = malloc(bytes ? bytes : 1);
    unsigned char *basis = calloc(nl + 1, 1);
    rs_ipopt_solver **by_size = calloc(nl + 1, sizeof *by_size);
    rs_kkt_check **kkt_size = calloc(nl + 1, sizeof *kkt_size);
    unsigned long long *used = calloc(nl + 1, sizeof *used);
    if (!M || !work || !basis || !by_size || !kkt_size || !used) {
        free(M);
        free(work);
        free(basis);
        free(by_size);
        free(kkt_size);
        free(used);
        return RS_ERR_NOMEM;
    }
    if (s->solver_by_size) { /* the solvers made so far stay */
        memcpy(by_size, s->solver_by_size, sizeof *by_size * ((size_t)s->cap_lcp + 1));
        memcpy(kkt_size, s->kkt_by_size, sizeof *kkt_size * ((size_t)s->cap_lcp + 1));
        memcpy(used, s->used_by_size, sizeof *used * ((size_t)s->cap_lcp + 1));
    }
    if (s->lemke_basis)
        memcpy(basis, s->lemke_basis, (size_t)s->cap_lcp);
    free(s->M);
    free(s->lemke_work);
    free(s->lemke_basis);
    free(s->solver_by_size);
    free(s->kkt_by_size);
    free(s->used_by_size);
    s->M = M;
    s->q = s->M + nl * nl;
    s->z = s->q + nl;
    s->w = s->z + nl;
    s->Ms = s->w + nl;
    s->qs = s->Ms + nl * nl;
    s->D = s->qs + nl;
    s->C = s->D + nl;
    s->lemke_work = work;
    s->lemke_bytes = bytes;
    s->lemke_basis = basis;
    s->solver_by_size = by_size;
    s->kkt_by_size = kkt_size;
    s->used_by_size = used;
    s->cap_lcp = (int)nl;
    s->relax.M = s->Ms;
    s->relax.q = s->qs;
    return s->use_relaxation ? ensure_nlp(s, 2 * (int)nl, 2 * (int)nl) : RS_OK;
}

/* Room for one more cached solver: while the cache is full, free the least recently used one
 * (of either kind: by LCP size, or the model's own NLP by its dimensions). The solver of the
 * step being set up is made after this, so none in use is freed. */
static void make_room(rs_stepper *s)
{
    const int cap = s->cfg.solver_cache > 0 ? s->cfg.solver_cache : RS_STEPPER_SOLVER_CACHE;
    while (s->ncached >= cap) {
        int size = -1, own = -1;
        unsigned long long oldest = ~0ULL;
        for (int n = 0; s->solver_by_size && n <= s->cap_lcp; n++)
            if (s->solver_by_size[n] && s->used_by_size[n] < oldest) {
                oldest = s->used_by_size[n];
                size = n;
            }
        for (int k = 0; k < s->nown; k++)
            if (s->own[k].used < oldest) {
                oldest = s->own[k].used;
                own = k;
                size = -1;
            }
        rs_ipopt_solver *gone = own >= 0 ? s->own[own].ipopt : size >= 0 ? s->solver_by_size[size]
                                                                         : NULL;
        if (gone && gone == s->ipopt) { /* the last step's: no longer the current one */
            s->ipopt = NULL;
            s->kkt = NULL;
        }
        if (own >= 0) {
            rs_ipopt_destroy(s->own[own].ipopt);
            rs_kkt_check_destroy(s->own[own].kkt);
            s->own[own] = s->own[--s->nown]; /* the last one takes its place */
        } else if (size >= 0) {
            rs_ipopt_destroy(s->solver_by_size[size]);
            rs_kkt_check_destroy(s->kkt_by_size[size]);
            s->solver_by_size[size] = NULL;
            s->kkt_by_size[size] = NULL;
        } else {
            return; /* nothing held (never: ncached counts what is held) */
        }
        s->ncached--;
    }
}

int rs_stepper_cached_solvers(const rs_stepper *s)
{
    return s ? s->ncached : 0;
}

/* The model's own NLP of this step's size (n, m): the solver and KKT check of those dimensions,
 * created the first time they occur (the bounds are the model's for that contact set: the
 * same dimensions, the same layout). RS_ERR_DIMENSION when the step is too large. */
static rs_error use_own_size(rs_stepper *s)
{
    int n, m;
    const rs_model *mdl = s->cfg.model;
    mdl->nlp_size(&s->data, &n, &m);
    if (n < 1 || m < 0 || (!mdl->sizes_grow && (n > mdl->nlp_n || m > mdl->nlp_m)))
        return RS_ERR_DIMENSION;
    rs_error err = ensure_nlp(s, n, m);
    if (err != RS_OK)
        return err;
    int nnz_jac = 0, nnz_hess = 0;
    unsigned long long key = 0;
    if (mdl->nlp_layout)
        mdl->nlp_layout(&s->data, &nnz_jac, &nnz_hess, &key);
    s->problem.n = s->nlp_n = n;
    s->problem.m = s->nlp_m = m;
    s->problem.nnz_jac = nnz_jac;
    s->problem.nnz_hess = nnz_hess;
    for (int k = 0; k < s->nown; k++)
        if (s->own[k].n == n && s->own[k].m == m && s->own[k].nnz_jac == nnz_jac &&
            s->own[k].nnz_hess == nnz_hess && s->own[k].bounds_key == key) {
            s->own[k].used = ++s->tick;
            s->ipopt = s->own[k].ipopt;
            s->kkt = s->own[k].kkt;
            return RS_OK;
        }
    make_room(s);
    if (s->nown == s->cap_own) {
        const int cap = s->cap_own ? 2 * s->cap_own : 16;
        struct own_solver *more = realloc(s->own, sizeof *more * (size_t)cap);
        if (!more)
            return RS_ERR_NOMEM;
        s->own = more;
        s->cap_own = cap;
    }
    struct own_solver *o = &s->own[s->nown];
    memset(o, 0, sizeof *o);
    err = rs_ipopt_create(&s->problem, &s->cfg.nlp, &o->ipopt);
    if (err == RS_OK)
        err = rs_kkt_check_create(&s->problem, &o->kkt);
    if (err != RS_OK) {
        rs_ipopt_destroy(o->ipopt);
        o->ipopt = NULL;
        return err;
    }
    o->n = n;
    o->m = m;
    o->nnz_jac = nnz_jac;
    o->nnz_hess = nnz_hess;
    o->bounds_key = key;
    o->used = ++s->tick;
    s->nown++;
    s->ncached++;
    s->ipopt = o->ipopt;
    s->kkt = o->kkt;
    return RS_OK;
}

/* Make the step's LCP size n the current one: the relaxation's problem, and the IPOPT solver and
 * KKT check of that size (created the first time the size occurs). */
static rs_error use_size(rs_stepper *s, int n)
{
    const rs_model *m = s->cfg.model;
    rs_error grown = ensure_lcp(s, n);
    if (grown != RS_OK)
        return grown;
    assert(n >= 0 && n <= s->cap_lcp); /* the workspace holds the step's LCP */
    s->lcp_now = n;
    if (s->use_relaxation) {
        s->relax.n = n;
        rs_lcp_relaxation_problem(&s->relax, &s->problem);
        s->problem.natural_units = 1;
        s->nlp_n = s->nlp_m = 2 * n;
    }
    /* the contact-free step: nothing to solve; the model's own NLP: sized on the NLP path */
    if (n == 0 || (!s->use_relaxation && m->nlp_size))
        return RS_OK;
    if (!s->solver_by_size[n]) {
        make_room(s);
        rs_error err = rs_ipopt_create(&s->problem, &s->cfg.nlp, &s->solver_by_size[n]);
        if (err == RS_OK)
            err = rs_kkt_check_create(&s->problem, &s->kkt_by_size[n]);
        if (err != RS_OK) { /* both or neither: a later step of this size tries again */
            rs_ipopt_destroy(s->solver_by_size[n]);
            s->solver_by_size[n] = NULL;
            return err;
        }
        s->ncached++;
    }
    s->used_by_size[n] = ++s->tick;
    s->ipopt = s->solver_by_size[n];
    s->kkt = s->kkt_by_size[n];
    return RS_OK;
}

rs_error rs_stepper_create(const rs_stepper_config *cfg, rs_stepper **out)
{
    if (!cfg || !out || !cfg->model || !cfg->params)
        return RS_ERR_NULL_ARG;
    *out = NULL;
    if (!(cfg->dt > 0.0) || !isfinite(cfg->dt))
        return RS_ERR_BAD_SETTING;
    /* settings refused here, not as a failure of every step later */
    if (rs_nlp_settings_validate(&cfg->nlp, NULL) != RS_OK ||
        rs_lemke_settings_validate(&cfg->lemke, NULL) != RS_OK)
        return RS_ERR_BAD_SETTING;
    if (rs_model_check(cfg->model, NULL) != RS_OK)
        return RS_ERR_BAD_ARG; /* an incomplete model */
    rs_stepper *s = calloc(1, sizeof *s);
    if (!s)
        return RS_ERR_NOMEM;
    s->cfg = *cfg;
    const rs_model *m = cfg->model;
    s->data.params = cfg->params;
    s->data.dt = cfg->dt;
    s->data.variant = cfg->variant;
    s->data.nlp = &s->cfg.nlp;
    const int nl = m->lcp_n;
    s->use_relaxation = !rs_model_own_nlp(m) || cfg->nlp.relax_lcp;
    if (s->use_relaxation && !m->lcp_units) {
        free(s);
        return RS_ERR_BAD_SETTING; /* no units to pose the relaxation in */
    }
    /* the arrays for the largest sizes (a model whose sizes grow: its first capacities) */
    rs_error grown = ensure_lcp(s, nl);
    if (grown == RS_OK && !s->use_relaxation)
        grown = ensure_nlp(s, m->nlp_n, m->nlp_m);
    if (grown != RS_OK) {
        rs_stepper_destroy(s);
        return grown;
    }
    s->nlp_n = !s->use_relaxation ? m->nlp_n : 2 * nl;
    s->nlp_m = !s->use_relaxation ? m->nlp_m : 2 * nl;
    s->data.scene = cfg->scene;
    if (m->needs_scene && !cfg->scene) {
        rs_stepper_destroy(s);
        return RS_ERR_NULL_ARG;
    }
    if (m->cache_create && !(s->data.cache = m->cache_create(m, cfg->scene))) {
        rs_stepper_destroy(s);
        return RS_ERR_NOMEM;
    }
    if (!s->use_relaxation) {
        m->nlp_describe(&s->problem, cfg->variant);
        s->problem.ctx = &s->data;
    } else {
        s->relax.settings = s->cfg.nlp;
    }
    rs_error err = m->lcp_size ? RS_OK : use_size(s, nl); /* per-step sizes: at each step */
    if (err != RS_OK) {
        rs_stepper_destroy(s);
        return err;
    }
    *out = s;
    return RS_OK;
}

void rs_stepper_reset(rs_stepper *s)
{
    s->have_prev = 0;
    s->have_basis = 0;
}

rs_error rs_stepper_snapshot_alloc(rs_stepper_snapshot *sn, int n, int m, int nbasis)
{
    rs_stepper_snapshot_free(sn);
    const size_t nn = (size_t)(n > 0 ? n : 0), mm = (size_t)(m > 0 ? m : 0);
    sn->x = calloc(4 * nn + mm + 1, sizeof(double));
    sn->basis = calloc((size_t)(nbasis > 0 ? nbasis : 0) + 1, 1);
    if (!sn->x || !sn->basis) {
        rs_stepper_snapshot_free(sn);
        return RS_ERR_NOMEM;
    }
    sn->g = sn->x + nn;
    sn->x_l = sn->g + mm;
    sn->x_u = sn->x_l + nn;
    sn->x_warm = sn->x_u + nn;
    sn->have_warm = 0;
    sn->n = (int)nn;
    sn->m = (int)mm;
    sn->nbasis = nbasis > 0 ? nbasis : 0;
    return RS_OK;
}

rs_error rs_stepper_save_basis(const rs_stepper *s, rs_stepper_snapshot *out)
{
    const int cap = s->cap_lcp;
    if (out->nbasis < cap || !out->basis) {
        unsigned char *grown = realloc(out->basis, (size_t)cap + 1);
        if (!grown)
            return RS_ERR_NOMEM;
        out->basis = grown;
        out->nbasis = cap;
    }
    memset(out->basis, 0, (size_t)out->nbasis);
    memcpy(out->basis, s->lemke_basis, (size_t)cap);
    out->have_basis = s->have_basis;
    out->basis_structure = s->basis_structure;
    return RS_OK;
}

void rs_stepper_snapshot_free(rs_stepper_snapshot *sn)
{
    if (!sn)
        return;
    free(sn->x);
    free(sn->basis);
    sn->x = sn->g = sn->x_l = sn->x_u = sn->x_warm = NULL;
    sn->have_warm = 0;
    sn->basis = NULL;
    sn->n = sn->m = sn->nbasis = 0;
}

rs_error rs_stepper_snapshot_copy(rs_stepper_snapshot *dst, const rs_stepper_snapshot *src)
{
    rs_error err = rs_stepper_snapshot_alloc(dst, src->n, src->m, src->nbasis);
    if (err != RS_OK)
        return err;
    dst->have_prev = src->have_prev;
    dst->point_structure = src->point_structure;
    dst->have_warm = src->have_warm;
    dst->have_basis = src->have_basis;
    dst->basis_structure = src->basis_structure;
    if (src->x)
        memcpy(dst->x, src->x, sizeof(double) * (4 * (size_t)src->n + (size_t)src->m));
    if (src->basis)
        memcpy(dst->basis, src->basis, (size_t)src->nbasis);
    return RS_OK;
}

rs_error rs_stepper_save(const rs_stepper *s, rs_stepper_snapshot *out)
{
    /* (a basis array larger than the stepper's is kept, its tail zeroed: rs_stepper_save_basis
     * may have grown it to another stepper's) */
    if (out->n != s->cap_n || out->m != s->cap_m || out->nbasis < s->cap_lcp || !out->x) {
        rs_error err = rs_stepper_snapshot_alloc(out, s->cap_n, s->cap_m, s->cap_lcp);
        if (err != RS_OK)
            return err;
    }
    out->have_prev = s->have_prev;
    out->point_structure = s->point_structure;
    memcpy(out->x, s->x_prev, sizeof(double) * (size_t)s->cap_n);
    memcpy(out->g, s->prev_g, sizeof(double) * (size_t)s->cap_m);
    memcpy(out->x_l, s->prev_x_l, sizeof(double) * (size_t)s->cap_n);
    memcpy(out->x_u, s->prev_x_u, sizeof(double) * (size_t)s->cap_n);
    out->have_warm = s->have_warm;
    memcpy(out->x_warm, s->x_warm, sizeof(double) * (size_t)s->cap_n);
    return rs_stepper_save_basis(s, out); /* (its array already holds cap_lcp: no growth) */
}

rs_error rs_stepper_restore(rs_stepper *s, const rs_stepper_snapshot *in)
{
    const rs_model *m = s->cfg.model;
    if (!m->sizes_grow && (in->n != s->cap_n || in->m != s->cap_m || in->nbasis != s->cap_lcp))
        return RS_ERR_DIMENSION; /* a fixed-size model's snapshot has its sizes */
    if (ensure_lcp(s, in->nbasis) != RS_OK || ensure_nlp(s, in->n, in->m) != RS_OK)
        return RS_ERR_NOMEM;
    s->have_prev = in->have_prev;
    s->point_structure = in->point_structure;
    memcpy(s->x_prev, in->x, sizeof(double) * (size_t)in->n);
    memcpy(s->prev_g, in->g, sizeof(double) * (size_t)in->m);
    memcpy(s->prev_x_l, in->x_l, sizeof(double) * (size_t)in->n);
    memcpy(s->prev_x_u, in->x_u, sizeof(double) * (size_t)in->n);
    s->have_warm = in->have_warm;
    memcpy(s->x_warm, in->x_warm, sizeof(double) * (size_t)in->n);
    s->have_basis = in->have_basis;
    s->basis_structure = in->basis_structure;
    memcpy(s->lemke_basis, in->basis, (size_t)in->nbasis);
    return RS_OK;
}

/* Residuals and modes: the same for both backends, from the physical outputs; the mode
 * thresholds in the step's natural units. */
static void finish_step(rs_stepper *s, rs_step_result *out)
{
    const rs_model *m = s->cfg.model;
    out->lcp_size = s->lcp_now;
    m->step_scales(&s->data, &out->scales);
    const rs_mode_tols tols = {s->cfg.mode_tols.force * out->scales.force,
                               s->cfg.mode_tols.speed * out->scales.speed};
    m->residuals(&s->data, out->state_next, out->forces, out->ncontact ? out->contact : NULL,
                 &out->primal, &out->complementarity);
    for (int i = 0; i < m->nstate; i++)
        if (!(fabs(out->state_next[i]) <= RS_VALUE_MAX))
            out->primal = INFINITY; /* out of every scene's range (model.h): not certified */
    m->modes(&s->data, out->state_next, out->forces, &tols, out->modes);
}

const char *rs_nlp_path_name(int path)
{
    static const char *const names[RS_PATH_COUNT] = {"start_previous", "start_contact_free",
                                                     "ipopt_warm", "ipopt_cold", "ipopt_homotopy",
                                                     "no_contact", "start_polished"};
    return path >= 0 && path < RS_PATH_COUNT ? names[path] : "none";
}

int rs_nlp_path_is_ipopt(int path)
{
    return path == RS_PATH_IPOPT_WARM || path == RS_PATH_IPOPT_COLD ||
           path == RS_PATH_IPOPT_HOMOTOPY;
}

/* A generic starting point of the model into s->x: the current state or the contact-free
 * prediction (for an LCP relaxation: z = 1, or no contact impulse z = 0), never a solution. */
static void nlp_generic_point(rs_stepper *s, rs_nlp_start which)
{
    const rs_model *m = s->cfg.model;
    if (!s->use_relaxation) {
        m->nlp_start(&s->data, which, s->x);
        return;
    }
    const int n = s->lcp_now;
    if (which == RS_NLP_START_CONTACT_FREE) {
        for (int i = 0; i < 2 * n; i++)
            s->x[i] = 0.0;
        if (m->lcp_contact_free) { /* auxiliaries at zero forces, in natural units; slacks
                                      s_i = max(0, z_i w_i) make the point feasible */
            m->lcp_contact_free(&s->data, s->z);
            for (int i = 0; i < n; i++)
                s->x[i] = s->z[i] / s->C[i];
            rs_lcp_residual(n, s->Ms, s->qs, s->x, s->w);
            for (int i = 0; i < n; i++)
                s->x[n + i] = rs_max2(0.0, s->x[i] * s->w[i]);
        }
    } else {
        rs_lcp_relaxation_guess(&s->relax, 0.0, s->x);
    }
}

/* Room in out for the step's contacts (models that report them): the array the recover
 * callbacks write, NULL when the model has none (or it cannot grow: the certificate then fails
 * the step). */
static double *contact_out(rs_stepper *s, rs_step_result *out)
{
    const rs_model *m = s->cfg.model;
    const int n = m->contact_count ? m->contact_count(&s->data) : 0;
    if (n <= 0 || rs_step_result_contacts(out, n) != RS_OK) {
        out->ncontact = 0;
        return NULL;
    }
    if (m->contact_geometry)
        m->contact_geometry(&s->data, out->geometry);
    return out->contact;
}

static void nlp_recover(rs_stepper *s, rs_step_result *out)
{
    const rs_model *m = s->cfg.model;
    double *contact = contact_out(s, out);
    if (!s->use_relaxation) {
        m->nlp_recover(&s->data, s->x, out->state_next, out->forces, contact);
        return;
    }
    const int n = s->lcp_now;
    for (int i = 0; i < n; i++) /* z >= 0 up to IPOPT's rounding; a NaN stays a NaN */
        s->z[i] = s->C[i] * (s->x[i] < 0.0 ? 0.0 : s->x[i]);
    rs_lcp_residual(n, s->M, s->q, s->z, s->w);
    m->lcp_recover(&s->data, s->z, s->w, out->state_next, out->forces, contact);
}

/* Copy a primal-dual point's multipliers (IPOPT's g, x_l, x_u: m, n, n entries). */
static void copy_multipliers(const rs_stepper *s, double *g, double *x_l, double *x_u,
                             const double *from_g, const double *from_x_l, const double *from_x_u)
{
    const size_t n = (size_t)s->nlp_n, m = (size_t)s->nlp_m;
    assert((g == from_g) == (x_l == from_x_l) && (g == from_g) == (x_u == from_x_u));
    if (g == from_g)
        return; /* (the previous point's own, kept: polish_previous) */
    memcpy(g, from_g, sizeof(double) * m);
    memcpy(x_l, from_x_l, sizeof(double) * n);
    memcpy(x_u, from_x_u, sizeof(double) * n);
}

/* This step's LCP size and structure key from the model (per-step sizes), with the solver of
 * that size: 0 if the step is refused (more active contacts than the model's maximum) or a
 * solver cannot be created. */
static int step_size(rs_stepper *s)
{
    const rs_model *m = s->cfg.model;
    if (!m->lcp_size)
        return 1;
    const int n = m->lcp_size(&s->data, &s->structure);
    if (n < 0 || n > RS_DENSE_LCP_MAX_N || (!m->sizes_grow && n > m->lcp_n) ||
        use_size(s, n) != RS_OK) {
        s->lcp_now = -1;
        return 0;
    }
    return 1;
}

int rs_stepper_nlp_begin(rs_stepper *s, const double *state, const double *input)
{
    const rs_model *m = s->cfg.model;
    s->data.state = state;
    s->data.input = input;
    s->data.lcp_answer = s->use_relaxation; /* the relaxation solves the LCP's physics */
    if (!step_size(s))
        return 0;
    if (!s->use_relaxation && m->nlp_size && s->lcp_now > 0 && use_own_size(s) != RS_OK)
        return 0; /* more contacts than the model's NLP takes: the step is refused */
    if (m->lcp_size && s->structure != s->point_structure)
        s->have_prev = 0; /* other contacts: the previous point means nothing now */
    if (s->use_relaxation) {
        const int n = s->lcp_now;
        m->lcp_build(&s->data, s->M, s->q);
        /* z and w in the step's natural units: Ms = W^-1 M Z, qs = W^-1 q */
        m->lcp_units(&s->data, s->C, s->D);
        for (int i = 0; i < n; i++)
            s->D[i] = 1.0 / s->D[i];
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                s->Ms[i + (size_t)j * n] = s->D[i] * s->M[i + (size_t)j * n] * s->C[j];
        for (int i = 0; i < n; i++)
            s->qs[i] = s->D[i] * s->q[i];
    }
    return 1;
}

const rs_nlp_problem *rs_stepper_nlp_problem(const rs_stepper *s)
{
    return &s->problem;
}

int rs_stepper_nlp_accept(rs_stepper *s, const double *x, const double *mult_g,
                          const double *mult_x_l, const double *mult_x_u, rs_nlp_status status,
                          rs_step_result *out)
{
    const size_t n = (size_t)s->nlp_n;
    if (x != s->x)
        memcpy(s->x, x, sizeof(double) * n);
    nlp_recover(s, out);
    finish_step(s, out);
    const double tol = s->cfg.nlp.cert_tol;
    const rs_model *m = s->cfg.model;
    if (!rs_all_finite(out->state_next, (size_t)m->nstate) ||
        !rs_all_finite(out->forces, (size_t)m->nforce))
        status = RS_NLP_EVAL_ERROR; /* a non-finite answer is never a solution */
    else if (rs_nlp_status_ok(status) && !(out->primal <= tol && out->complementarity <= tol))
        status = RS_NLP_NOT_CERTIFIED;
    out->status = status;
    out->ok = rs_nlp_status_ok(status);
    if (out->ok) {
        if (x != s->x_prev) /* (the previous point accepted again keeps its IPOPT answer) */
            s->have_warm = 0;
        memcpy(s->x_prev, s->x, sizeof(double) * n);
        copy_multipliers(s, s->prev_g, s->prev_x_l, s->prev_x_u, mult_g, mult_x_l, mult_x_u);
        s->have_prev = 1;
        s->point_structure = s->structure;
    }
    return out->ok;
}

const double *rs_stepper_nlp_polish(rs_stepper *s, const double *x, rs_step_result *out)
{
    /* the thresholds of the active set, widest first: a lightly loaded contact's forces can sit
     * below the first in natural units, and its pairs' sides then need a narrower one */
    static const double delta[] = {1e-4, 1e-6};
    out->polished = 0;
    /* (an NLP not posed in natural units has no scale for delta: the post's, in SI units) */
    if (!s->cfg.nlp.polish || !s->kkt || !s->problem.natural_units)
        return NULL;
    /* (the polish's certificate implies the KKT test at tol with those multipliers: primal
     * violation at most tol, a dual residual of at most tol unscaled, complementarity 0;
     * test_kkt_check runs the test on it) */
    for (size_t k = 0; k < sizeof delta / sizeof delta[0]; k++)
        if (rs_kkt_polish(s->kkt, x, delta[k], s->cfg.nlp.tol, s->x_polish, s->mult_g,
                          s->mult_x_l, s->mult_x_u)) {
            out->polished = 1;
            return s->x_polish;
        }
    return NULL;
}

int rs_stepper_nlp_accept_polished(rs_stepper *s, const double *x, const double *mult_g,
                                   const double *mult_x_l, const double *mult_x_u,
                                   rs_nlp_status status, rs_step_result *out)
{
    /* a polished answer keeps IPOPT's multipliers for the next step: its exact ones (0 on
     * every constraint) start a warm IPOPT four times further from its central path
     * (pegboard: 10 iterations a step against 2.5); the KKT test of a resting step then finds
     * least-squares ones when those do not pass. IPOPT's own answer is the next warm start. */
    const double *xp = rs_nlp_status_ok(status) ? rs_stepper_nlp_polish(s, x, out) : NULL;
    if (!xp)
        return 0;
    const size_t bytes = sizeof(double) * (size_t)s->nlp_n;
    memcpy(s->x_ipopt, x, bytes);
    if (rs_stepper_nlp_accept(s, xp, mult_g, mult_x_l, mult_x_u, status, out)) {
        memcpy(s->x_warm, s->x_ipopt, bytes);
        s->have_warm = 1;
        return 1;
    }
    out->polished = 0;
    if (x == s->x) /* (accepting xp wrote s->x) */
        memcpy(s->x, s->x_ipopt, bytes);
    return 0;
}

int rs_stepper_nlp_accept_ipopt(rs_stepper *s, const double *x, const double *mult_g,
                                const double *mult_x_l, const double *mult_x_u,
                                rs_nlp_status status, rs_step_result *out)
{
    return rs_stepper_nlp_accept_polished(s, x, mult_g, mult_x_l, mult_x_u, status, out) ||
           rs_stepper_nlp_accept(s, x, mult_g, mult_x_l, mult_x_u, status, out);
}

int rs_stepper_nlp_check_point(rs_stepper *s, const double *x, const double *mult_g,
                               const double *mult_x_l, const double *mult_x_u,
                               rs_step_result *out)
{
    const int given = mult_g != NULL;
    if (given)
        copy_multipliers(s, s->mult_g, s->mult_x_l, s->mult_x_u, mult_g, mult_x_l, mult_x_u);
    if (!rs_kkt_check_point(s->kkt, x, s->cfg.nlp.tol, given, s->mult_g, s->mult_x_l,
                            s->mult_x_u))
        return 0;
    return rs_stepper_nlp_accept(s, x, s->mult_g, s->mult_x_l, s->mult_x_u, RS_NLP_SOLVED, out);
}

/* The previous solution polished for this step (path start_polished): its active set solved
 * again for this step's rows, certified as the polish of an IPOPT answer is, with its exact
 * multipliers (rs_stepper_nlp_polish). It holds when the active set has not changed: a resting
 * body whose last answer misses this step's rows by about tol (the pile's by 1e-10 to 2e-10 in
 * natural units), a block sliding on (point2d: 568 of its 570 tries). The last answer IPOPT gave
 * and the multipliers it came with stay the next warm start. */
static int polish_previous(rs_stepper *s, rs_step_result *out)
{
    const double *xp = rs_stepper_nlp_polish(s, s->x_prev, out);
    if (!xp)
        return 0;
    if (!s->have_warm) /* the previous answer (IPOPT's, or a start point) starts a warm IPOPT */
        memcpy(s->x_warm, s->x_prev, sizeof(double) * (size_t)s->nlp_n);
    if (!rs_stepper_nlp_accept(s, xp, s->prev_g, s->prev_x_l, s->prev_x_u, RS_NLP_SOLVED, out)) {
        out->polished = 0;
        return 0;
    }
    s->have_warm = 1;
    return 1;
}

int rs_stepper_nlp_try_start(rs_stepper *s, rs_step_result *out)
{
    if (!s->cfg.nlp.check_start)
        return 0;
    /* candidates: the previous primal-dual solution (a body at rest), then the contact-free
     * prediction (a free flight) with least-squares multipliers, then the previous solution
     * polished for this step (last: a point the test accepts as it is is exact to rounding, a
     * polished one to tol) */
    int path = RS_PATH_NONE;
    if (s->have_prev) {
        /* (accepted again with the multipliers the test found: the next resting step's test
         * passes with them as given, without least squares) */
        out->path_attempts[RS_PATH_START_PREVIOUS]++;
        if (rs_stepper_nlp_check_point(s, s->x_prev, s->prev_g, s->prev_x_l, s->prev_x_u, out))
            path = RS_PATH_START_PREVIOUS;
    }
    if (path == RS_PATH_NONE) {
        out->path_attempts[RS_PATH_START_CONTACT_FREE]++;
        nlp_generic_point(s, RS_NLP_START_CONTACT_FREE);
        if (rs_stepper_nlp_check_point(s, s->x, NULL, NULL, NULL, out))
            path = RS_PATH_START_CONTACT_FREE;
    }
    if (path == RS_PATH_NONE && s->have_prev && s->cfg.nlp.polish) {
        out->path_attempts[RS_PATH_START_POLISHED]++;
        if (polish_previous(s, out))
            path = RS_PATH_START_POLISHED;
    }
    if (path == RS_PATH_NONE)
        return 0;
    out->path = path;
    out->at_start = 1;
    return 1;
}

int rs_stepper_nlp_can_warm_start(const rs_stepper *s)
{
    return s->have_prev && s->cfg.nlp.warm_start;
}

int rs_stepper_nlp_ladder(const rs_stepper *s, int *paths)
{
    int n = 0;
    if (rs_stepper_nlp_can_warm_start(s))
        paths[n++] = RS_PATH_IPOPT_WARM;
    paths[n++] = RS_PATH_IPOPT_COLD;
    paths[n++] = RS_PATH_IPOPT_HOMOTOPY;
    return n < 1 + s->cfg.nlp.retries ? n : 1 + s->cfg.nlp.retries;
}

int rs_stepper_nlp_start_point(rs_stepper *s, int path, double *x, double *mult_g, double *mult_x_l,
                               double *mult_x_u, int *warm_from)
{
    if (path == RS_PATH_IPOPT_WARM && rs_stepper_nlp_can_warm_start(s)) {
        /* A free flight leaves the previous solution behind: its impulses and velocities are no
         * longer a KKT point of the new step, while the contact-free prediction is one. With
         * nlp.check_start off (IPOPT solves every step), the prediction is IPOPT's start when it
         * passes the KKT test, and IPOPT's own test then usually accepts it at iteration 0. With
         * the start check on, both points were tested before this path and failed. */
        if (!s->cfg.nlp.check_start) {
            nlp_generic_point(s, RS_NLP_START_CONTACT_FREE);
            if (rs_kkt_check_point(s->kkt, s->x, s->cfg.nlp.tol, 0, mult_g, mult_x_l, mult_x_u)) {
                if (x != s->x)
                    memcpy(x, s->x, sizeof(double) * (size_t)s->nlp_n);
                if (warm_from)
                    *warm_from = RS_PATH_START_CONTACT_FREE;
                return 1;
            }
        }
        if (warm_from)
            *warm_from = RS_PATH_START_PREVIOUS;
        /* a polished previous point: IPOPT's own answer, off the bounds, with its multipliers */
        memcpy(x, s->have_warm ? s->x_warm : s->x_prev, sizeof(double) * (size_t)s->nlp_n);
        copy_multipliers(s, mult_g, mult_x_l, mult_x_u, s->prev_g, s->prev_x_l, s->prev_x_u);
        return 1;
    }
    nlp_generic_point(s, RS_NLP_START_CONTACT_FREE);
    if (x != s->x)
        memcpy(x, s->x, sizeof(double) * (size_t)s->nlp_n);
    return 0;
}

/* The barrier homotopy from the model's current-state point: the barrier problems at mu = 1e-2
 * and 1e-6 (interior, smooth), then the NLP (mu -> 0), each warm-started from the last stage. */
static rs_nlp_status nlp_homotopy(rs_stepper *s, int *iterations)
{
    static const double mu_stage[] = {1e-2, 1e-6, 0.0};
    nlp_generic_point(s, RS_NLP_START_CURRENT);
    rs_nlp_status st = RS_NLP_OTHER_FAILURE;
    *iterations = 0;
    for (int k = 0; k < 3; k++) {
        int iters = 0;
        const double mu_init = k == 0 ? 0.1 : mu_stage[k - 1];
        st = rs_ipopt_solve_barrier(s->ipopt, s->x, k > 0, mu_init, mu_stage[k], NULL, &iters);
        *iterations += iters;
        if (!rs_nlp_status_ok(st))
            break;
    }
    return st;
}

void rs_stepper_nlp_solve_alone(rs_stepper *s, rs_step_result *out)
{
    rs_step_result_clear(out, s->cfg.model);
    double *mult_g, *mult_x_l, *mult_x_u;
    rs_ipopt_multipliers(s->ipopt, &mult_g, &mult_x_l, &mult_x_u);
    int ladder[RS_PATH_COUNT];
    const int rungs = rs_stepper_nlp_ladder(s, ladder);
    for (int r = 0; r < rungs; r++) {
        const int path = ladder[r];
        int iters = 0;
        rs_nlp_status st;
        if (path == RS_PATH_IPOPT_HOMOTOPY) {
            st = nlp_homotopy(s, &iters);
        } else {
            const int warm = rs_stepper_nlp_start_point(s, path, s->x, mult_g, mult_x_l, mult_x_u,
                                                        &out->warm_from);
            const int max_iter = s->cfg.nlp.max_iter, cap = s->cfg.warm_max_iter;
            const int capped = warm && r + 1 < rungs && ladder[r + 1] == RS_PATH_IPOPT_COLD &&
                               cap > 0 && cap < max_iter;
            if (capped)
                rs_ipopt_set_max_iter(s->ipopt, cap);
            st = rs_ipopt_solve(s->ipopt, s->x, warm, NULL, &iters);
            if (capped)
                rs_ipopt_set_max_iter(s->ipopt, max_iter);
        }
        out->iterations += iters;
        out->attempts++;
        out->path = path;
        out->path_attempts[path]++;
        out->path_iterations[path] += iters;
        if (rs_stepper_nlp_accept_ipopt(s, s->x, mult_g, mult_x_l, mult_x_u, st, out))
            break;
    }
    s->have_prev = out->ok;
}

/* A step the model refuses (more active contacts than its maximum): failed, with a non-finite
 * answer so that nothing downstream takes it for a state. */
static void refuse_step(rs_stepper *s, int status, rs_step_result *out)
{
    const rs_model *m = s->cfg.model;
    m->step_scales(&s->data, &out->scales);
    out->lcp_size = -1;
    out->status = status;
    out->ok = 0;
    for (int i = 0; i < m->nstate; i++)
        out->state_next[i] = NAN;
    for (int i = 0; i < m->nforce; i++)
        out->forces[i] = NAN;
    out->primal = out->complementarity = NAN;
}

/* The sizes of a contact-free step's NLP: the model's own NLP without contact variables, sized
 * by the model (checked against the arrays' capacity), or the relaxation's. 0 if they do not
 * fit. */
static int contact_free_size(rs_stepper *s)
{
    const rs_model *m = s->cfg.model;
    if (s->use_relaxation || !m->nlp_size)
        return 1;
    int n, mm;
    m->nlp_size(&s->data, &n, &mm);
    if (n < 1 || mm < 0 || ensure_nlp(s, n, mm) != RS_OK)
        return 0;
    s->problem.n = s->nlp_n = n;
    s->problem.m = s->nlp_m = mm;
    return 1;
}

void rs_stepper_nlp(rs_stepper *s, const double *state, const double *input, rs_step_result *out)
{
    rs_step_result_clear(out, s->cfg.model);
    out->path = RS_PATH_NONE;
    const double t0 = rs_wall_seconds();
    if (!rs_stepper_nlp_begin(s, state, input)) {
        refuse_step(s, RS_NLP_TOO_LARGE, out);
        s->have_prev = 0;
    } else if (s->lcp_now == 0 && !contact_free_size(s)) {
        refuse_step(s, RS_NLP_TOO_LARGE, out); /* a model whose size does not fit its maximum */
        s->have_prev = 0;
    } else if (s->lcp_now == 0) { /* no active contact: the contact-free step, nothing solved */
        memset(s->mult_g, 0, sizeof(double) * (size_t)s->nlp_m); /* no constraint is active */
        memset(s->mult_x_l, 0, sizeof(double) * (size_t)s->nlp_n);
        memset(s->mult_x_u, 0, sizeof(double) * (size_t)s->nlp_n);
        nlp_generic_point(s, RS_NLP_START_CONTACT_FREE);
        out->path = RS_PATH_NO_CONTACT;
        out->at_start = 1;
        out->path_attempts[RS_PATH_NO_CONTACT] = 1;
        rs_stepper_nlp_accept(s, s->x, s->mult_g, s->mult_x_l, s->mult_x_u, RS_NLP_SOLVED, out);
    } else if (!rs_stepper_nlp_try_start(s, out)) {
        int tried[RS_PATH_COUNT]; /* the start check's tries are kept */
        memcpy(tried, out->path_attempts, sizeof tried);
        rs_stepper_nlp_solve_alone(s, out);
        for (int p = 0; p < RS_PATH_COUNT; p++)
            out->path_attempts[p] += tried[p];
    }
    out->time_s = rs_wall_seconds() - t0;
}

int rs_stepper_step_lcp(const rs_stepper *s, const double **M, const double **q, const double **z,
                        const double **w)
{
    *M = s->M;
    *q = s->q;
    *z = s->z;
    *w = s->w;
    return s->lcp_now;
}

int rs_stepper_relaxed_point(const rs_stepper *s, rs_stepper_relaxed_step *out)
{
    if (!s->use_relaxation || !s->have_prev)
        return 0;
    *out = (rs_stepper_relaxed_step){&s->problem, &s->relax, s->x_prev, s->prev_g,
                                     s->prev_x_l, s->prev_x_u, s->C, s->D};
    return 1;
}

/* The next state and forces from Lemke's (z, w), judged by the step's physics: ok when Lemke
 * solved the LCP (solved), the recovery is finite and its certificate passes cert_tol (the same
 * certificate as an NLP step's); a recovery that overflowed gets status nonfinite, an answer the
 * physics refuses not_certified. */
static void judge_lemke_answer(rs_stepper *s, rs_step_result *out, int solved, int nonfinite)
{
    const rs_model *m = s->cfg.model;
    m->lcp_recover(&s->data, s->z, s->w, out->state_next, out->forces, contact_out(s, out));
    finish_step(s, out);
    out->ok = solved;
    if (!rs_all_finite(out->state_next, (size_t)m->nstate) ||
        !rs_all_finite(out->forces, (size_t)m->nforce)) {
        out->status = nonfinite;
        out->ok = 0;
    } else if (out->ok && !(out->primal <= s->cfg.nlp.cert_tol &&
                            out->complementarity <= s->cfg.nlp.cert_tol)) {
        out->status = RS_LEMKE_NOT_CERTIFIED;
        out->ok = 0;
    }
}

/* Lemke's own failure on the step's LCP (no answer), rather than an answer the physics refuses. */
static int lemke_lcp_failed(int status)
{
    return status == RS_LEMKE_RAY_TERMINATION || status == RS_LEMKE_BREAKDOWN ||
           status == RS_LEMKE_MAX_PIVOTS;
}

/*
 * The step LCP's q without its rounding: a copy of s->q (allocated, the caller frees it) with
 * each q_i whose size is at most RS_Q_ROUNDING of its row's natural unit (rs_model.lcp_units: a
 * speed row in V, a force row in F) set to 0; NULL when no q_i is that small but nonzero, when
 * the model states no units, or out of memory. A row's q is a sum of terms of the step's data
 * (the free velocities at the contact, at most V; the gap over dt), so its rounding is some ulp
 * of V: a q_i below that is indistinguishable from 0. Without gravity a resting contact's q is
 * nothing else: two pucks moving together at 0.45 m/s, q = (4.4e-11, -2.1e-25, 2.1e-25, 0) m/s
 * (the gap's rounding over dt, and a slip of 2e-25 m/s, the rounding of a spin), or a stack at
 * g = 0 with rows of 4e-14 beside 1e-29 m/s (V = 1.1e-3 m/s). The LCP certificate has no absolute
 * floor (certificates.md): it measures the rows to push in their own 1e-25, where Lemke's path
 * breaks down on ties of rounding. Without them the LCP is the same one to 64 ulp of V, and its
 * answer (there z = 0: no force where nothing presses) is the step's.
 */
#define RS_Q_ROUNDING (64.0 * 2.220446049250313e-16)
static double *q_without_rounding(const rs_stepper *s, int n)
{
    const rs_model *m = s->cfg.model;
    if (!m->lcp_units || n <= 0)
        return NULL;
    double *q = malloc(sizeof(double) * 3 * (size_t)n); /* q, then z's and w's units */
    if (!q)
        return NULL;
    double *unit = q + n;
    m->lcp_units(&s->data, unit, unit + n);
    int changed = 0;
    for (int i = 0; i < n; i++) {
        const int rounding = fabs(s->q[i]) <= RS_Q_ROUNDING * unit[n + i];
        changed |= rounding && s->q[i] != 0.0;
        q[i] = rounding ? 0.0 : s->q[i];
    }
    if (!changed) {
        free(q);
        return NULL;
    }
    return q;
}

void rs_stepper_lemke(rs_stepper *s, const double *state, const double *input, rs_step_result *out)
{
    const rs_model *m = s->cfg.model;
    rs_step_result_clear(out, m);
    s->data.state = state;
    s->data.input = input;
    s->data.lcp_answer = 1; /* judged by the LCP's physics (model.h) */
    out->path = RS_PATH_NONE;
    if (!step_size(s)) {
        refuse_step(s, RS_LEMKE_TOO_LARGE, out);
        s->have_basis = 0;
        return;
    }
    const int n = s->lcp_now;
    const double t0 = rs_wall_seconds();
    if (n > 0)
        m->lcp_build(&s->data, s->M, s->q);
    /* the previous step's basis first (when it may apply), then a cold solve if its answer is
     * not the step's: a basis can solve the LCP to its certificate and miss the physics (a
     * sliding basis at a landing: the sliding speed small beside the impulses) */
    int warm = n > 0 && s->cfg.lemke_warm && s->have_basis && s->basis_structure == s->structure;
    for (int attempt = 1;; attempt++, warm = 0) {
        rs_lemke_info info = {.size = sizeof info};
        info.status = RS_LEMKE_SOLVED; /* n = 0: no active contact, nothing to solve */
        rs_error err = RS_OK;
        if (n > 0)
            err = warm ? rs_lemke_solve_warm(n, s->M, s->q, NULL, &s->cfg.lemke, s->lemke_basis,
                                             s->lemke_work, s->lemke_bytes, s->z, s->w, &info, NULL)
                       : rs_lemke_solve(n, s->M, s->q, NULL, &s->cfg.lemke, s->lemke_work,
                                        s->lemke_bytes, s->z, s->w, &info, NULL);
        out->time_s = rs_wall_seconds() - t0;
        out->attempts = attempt;
        if (err != RS_OK) { /* non-finite step data: a breakdown of this step */
            refuse_step(s, RS_LEMKE_BREAKDOWN, out);
            s->have_basis = 0;
            return;
        }
        out->status = info.status;
        out->iterations += info.pivots;
        out->warm_started = info.warm_started;
        judge_lemke_answer(s, out, info.status == RS_LEMKE_SOLVED, RS_LEMKE_BREAKDOWN);
        if (out->ok || !info.warm_started)
            break;
    }
    double *q_clean = !out->ok && lemke_lcp_failed(out->status) ? q_without_rounding(s, n) : NULL;
    if (q_clean) {
        /* the LCP without the rows of rounding, cold; (z, w) then the step LCP's as built (w = M z
         * + q), and the answer judged by the step's physics in its natural units (finish_step) */
        rs_lemke_info info = {.size = sizeof info};
        const rs_error err = rs_lemke_solve(n, s->M, q_clean, NULL, &s->cfg.lemke, s->lemke_work,
                                            s->lemke_bytes, s->z, s->w, &info, NULL);
        free(q_clean);
        out->time_s = rs_wall_seconds() - t0;
        out->attempts++;
        out->iterations += info.pivots;
        if (err == RS_OK && info.status == RS_LEMKE_SOLVED) {
            rs_lcp_residual(n, s->M, s->q, s->z, s->w);
            out->status = RS_LEMKE_SOLVED;
            out->warm_started = 0;
            judge_lemke_answer(s, out, 1, RS_LEMKE_NOT_CERTIFIED);
        }
    }
    /* The next step's guess: the side of each pair that is positive (w when both are zero). */
    s->have_basis = out->ok;
    s->basis_structure = s->structure;
    for (int i = 0; out->ok && i < n; i++)
        s->lemke_basis[i] = s->z[i] > s->w[i];
}

/* ---- step results ------------------------------------------------------------------------- */

static size_t result_bytes(const rs_model *m)
{
    return sizeof(double) * ((size_t)m->nstate + (size_t)m->nforce) +
           sizeof(rs_contact_mode) * ((size_t)m->ncontacts + 1);
}

rs_error rs_step_result_init(rs_step_result *r, const rs_model *m)
{
    memset(r, 0, sizeof *r);
    r->storage = calloc(1, result_bytes(m));
    if (!r->storage)
        return RS_ERR_NOMEM;
    r->state_next = r->storage;
    r->forces = r->state_next + m->nstate;
    r->modes = (rs_contact_mode *)(r->forces + m->nforce);
    return RS_OK;
}

void rs_step_result_free(rs_step_result *r)
{
    if (!r)
        return;
    free(r->storage);
    free(r->contact);
    free(r->geometry);
    memset(r, 0, sizeof *r);
}

void rs_step_result_clear(rs_step_result *r, const rs_model *m)
{
    void *storage = r->storage;
    double *state_next = r->state_next, *forces = r->forces, *contact = r->contact;
    rs_contact_geometry *geometry = r->geometry;
    rs_contact_mode *modes = r->modes;
    const int cap = r->contact_cap;
    memset(r, 0, sizeof *r);
    r->geometry = geometry;
    if (storage)
        memset(storage, 0, result_bytes(m));
    r->storage = storage;
    r->state_next = state_next;
    r->forces = forces;
    r->modes = modes;
    r->contact = contact;
    r->contact_cap = cap;
}

rs_error rs_step_result_contacts(rs_step_result *r, int n)
{
    if (n > r->contact_cap) {
        const int cap = n > 2 * r->contact_cap ? n : 2 * r->contact_cap;
        double *c = realloc(r->contact, sizeof(double) * 2 * (size_t)cap);
        if (c)
            r->contact = c;
        rs_contact_geometry *g = c ? realloc(r->geometry, sizeof *g * (size_t)cap) : NULL;
        if (!g)
            return RS_ERR_NOMEM;
        r->geometry = g;
        r->contact_cap = cap;
    }
    r->ncontact = n;
    if (n > 0) {
        memset(r->contact, 0, sizeof(double) * 2 * (size_t)n);
        memset(r->geometry, 0, sizeof *r->geometry * (size_t)n);
    }
    return RS_OK;
}

rs_error rs_step_result_copy(rs_step_result *dst, const rs_step_result *src, const rs_model *m)
{
    void *storage = dst->storage;
    double *state_next = dst->state_next, *forces = dst->forces, *contact = dst->contact;
    rs_contact_geometry *geometry = dst->geometry;
    rs_contact_mode *modes = dst->modes;
    const int cap = dst->contact_cap;
    *dst = *src;
    dst->geometry = geometry;
    dst->storage = storage;
    dst->state_next = state_next;
    dst->forces = forces;
    dst->modes = modes;
    dst->contact = contact;
    dst->contact_cap = cap;
    if (storage && src->storage)
        memcpy(storage, src->storage, result_bytes(m));
    if (rs_step_result_contacts(dst, src->ncontact) != RS_OK) {
        dst->ncontact = 0;
        return RS_ERR_NOMEM;
    }
    if (src->ncontact > 0) {
        memcpy(dst->contact, src->contact, sizeof(double) * 2 * (size_t)src->ncontact);
        memcpy(dst->geometry, src->geometry, sizeof *dst->geometry * (size_t)src->ncontact);
    }
    return RS_OK;
}
