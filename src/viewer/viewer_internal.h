/* Shared by the viewer's files: the window and input (viewer.c), the GL programs and buffers
 * (viewer_gl.c), and what a frame holds (viewer_scene.c). */
#ifndef LOAM_VIEWER_INTERNAL_H
#define LOAM_VIEWER_INTERNAL_H

#define GL_GLEXT_PROTOTYPES 1 /* libGL (glvnd) exports every core entry point on Linux: no loader */
#define GLFW_INCLUDE_GLEXT
#include <GLFW/glfw3.h>

#include "loam/mesh.h"
#include "loam/viewer.h"

/* A growing array of floats: a frame's particles (x, y, z, r, red, green, blue) or triangle
 * corners (x, y, z, red, green, blue, alpha). */
typedef struct viewer_floats {
    float* data;
    size_t count, capacity; /* floats */
} viewer_floats;

typedef struct viewer_body {
    loam_mesh surface;    /* in the body's frame */
    const void* def;      /* the loam_body_def it was made from: a new world gets new surfaces */
    uint8_t rgb[3];
} viewer_body;

typedef struct viewer_gl {
    GLuint sphere_program, mesh_program;
    GLuint particle_vao, particle_vbo, mesh_vao, mesh_vbo;
} viewer_gl;

struct loam_viewer {
    GLFWwindow* window;
    char title[200], status[200];
    viewer_gl gl;
    /* camera: orbiting `target` at `distance`, z up */
    float yaw, pitch, distance;
    float target[3];
    float home[5]; /* yaw, pitch, distance and target x, y as framed first (z is in home_z) */
    float home_z;
    int framed;
    /* input */
    int paused, steps, close, drag;
    double mouse_x, mouse_y;
    /* the frame being queued */
    viewer_floats particles, opaque, translucent;
    viewer_body* bodies;
    int body_count;
    float height_lo, height_hi; /* particle colour range, from the first world */
    int height_set;
};

/* viewer_gl.c */
loam_status viewer_gl_init(viewer_gl* gl, loam_error* err);
void viewer_gl_free(viewer_gl* gl);
/* Draw the queued frame into the current framebuffer (w x h pixels). */
void viewer_gl_draw(const loam_viewer* v, int width, int height);

/* viewer_scene.c */
int viewer_floats_push(viewer_floats* a, const float* values, size_t count);
void viewer_scene_free(loam_viewer* v);

#endif
