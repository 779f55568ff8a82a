/* OpenGL 3.3 core drawing: particles as point sprites shaded as spheres (one vertex each, so a
 * million particles stay interactive even on a software rasterizer such as Mesa's llvmpipe), and
 * triangles flat shaded from screen-space derivatives (no normals to keep). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "viewer/viewer_internal.h"

static const char* const sphere_vs =
    "#version 330 core\n"
    "layout(location = 0) in vec4 centre_radius;\n"
    "layout(location = 1) in vec3 colour;\n"
    "uniform mat4 view, proj;\n"
    "uniform float pixels_per_unit; /* at unit depth */\n"
    "out vec3 v_colour;\n"
    "void main() {\n"
    "  vec4 eye = view * vec4(centre_radius.xyz, 1.0);\n"
    "  gl_Position = proj * eye;\n"
    "  gl_PointSize = max(2.0, 2.0 * centre_radius.w * pixels_per_unit / max(-eye.z, 1e-6));\n"
    "  v_colour = colour;\n"
    "}\n";

static const char* const sphere_fs =
    "#version 330 core\n"
    "in vec3 v_colour;\n"
    "out vec4 frag;\n"
    "void main() {\n"
    "  vec2 d = 2.0 * gl_PointCoord - 1.0;\n"
    "  float r2 = dot(d, d);\n"
    "  if (r2 > 1.0) discard;\n"
    "  vec3 n = vec3(d.x, -d.y, sqrt(1.0 - r2));\n"
    "  float light = max(dot(n, normalize(vec3(0.4, 0.6, 1.0))), 0.0);\n"
    "  frag = vec4(v_colour * (0.35 + 0.65 * light), 1.0);\n"
    "}\n";

static const char* const mesh_vs =
    "#version 330 core\n"
    "layout(location = 0) in vec3 position;\n"
    "layout(location = 1) in vec4 colour;\n"
    "uniform mat4 view, proj;\n"
    "out vec3 v_eye;\n"
    "out vec4 v_colour;\n"
    "void main() {\n"
    "  vec4 eye = view * vec4(position, 1.0);\n"
    "  v_eye = eye.xyz;\n"
    "  v_colour = colour;\n"
    "  gl_Position = proj * eye;\n"
    "}\n";

static const char* const mesh_fs =
    "#version 330 core\n"
    "in vec3 v_eye;\n"
    "in vec4 v_colour;\n"
    "out vec4 frag;\n"
    "void main() {\n"
    "  vec3 n = normalize(cross(dFdx(v_eye), dFdy(v_eye)));\n"
    "  float light = abs(dot(n, normalize(vec3(0.3, 0.5, 1.0)))); /* both sides lit */\n"
    "  frag = vec4(v_colour.rgb * (0.3 + 0.7 * light), v_colour.a);\n"
    "}\n";

static GLuint compile(GLenum kind, const char* source, loam_error* err) {
    GLuint s = glCreateShader(kind);
    glShaderSource(s, 1, &source, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[512] = "";
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        loam_error_set(err, LOAM_ERR_IO, "viewer: the OpenGL driver rejected a shader: %s", log);
        glDeleteShader(s);
        return 0;
    }
    return s;
}

static GLuint program(const char* vs, const char* fs, loam_error* err) {
    GLuint v = compile(GL_VERTEX_SHADER, vs, err);
    GLuint f = v ? compile(GL_FRAGMENT_SHADER, fs, err) : 0;
    if (!f) {
        glDeleteShader(v);
        return 0;
    }
    GLuint p = glCreateProgram();
    glAttachShader(p, v);
    glAttachShader(p, f);
    glLinkProgram(p);
    glDeleteShader(v);
    glDeleteShader(f);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[512] = "";
        glGetProgramInfoLog(p, sizeof log, NULL, log);
        loam_error_set(err, LOAM_ERR_IO, "viewer: the OpenGL driver could not link a program: %s", log);
        glDeleteProgram(p);
        return 0;
    }
    return p;
}

/* One interleaved float buffer: attribute 0 has `first` floats, attribute 1 the rest of `stride`. */
static void vertex_layout(GLuint* vao, GLuint* vbo, int first, int stride) {
    glGenVertexArrays(1, vao);
    glGenBuffers(1, vbo);
    glBindVertexArray(*vao);
    glBindBuffer(GL_ARRAY_BUFFER, *vbo);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, first, GL_FLOAT, GL_FALSE, stride * (GLsizei)sizeof(float), (void*)0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, stride - first, GL_FLOAT, GL_FALSE, stride * (GLsizei)sizeof(float),
                          (void*)(first * sizeof(float)));
    glBindVertexArray(0);
}

