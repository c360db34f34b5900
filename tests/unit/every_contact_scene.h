/*
 * every_contact_scene.h: a bodies scene in which every kind of contact occurs, for the tests
 * that must walk every branch of the engine's contact code (test_bodies.c's step derivatives,
 * test_bodies_scratch.c's allocation count): boxes on the ground by their corners, a disc on
 * the ground, two discs, a box on a box (clipped faces, either one the reference), a disc on a
 * box's face and one at a corner, a box on a static polygon (the obstacle's face or the box's
 * the reference), a disc at the obstacle's corner. The bodies rest touching: model.reach = 0.02
 * finds every contact.
 */
#ifndef RS_TEST_EVERY_CONTACT_SCENE_H
#define RS_TEST_EVERY_CONTACT_SCENE_H

static const char every_contact_scene[] =
    "halfplane 0 0, 0 1\n"
    "polygon 2 0, 3 0, 3 0.5, 2 0.5\n"
    "body b1 box w=0.4 h=0.2 m=2 x=0 z=0.1\n"
    "body b2 box w=0.3 h=0.1 m=1 x=0.12 z=0.25\n"
    "body d1 disc r=0.1 m=1 x=0.5 z=0.1\n"
    "body d2 disc r=0.05 m=0.5 x=0.5 z=0.25\n"
    "body d3 disc r=0.05 m=0.4 x=0.05 z=0.35\n"
    "body d4 disc r=0.05 m=0.4 x=0.305 z=0.34\n"
    "body b3 box w=0.2 h=0.1 m=1 x=2.5 z=0.55\n"
    "body d5 disc r=0.06 m=0.3 x=1.955 z=0.545\n";

#endif
