/* docs/softbody.md's C example, verbatim: everything between the DOC-BEGIN and DOC-END markers is in
 * docs/softbody.md as it stands (checked below), so it must compile and say something true. The test
 * runs it with stdout captured and checks that the four copies of the robot moved exactly alike
 * (populations are bit-identical per robot) and fell the 5 cm to the floor (less a sag under 1 cm). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define main doc_main
/* DOC-BEGIN */
#include <stdio.h>
#include <loam/softbody.h>

int main(void) {
    loam_error err;
    loam_softbody_voxel_def vd = loam_softbody_voxel_default_def(); /* 1 cm voxels, 1 kg masses */
    vd.nx = vd.ny = vd.nz = 3;
    vd.origin.z = 0.05f;                                            /* 5 cm above the floor */
    uint8_t voxels[27];
    for (int i = 0; i < 27; ++i) voxels[i] = (uint8_t)(i % 2 ? LOAM_SB_MUSCLE_FIRST + i % 20 : LOAM_SB_BONE);
    loam_softbody_robot* robot = loam_softbody_voxel_robot(&vd, voxels, &err);
    if (!robot) return fprintf(stderr, "%s\n", err.message), 1;

    loam_softbody_def def = loam_softbody_default_def(); /* force solver, dt 1 ms */
    def.env = LOAM_SB_LAND;                              /* gravity, floor at z = 0, friction */
    loam_softbody_materials mats = loam_softbody_default_materials(100.0f); /* Table I x 100 */
    const loam_softbody_robot* robots[4] = {robot, robot, robot, robot};
    loam_softbody_pop* pop = loam_softbody_pop_create(&def, &mats, robots, 4, &err);
    if (!pop) return fprintf(stderr, "%s\n", err.message), 1;
    loam_vec3 start = loam_softbody_pop_com(pop, 0);
    if (loam_softbody_pop_step(pop, 1000, &err) != LOAM_OK) return fprintf(stderr, "%s\n", err.message), 1;
    for (int b = 0; b < 4; ++b) {
        loam_vec3 c = loam_softbody_pop_com(pop, b);
        printf("robot %d moved (%.9g, %.9g, %.9g) m in %g s\n", b, c.x - start.x, c.y - start.y, c.z - start.z,
               loam_softbody_pop_time(pop));
    }
    loam_softbody_pop_destroy(pop);
    loam_softbody_robot_destroy(robot);
    return 0;
}
/* DOC-END */
#undef main

#include "test_util.h"
#include "doc_example.h"

int main(void) {
    doc_check_verbatim(LOAM_SOURCE_DIR "/tests/test_softbody_api_example.c", LOAM_SOURCE_DIR "/docs/softbody.md",
                       "/* DOC-BEGIN */\n", "/* DOC-END */");
    char out[2048];
    int rc = doc_run_captured(doc_main, out, sizeof out);
    fprintf(stderr, "the example printed:\n%s", out);
    CHECK(rc == 0, "the example returned %d", rc);
    double d[4][3];
    int n = 0;
    for (char* line = strtok(out, "\n"); line && n < 4; line = strtok(NULL, "\n")) {
        int b;
        if (sscanf(line, "robot %d moved (%lf, %lf, %lf)", &b, &d[n][0], &d[n][1], &d[n][2]) == 4 && b == n) ++n;
    }
    CHECK(n == 4, "expected 4 robots, read %d", n);
    for (int b = 1; b < n; ++b) CHECK(!memcmp(d[b], d[0], sizeof d[0]), "robot %d moved differently from robot 0", b);
    CHECK(n && d[0][2] < -0.05 && d[0][2] > -0.06, "robot 0 fell %g m; from 5 cm up it should land and sag < 1 cm",
          n ? -d[0][2] : 0.0);
    TEST_MAIN_END();
}
