/* The viewer's window and input through GLFW: orbit, pan and zoom with the mouse, pause and step
 * from the keyboard, the status in the title bar, screenshots by reading the drawn frame back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viewer/viewer_internal.h"

static int glfw_users; /* viewers open: GLFW is initialised once for all and ended with the last */

loam_viewer_options loam_viewer_default_options(void) {
    loam_viewer_options o = {1024, 640, "loam"};
    return o;
}

static void on_key(GLFWwindow* window, int key, int scancode, int action, int mods) {
    (void)scancode, (void)mods;
    loam_viewer* v = glfwGetWindowUserPointer(window);
    if (action != GLFW_PRESS && !(action == GLFW_REPEAT && (key == GLFW_KEY_N || key == GLFW_KEY_RIGHT))) return;
    if (key == GLFW_KEY_SPACE) v->paused = !v->paused;
    else if (key == GLFW_KEY_N || key == GLFW_KEY_RIGHT) v->paused = 1, v->steps += 1; /* stepping implies pausing */
    else if (key == GLFW_KEY_ESCAPE || key == GLFW_KEY_Q) v->close = 1;
    else if (key == GLFW_KEY_R && v->framed) {
        v->yaw = v->home[0], v->pitch = v->home[1], v->distance = v->home[2];
        v->target[0] = v->home[3], v->target[1] = v->home[4], v->target[2] = v->home_z;
    }
}

static void on_button(GLFWwindow* window, int button, int action, int mods) {
    (void)mods;
    loam_viewer* v = glfwGetWindowUserPointer(window);
    if (action == GLFW_RELEASE) {
        v->drag = 0;
        return;
    }
    v->drag = button == GLFW_MOUSE_BUTTON_LEFT ? 1 : 2;
    glfwGetCursorPos(window, &v->mouse_x, &v->mouse_y);
}

static void on_cursor(GLFWwindow* window, double x, double y) {
    loam_viewer* v = glfwGetWindowUserPointer(window);
    float dx = (float)(x - v->mouse_x), dy = (float)(y - v->mouse_y);
    v->mouse_x = x, v->mouse_y = y;
    if (v->drag == 1) { /* orbit: drag right turns the scene right, drag down looks from higher */
        v->yaw -= 0.008f * dx;
        v->pitch = fminf(1.55f, fmaxf(-1.55f, v->pitch + 0.008f * dy));
    } else if (v->drag == 2) { /* pan in the view plane, at the target's depth */
        int w, h;
        glfwGetWindowSize(window, &w, &h);
        float scale = 2.0f * v->distance * tanf(0.5f * 40.0f * 3.14159265f / 180.0f) / (float)(h > 0 ? h : 1);
        float cp = cosf(v->pitch), sp = sinf(v->pitch), cy = cosf(v->yaw), sy = sinf(v->yaw);
        float right[3] = {-sy, cy, 0.0f}, up[3] = {-sp * cy, -sp * sy, cp};
        for (int i = 0; i < 3; ++i) v->target[i] += scale * (-dx * right[i] + dy * up[i]);
    }
}

static void on_scroll(GLFWwindow* window, double dx, double dy) {
    (void)dx;
    loam_viewer* v = glfwGetWindowUserPointer(window);
    v->distance *= powf(0.88f, (float)dy);
}

