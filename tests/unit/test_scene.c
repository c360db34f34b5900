/*
 * test_scene.c: the planar scene (src/geom/scene.c) and its file format (src/io/scene_file.c):
 * edges, normals and distances recomputed from the vertices, and every defect of a scene file
 * reported as FILE:LINE: what is wrong.
 */
#include "test_helpers.h"

#include <string.h>

#include "geom/scene.h"
#include "io/scene_file.h"

#define TMP RS_TEST_TMPDIR "/"

static const double unit_square[] = {0, 0, 1, 0, 1, 1, 0, 1};

static void square_edges_and_normals(void **state)
{
    (void)state;
    rs_scene s;
    rs_scene_init(&s);
    assert_int_equal(rs_scene_add_polygon(&s, 4, unit_square, NULL), RS_OK);
    assert_int_equal(s.nobstacles, 1);
    assert_int_equal(s.nedges, 4);
    /* bottom, right, top, left: outward normals (0,-1), (1,0), (0,1), (-1,0) */
    const double normals[4][2] = {{0, -1}, {1, 0}, {0, 1}, {-1, 0}};
    for (int i = 0; i < 4; i++) {
        const rs_scene_edge *e = &s.edges[i];
        assert_close(e->n[0], normals[i][0], 1e-15, 0);
        assert_close(e->n[1], normals[i][1], 1e-15, 0);
        assert_close(hypot(e->n[0], e->n[1]), 1.0, 1e-15, 0);
        /* both end points lie on the edge's line */
        assert_close(rs_edge_distance(e, e->a), 0.0, 1e-15, 0);
        assert_close(rs_edge_distance(e, e->b), 0.0, 1e-15, 0);
        assert_int_equal(e->obstacle, 0);
    }
    /* distances: a point right of the square, one beyond its corner, one inside */
    const double right[2] = {3, 0.5}, corner[2] = {4, 5}, inside[2] = {0.25, 0.5};
    assert_close(rs_scene_obstacle_distance(&s, 0, right), 2.0, 1e-15, 0);
    assert_close(rs_scene_obstacle_distance(&s, 0, corner), 5.0, 1e-15, 0); /* to (1, 1) */
    assert_close(rs_scene_obstacle_distance(&s, 0, inside), 0.0, 0, 0);
    assert_close(rs_scene_obstacle_depth(&s, 0, inside), 0.25, 1e-15, 0);
    /* Egan's rule: beyond the corner both the right and the top edge are positive; the point
     * is outside because at least one is */
    assert_true(rs_edge_distance(&s.edges[1], corner) > 0 && rs_edge_distance(&s.edges[2], corner) > 0);
    assert_true(rs_scene_depth(&s, corner) < 0);
    rs_scene_free(&s);
}

static void halfplane_ground(void **state)
{
    (void)state;
    rs_scene s;
    rs_scene_init(&s);
    const double point[2] = {0, 0}, normal[2] = {0, 2};
    assert_int_equal(rs_scene_add_halfplane(&s, point, normal, NULL), RS_OK);
    const double above[2] = {7, 0.5}, below[2] = {-3, -0.25};
    assert_close(rs_edge_distance(&s.edges[0], above), 0.5, 1e-15, 0);
    assert_close(rs_scene_obstacle_distance(&s, 0, above), 0.5, 1e-15, 0);
    assert_close(rs_scene_depth(&s, below), 0.25, 1e-15, 0);
    const double zero[2] = {0, 0};
    rs_error_detail why = {""};
    assert_int_equal(rs_scene_add_halfplane(&s, point, zero, &why), RS_ERR_BAD_ARG);
    assert_non_null(strstr(why.message, "no direction"));
    rs_scene_free(&s);
}