loam_status viewer_gl_init(viewer_gl* gl, loam_error* err) {
    memset(gl, 0, sizeof *gl);
    gl->sphere_program = program(sphere_vs, sphere_fs, err);
    if (gl->sphere_program) gl->mesh_program = program(mesh_vs, mesh_fs, err);
    if (!gl->mesh_program) return err ? err->status : LOAM_ERR_IO;
    vertex_layout(&gl->particle_vao, &gl->particle_vbo, 4, 7);
    vertex_layout(&gl->mesh_vao, &gl->mesh_vbo, 3, 7);
    return LOAM_OK;
}

void viewer_gl_free(viewer_gl* gl) {
    glDeleteBuffers(1, &gl->particle_vbo);
    glDeleteBuffers(1, &gl->mesh_vbo);
    glDeleteVertexArrays(1, &gl->particle_vao);
    glDeleteVertexArrays(1, &gl->mesh_vao);
    glDeleteProgram(gl->sphere_program);
    glDeleteProgram(gl->mesh_program);
    memset(gl, 0, sizeof *gl);
}

/* Column-major 4x4 matrices, as GL takes them. */
static void look_at(const loam_viewer* v, float m[16]) {
    float cp = cosf(v->pitch), sp = sinf(v->pitch), cy = cosf(v->yaw), sy = sinf(v->yaw);
    float back[3] = {cp * cy, cp * sy, sp}; /* from the target towards the eye */
    float right[3] = {-sy, cy, 0.0f};       /* back x z, normalized */
    float up[3] = {back[1] * right[2] - back[2] * right[1], back[2] * right[0] - back[0] * right[2],
                   back[0] * right[1] - back[1] * right[0]};
    float eye[3];
    for (int i = 0; i < 3; ++i) eye[i] = v->target[i] + v->distance * back[i];
    const float* rows[3] = {right, up, back};
    memset(m, 0, 16 * sizeof *m);
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) m[4 * c + r] = rows[r][c];
        m[12 + r] = -(rows[r][0] * eye[0] + rows[r][1] * eye[1] + rows[r][2] * eye[2]);
    }
    m[15] = 1.0f;
}

static void perspective(float fov_y, float aspect, float near, float far, float m[16]) {
    float f = 1.0f / tanf(0.5f * fov_y);
    memset(m, 0, 16 * sizeof *m);
    m[0] = f / aspect;
    m[5] = f;
    m[10] = (far + near) / (near - far);
    m[11] = -1.0f;
    m[14] = 2.0f * far * near / (near - far);
}

static void draw_triangles(const viewer_gl* gl, const viewer_floats* t) {
    if (t->count == 0) return;
    glBindVertexArray(gl->mesh_vao);
    glBindBuffer(GL_ARRAY_BUFFER, gl->mesh_vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(t->count * sizeof(float)), t->data, GL_STREAM_DRAW);
    glDrawArrays(GL_TRIANGLES, 0, (GLsizei)(t->count / 7));
}

void viewer_gl_draw(const loam_viewer* v, int width, int height) {
    const viewer_gl* gl = &v->gl;
    float view[16], proj[16], fov = 40.0f * 3.14159265f / 180.0f;
    look_at(v, view);
    perspective(fov, height > 0 ? (float)width / (float)height : 1.0f, 0.01f * v->distance, 100.0f * v->distance, proj);
    glViewport(0, 0, width, height);
    glClearColor(0.93f, 0.94f, 0.96f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glEnable(GL_PROGRAM_POINT_SIZE);
    glDisable(GL_CULL_FACE);
    glUseProgram(gl->sphere_program);
    glUniformMatrix4fv(glGetUniformLocation(gl->sphere_program, "view"), 1, GL_FALSE, view);
    glUniformMatrix4fv(glGetUniformLocation(gl->sphere_program, "proj"), 1, GL_FALSE, proj);
    glUniform1f(glGetUniformLocation(gl->sphere_program, "pixels_per_unit"), 0.5f * (float)height * proj[5]);
    if (v->particles.count) {
        glBindVertexArray(gl->particle_vao);
        glBindBuffer(GL_ARRAY_BUFFER, gl->particle_vbo);
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(v->particles.count * sizeof(float)), v->particles.data, GL_STREAM_DRAW);
        glDrawArrays(GL_POINTS, 0, (GLsizei)(v->particles.count / 7));
    }
    glUseProgram(gl->mesh_program);
    glUniformMatrix4fv(glGetUniformLocation(gl->mesh_program, "view"), 1, GL_FALSE, view);
    glUniformMatrix4fv(glGetUniformLocation(gl->mesh_program, "proj"), 1, GL_FALSE, proj);
    draw_triangles(gl, &v->opaque);
    /* Translucent walls last, without writing depth, so particles behind them still show. */
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDepthMask(GL_FALSE);
    draw_triangles(gl, &v->translucent);
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
    glBindVertexArray(0);
}
