/*
 * contacts.h (internal): the contacts of a scene's bodies at given poses, with one another and
 * with the static obstacles: where, along which normal, and how far apart. Geometry only.
 *
 * A contact between body a and body b (or static obstacle k, b = -1) has
 *   n     the unit normal, pointing from b into a (the direction in which b pushes a);
 *   gap   the signed distance between the two surfaces along n (m; < 0: they overlap);
 *   ra    the lever arm from a's centre of mass to the contact point on a's surface;
 *   rb    the lever arm from b's centre of mass to the contact point on b's surface (b's point
 *         is a's point moved by -gap n; for an obstacle: the point itself, world coordinates).
 * The normal velocity of a relative to b at the contact is then
 *     n . (va + wa ra^perp - vb - wb rb^perp),   r^perp = (-r_z, r_x)   (w: angular velocity),
 * and the gap after a step of dt is gap + dt times it, to first order.
 *
 * Which pairs: every contact whose gap is below the pair's margin (the distance the two can
 * close within the step, from margins per body, plus reach). The shape pairs:
 *   disc-disc          one contact along the line of centres;
 *   disc-polygon       one contact at the polygon's closest point (the face's normal when the
 *                      centre is inside, the direction from the closest point otherwise);
 *   polygon-polygon    separating axes over both polygons' face normals: the face of largest
 *                      separation is the reference, the other polygon's face most opposed to it
 *                      the incident face, clipped to the reference face's extent: up to two
 *                      contacts (a face on a face: both ends; a corner on a face: one);
 *   against a half-plane: a disc one contact, a polygon one per vertex within the margin.
 * Static polygons are treated as polygons that do not move. Interior edges of the scene (one
 * obstacle's side covered by another's) carry no contact, and a buried vertex (at a covered end
 * of an edge: where two abutting obstacles meet) none but a face contact with the normal of an
 * exposed face there: a disc beside it is held by the neighbouring face, a body's face that sees
 * it side-on gets no push back, so a body crosses the seam of flat ground unkicked.
 */
#ifndef RS_GEOM_CONTACTS_H
#define RS_GEOM_CONTACTS_H

#include "geom/scene.h"
#include "relaxsim/error.h"

/* How a contact's geometry follows from the poses (the features that touch), so that it can be
 * evaluated again, or differentiated, with the same features (bodies_tangent.c). */
typedef enum rs_contact_kind {
    RS_CONTACT_DISC_DISC,      /* a's and b's centres */
    RS_CONTACT_DISC_HALFPLANE, /* a disc on obstacle's line */
    RS_CONTACT_VERTEX_HALFPLANE, /* a's vertex `vertex` on the obstacle's line */
    RS_CONTACT_DISC_FACE,      /* disc a against face `face` of polygon b (or the obstacle) */
    RS_CONTACT_DISC_VERTEX,    /* disc a against vertex `vertex` of polygon b (or the obstacle) */
    RS_CONTACT_FACE_CLIP       /* polygons: reference face `face` (of b when ref_b, else of a),
                                  incident face `incident` of the other, its end `end` (0 or 1),
                                  moved onto the reference face's side `clip` - 1 (0: not
                                  clipped) */
} rs_contact_kind;

typedef struct rs_contact {
    int a, b;          /* bodies (b = -1: the static obstacle `obstacle`) */
    int obstacle;      /* static obstacle index when b = -1, else -1 */
    double n[2];       /* unit normal from b into a */
    double gap;        /* m */
    double ra[2], rb[2];
    double p[2];       /* the contact point on a's surface, world */
    unsigned long long feature; /* which features touch (faces, vertices), for keys */
    rs_contact_kind kind;
    int face, vertex, incident, end, clip, ref_b;
} rs_contact;

typedef struct rs_contact_list {
    int n, cap;
    rs_contact *c;     /* owned */
    void *work;        /* owned: rs_find_contacts' scratch (the bodies' world vertices and
                          normals), kept so that finding again allocates nothing */
    size_t work_bytes;
} rs_contact_list;

void rs_contact_list_free(rs_contact_list *l);

/* The poses of the bodies: pose[3 i .. 3 i + 2] = (x, z, theta) of body i. */

/* Every contact of the scene's bodies at the poses with gap below margin[a] + margin[b] + reach
 * (margin of an obstacle: 0), into out (it and its scratch grown as needed, never shrunk; its old
 * contents are dropped), in a
 * deterministic order: pairs of bodies (i < j) first, in order, then each body against each
 * obstacle. RS_ERR_NOMEM when it cannot grow. */
rs_error rs_find_contacts(const rs_scene *s, const double *pose, const double *margin,
                          double reach, rs_contact_list *out);

#endif