/* Each defective polygon is refused with its reason. */
static void polygon_defects(void **state)
{
    (void)state;
    static const struct {
        int nv;
        double xy[12];
        const char *needle;
    } cases[] = {
        {4, {0, 0, 0, 1, 1, 1, 1, 0}, "clockwise"},
        {4, {0, 0, 1, 0, 1, 0, 0, 1}, "zero-length edge"},
        {5, {0, 0, 1, 0, 1, 1, 0, 0, 0, 1}, "repeated vertex"},
        {4, {0, 0, 1, 1, 1, 0, 0, 1}, "intersects itself"},
        {5, {0, 0, 2, 0, 1, 0.5, 2, 2, 0, 2}, "not convex at vertex 3"},
        {4, {0, 0, 1, 0, 2, 0, 1, 1}, "line through its neighbours"},
        {2, {0, 0, 1, 0}, "at least 3"},
        {3, {0, 0, NAN, 0, 1, 1}, "vertex 2: coordinate x is not finite"},
        {3, {0, 0, 1, 0, 1, 1e13}, "beyond"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        rs_scene s;
        rs_scene_init(&s);
        rs_error_detail why = {""};
        const rs_error err = rs_scene_add_polygon(&s, cases[k].nv, cases[k].xy, &why);
        if (err == RS_OK || !strstr(why.message, cases[k].needle))
            print_error("case %zu: got '%s', expected '%s'\n", k, why.message, cases[k].needle);
        assert_int_equal(err, RS_ERR_BAD_ARG);
        assert_non_null(strstr(why.message, cases[k].needle));
        assert_int_equal(s.nobstacles, 0);
        rs_scene_free(&s);
    }
    /* a pentagram: every turn is to the left, yet the polygon crosses itself */
    double star[10];
    for (int i = 0; i < 5; i++) {
        star[2 * i] = cos(4.0 * 3.14159265358979323846 * i / 5.0);
        star[2 * i + 1] = sin(4.0 * 3.14159265358979323846 * i / 5.0);
    }
    rs_scene s;
    rs_scene_init(&s);
    rs_error_detail why = {""};
    assert_int_equal(rs_scene_add_polygon(&s, 5, star, &why), RS_ERR_BAD_ARG);
    assert_non_null(strstr(why.message, "intersects itself"));
    rs_scene_free(&s);
}

static void read_good_file(void **state)
{
    (void)state;
    write_file(TMP "good.scene", "# two boxes and the ground\n"
                                 "polygon 0 0, 1 0, 1 1, 0 1   # a unit box\n"
                                 "\n"
                                 "polygon 2 0,3 0,3 0.5,2 0.5\n"
                                 "halfplane 0 0, 0 1\n");
    rs_scene s;
    rs_error_detail d;
    assert_int_equal(rs_scene_read(TMP "good.scene", &s, &d), RS_OK);
    assert_int_equal(s.nobstacles, 3);
    assert_int_equal(s.nedges, 9);
    assert_int_equal(s.obstacles[1].first_edge, 4);
    assert_int_equal(s.obstacles[2].is_halfplane, 1);
    assert_close(s.edges[6].c, 0.5, 1e-15, 0); /* the second box's top: y = 0.5 */
    rs_scene_free(&s);
}

static void expect_file_error(const char *text, const char *needle)
{
    write_file(TMP "bad.scene", text);
    rs_scene s;
    rs_error_detail d;
    const rs_error err = rs_scene_read(TMP "bad.scene", &s, &d);
    if (err != RS_ERR_PARSE || !strstr(d.message, needle))
        print_error("'%s': got '%s', expected '%s'\n", text, d.message, needle);
    assert_int_equal(err, RS_ERR_PARSE);
    assert_non_null(strstr(d.message, needle));
    rs_scene_free(&s);
}

static void file_defects_name_the_line(void **state)
{
    (void)state;
    expect_file_error("polygon 0 0, 1 0, 1 1\npolygon 0 0, 0 1, 1 1, 1 0\n",
                      "bad.scene:2: polygon: the vertices are in clockwise order");
    expect_file_error("# L-shape in one piece\npolygon 0 0, 2 0, 2 1, 1 1, 1 2, 0 2\n",
                      "bad.scene:2: polygon: not convex at vertex 4");
    expect_file_error("polygon 0 0, 1 0, 1 0, 0 1\n", "bad.scene:1: polygon: vertices 2 and 3");
    expect_file_error("polygon 0 0, 1 1, 1 0, 0 1\n", "bad.scene:1: polygon: edges 1-2 and 3-4 cross");
    expect_file_error("polygon 0 0, 1 0, nan 1\n", "bad.scene:1: polygon: point 3: x \"nan\" is not finite");
    expect_file_error("polygon 0 0, 1 0, 0x1 1\n", "not a decimal number");
    expect_file_error("polygon 0 0, 1, 1 1\n", "point 2: expected two numbers");
    expect_file_error("polygon 0 0, 1 0, 1 1,\n", "an empty point");
    expect_file_error("polygon 0 0,, 1 0, 1 1\n", "an empty point");
    expect_file_error("circle 0 0, 1\n", "bad.scene:1: unknown keyword \"circle\"");
    expect_file_error("halfplane 0 0\n", "bad.scene:1: halfplane: expected \"px py, nx ny\"");
    expect_file_error("# nothing\n\n", "no obstacle");
    char longline[5000];
    memset(longline, ' ', sizeof longline);
    memcpy(longline, "polygon", 7);
    longline[sizeof longline - 2] = '\n';
    longline[sizeof longline - 1] = '\0';
    expect_file_error(longline, "bad.scene:1: the line is longer than");
    rs_scene s;
    rs_error_detail d;
    assert_int_equal(rs_scene_read(TMP "missing.scene", &s, &d), RS_ERR_IO);
    assert_non_null(strstr(d.message, "missing.scene"));
}

/* Shared sides are interior: two tiles side by side, and a box standing on the ground. A side
 * that is only partly covered, or covered by an edge with the same normal, stays a contact. */
static void interior_edges(void **state)
{
    (void)state;
    rs_scene sc;
    rs_scene_init(&sc);
    const double t1[8] = {0, -0.2, 1, -0.2, 1, 0, 0, 0}, t2[8] = {1, -0.2, 2, -0.2, 2, 0, 1, 0};
    assert_int_equal(rs_scene_add_polygon(&sc, 4, t1, NULL), RS_OK);
    assert_int_equal(rs_scene_add_polygon(&sc, 4, t2, NULL), RS_OK);
    /* edges: t1 bottom, right, top, left; t2 bottom, right, top, left */
    const int tiles[8] = {0, 1, 0, 0, 0, 0, 0, 1};
    for (int i = 0; i < 8; i++)
        assert_int_equal(sc.edges[i].interior, tiles[i]);
    /* a taller box beside t2 covers t2's right side (0.2 high) but not the other way round */
    const double tall[8] = {2, -0.2, 3, -0.2, 3, 1, 2, 1};
    assert_int_equal(rs_scene_add_polygon(&sc, 4, tall, NULL), RS_OK);
    assert_int_equal(sc.edges[5].interior, 1);  /* t2's right side, inside tall's left side */
    assert_int_equal(sc.edges[11].interior, 0); /* tall's left side, 1.2 long, mostly free */
    /* ... covered along z in [-0.2, 0]: t in [1/1.2, 1] from its start (2, 1); a contact only by
     * its free part, whose nearest point to (1.95, -0.1) is (2, 0) */
    assert_close(sc.edges[11].cover[0], 1.0 / 1.2, 1e-8, 0); /* widened by the 1e-9 m slack */
    assert_close(sc.edges[11].cover[1], 1.0, 0, 0);
    assert_close(rs_edge_free_distance(&sc.edges[11], (const double[2]){1.95, -0.1}),
                 hypot(0.05, 0.1), 1e-8, 0);
    assert_true(isinf(rs_edge_free_distance(&sc.edges[5], (const double[2]){2.5, 0.5})));
    /* the ground z = -0.2 covers the bottoms of all three */
    const double pt[2] = {0, -0.2}, up[2] = {0, 1};
    assert_int_equal(rs_scene_add_halfplane(&sc, pt, up, NULL), RS_OK);
    assert_int_equal(sc.edges[0].interior, 1);
    assert_int_equal(sc.edges[4].interior, 1);
    assert_int_equal(sc.edges[8].interior, 1);
    assert_int_equal(sc.edges[12].interior, 0); /* the ground itself */
    assert_int_equal(sc.edges[2].interior, 0);  /* t1's top: free */
    rs_scene_free(&sc);
    /* a shared side typed with a rounding difference of 1e-10 m is still shared */
    rs_scene_init(&sc);
    const double r1[8] = {0, -0.2, 1, -0.2, 1 + 1e-10, 0, 0, 0};
    assert_int_equal(rs_scene_add_polygon(&sc, 4, r1, NULL), RS_OK);
    assert_int_equal(rs_scene_add_polygon(&sc, 4, t2, NULL), RS_OK);
    assert_int_equal(sc.edges[1].interior, 1);
    assert_int_equal(sc.edges[7].interior, 1);
    rs_scene_free(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(square_edges_and_normals),
        cmocka_unit_test(halfplane_ground),
        cmocka_unit_test(polygon_defects),
        cmocka_unit_test(read_good_file),
        cmocka_unit_test(file_defects_name_the_line),
        cmocka_unit_test(interior_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