loam_viewer* loam_viewer_create(const loam_viewer_options* options, loam_error* err) {
    loam_viewer_options o = options ? *options : loam_viewer_default_options();
    if (o.width < 64 || o.width > 8192 || o.height < 64 || o.height > 8192) {
        loam_error_set(err, LOAM_ERR_INPUT, "viewer: window size %d x %d is not within 64..8192", o.width, o.height);
        return NULL;
    }
    if (glfw_users == 0 && !glfwInit()) {
        const char* why = NULL;
        glfwGetError(&why);
        const char* display = getenv("DISPLAY");
        loam_error_set(err, LOAM_ERR_IO, "viewer: cannot open a window (%s; DISPLAY=%s): run it on a desktop, or under "
                                         "xvfb-run, or use --headless", why ? why : "GLFW failed", display ? display : "unset");
        return NULL;
    }
    ++glfw_users;
    loam_viewer* v = calloc(1, sizeof *v);
    if (!v) {
        loam_error_set(err, LOAM_ERR_NOMEM, "viewer: out of memory");
        if (--glfw_users == 0) glfwTerminate();
        return NULL;
    }
    snprintf(v->title, sizeof v->title, "%s", o.title ? o.title : "loam");
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SAMPLES, 4);
    v->window = glfwCreateWindow(o.width, o.height, v->title, NULL, NULL);
    if (!v->window) {
        const char* why = NULL;
        glfwGetError(&why);
        loam_error_set(err, LOAM_ERR_IO, "viewer: no OpenGL 3.3 window: %s", why ? why : "GLFW failed");
        loam_viewer_destroy(v);
        return NULL;
    }
    glfwSetWindowUserPointer(v->window, v);
    glfwMakeContextCurrent(v->window);
    glfwSwapInterval(0); /* the simulation sets the pace, not the display's refresh */
    glfwSetKeyCallback(v->window, on_key);
    glfwSetMouseButtonCallback(v->window, on_button);
    glfwSetCursorPosCallback(v->window, on_cursor);
    glfwSetScrollCallback(v->window, on_scroll);
    v->distance = 1.0f;
    if (viewer_gl_init(&v->gl, err) != LOAM_OK) {
        loam_viewer_destroy(v);
        return NULL;
    }
    return v;
}

void loam_viewer_destroy(loam_viewer* v) {
    if (!v) return;
    if (v->window) {
        glfwMakeContextCurrent(v->window);
        viewer_gl_free(&v->gl);
        glfwDestroyWindow(v->window);
    }
    viewer_scene_free(v);
    free(v);
    if (glfw_users > 0 && --glfw_users == 0) glfwTerminate();
}

static loam_status screenshot(int width, int height, const char* path, loam_error* err) {
    loam_image img;
    loam_status st = loam_image_alloc(&img, width, height, err);
    if (st != LOAM_OK) return st;
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, img.rgb);
    /* GL's rows run bottom to top, a PNG's top to bottom. */
    size_t row = 3 * (size_t)width;
    uint8_t* tmp = malloc(row);
    if (!tmp) {
        loam_image_destroy(&img);
        return loam_error_set(err, LOAM_ERR_NOMEM, "viewer: out of memory for the screenshot");
    }
    for (int y = 0; y < height / 2; ++y) {
        uint8_t *a = img.rgb + row * (size_t)y, *b = img.rgb + row * (size_t)(height - 1 - y);
        memcpy(tmp, a, row);
        memcpy(a, b, row);
        memcpy(b, tmp, row);
    }
    free(tmp);
    st = loam_image_write_png(&img, path, err);
    loam_image_destroy(&img);
    return st;
}

loam_status loam_viewer_present(loam_viewer* v, const char* screenshot_png, loam_error* err) {
    if (!v) return loam_error_set(err, LOAM_ERR_INPUT, "viewer: viewer is NULL");
    glfwMakeContextCurrent(v->window);
    int width, height;
    glfwGetFramebufferSize(v->window, &width, &height);
    viewer_gl_draw(v, width, height);
    loam_status st = LOAM_OK;
    if (screenshot_png && width > 0 && height > 0) st = screenshot(width, height, screenshot_png, err);
    glfwSwapBuffers(v->window);
    v->particles.count = v->opaque.count = v->translucent.count = 0;
    return st;
}

loam_status loam_viewer_poll(loam_viewer* v, loam_viewer_input* input, loam_error* err) {
    if (!v || !input) return loam_error_set(err, LOAM_ERR_INPUT, "viewer: %s is NULL", v ? "input" : "viewer");
    glfwPollEvents();
    if (glfwWindowShouldClose(v->window)) v->close = 1;
    input->close = v->close;
    input->paused = v->paused;
    input->steps = v->steps;
    v->steps = 0;
    return LOAM_OK;
}

void loam_viewer_set_status(loam_viewer* v, const char* text) {
    if (!v) return;
    if (text && strcmp(text, v->status) == 0) return;
    snprintf(v->status, sizeof v->status, "%s", text ? text : "");
    char full[420];
    snprintf(full, sizeof full, "%s%s%s", v->title, v->status[0] ? " - " : "", v->status);
    glfwSetWindowTitle(v->window, full);
}
