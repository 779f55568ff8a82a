/* The README's quick tour, verbatim: everything between the README-BEGIN and README-END markers is
 * pasted into README.md as it stands, so it must compile and say something true. The test renames its
 * main, runs it with stdout captured, and checks what it printed: three spheres dropped onto a plane
 * come to rest on it, each at height z = r above it, where they were dropped sideways (they fall
 * straight down, do not touch each other, and the plane is level). It also checks that README.md still
 * holds exactly this text, so the two cannot drift apart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define main readme_main
/* README-BEGIN */
#include <stdio.h>
#include <loam/granular.h>

int main(void) {
    loam_granular_params params = loam_granular_default_params(); /* dt = 1 ms, gravity -9.81 z */
    loam_world* world = loam_world_create(&params, NULL);
    loam_body_def ground = loam_body_default_def(); /* a fixed body at the origin */
    ground.shape_count = 1;
    ground.shapes[0] = (loam_shape){.type = LOAM_SHAPE_PLANE, .local = loam_pose_identity(), .friction = 0.5f};
    loam_world_add_body(world, &ground, NULL);
    float xyz[9] = {0.0f, 0.0f, 0.05f, 0.03f, 0.0f, 0.10f, 0.06f, 0.0f, 0.15f}; /* m */
    float radius[3] = {0.01f, 0.01f, 0.01f};                                      /* m */
    loam_world_add_particles(world, 3, xyz, NULL, radius, 2500.0f, NULL);       /* kg/m^3 */
    loam_error err;
    if (loam_world_step(world, 1000, &err) != LOAM_OK) { fprintf(stderr, "%s\n", err.message); return 1; } /* 1 s */
    loam_particles p = loam_world_particles(world); /* slots get renumbered: p.id[i] is who sits in slot i */
    for (int i = 0; i < p.count; ++i)
        printf("particle %d at (%.4f, %.4f, %.4f) m\n", p.id[i], p.x[i], p.y[i], p.z[i]);
    loam_world_destroy(world);
    return 0;
}
/* README-END */
#undef main

#include "test_util.h"
#include "doc_example.h"

int main(void) {
    char out[4096];
    int rc = doc_run_captured(readme_main, out, sizeof out);
    fprintf(stderr, "the example printed:\n%s", out);
    CHECK(rc == 0, "the example returned %d", rc);

    const float r = 0.01f, x0[3] = {0.0f, 0.03f, 0.06f};
    int seen[3] = {0, 0, 0}, lines = 0;
    for (char* line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        int id;
        float x, y, z;
        ++lines;
        int got = sscanf(line, "particle %d at (%f, %f, %f) m", &id, &x, &y, &z);
        CHECK(got == 4, "unexpected line '%s'", line);
        if (got != 4) continue;
        CHECK(id >= 0 && id < 3, "id %d", id);
        if (id < 0 || id >= 3) continue;
        ++seen[id];
        /* Resting on the plane z = 0: the centre is one radius up (printed to 0.1 mm; a resting overlap
         * beyond 1% of r would be a contact error). */
        CHECK(fabsf(z - r) <= 0.0001f + 0.00005f, "particle %d rests at z = %.4f m, expected r = %.4f m", id, z, r);
        /* Dropped straight down onto a level plane: no sideways motion at all. */
        CHECK(fabsf(x - x0[id]) <= 0.00005f && fabsf(y) <= 0.00005f,
              "particle %d moved sideways to (%.4f, %.4f), dropped at (%.4f, 0)", id, x, y, x0[id]);
    }
    CHECK(lines == 3, "%d lines printed, expected 3", lines);
    for (int k = 0; k < 3; ++k) CHECK(seen[k] == 1, "particle %d printed %d times", k, seen[k]);
    /* The snippet between the markers of this very file must appear verbatim in README.md. */
    doc_check_verbatim(LOAM_SOURCE_DIR "/tests/test_api_example.c", LOAM_SOURCE_DIR "/README.md", "/* README-BEGIN */\n",
                       "/* README-END */");
    TEST_MAIN_END();
}
