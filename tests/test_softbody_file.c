/* Robot files: a good file loads; each kind of bad element is refused with a message naming it;
 * a saved robot loads back bit for bit; a population refuses robots larger than its slots. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loam/softbody.h"
#include "test_util.h"

static const char* k_good =
    "{\"masses\": [[0,0,0], [0.1,0,0], [0,0.1,0, 2.0], [0,0,0.1, 0]],\n"
    " \"springs\": [[0,1,22], [0,2,1,0.12], [1,2,23], [0,3,22]],\n"
    " \"faces\": [[0,2,1]]}";

static void expect_bad(const char* text, const char* needle) {
    loam_error err;
    loam_error_clear(&err);
    loam_softbody_robot* r = loam_softbody_robot_parse(text, "bad.json", &err);
    CHECK(!r, "accepted: %s", text);
    CHECK(err.status == LOAM_ERR_INPUT && strstr(err.message, needle) && strstr(err.message, "bad.json"),
          "message '%s' lacks '%s'", err.message, needle);
    loam_softbody_robot_destroy(r);
}

int main(void) {
    loam_error err;
    loam_softbody_robot* r = loam_softbody_robot_parse(k_good, "good.json", &err);
    CHECK(r, "good file: %s", err.message);
    if (r) {
        CHECK(r->mass_count == 4 && r->spring_count == 4 && r->face_count == 1, "counts");
        CHECK(r->inv_mass[2] == 0.5f && r->inv_mass[3] == 0.0f && r->inv_mass[0] == 1.0f, "masses");
        CHECK(fabsf(r->rest[0] - 0.1f) < 1e-7f && r->rest[1] == 0.12f, "rest lengths %g %g", (double)r->rest[0],
              (double)r->rest[1]);
        char path[] = "/tmp/loam_sb_robotXXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0, "mkstemp");
        close(fd);
        CHECK(loam_softbody_robot_save(r, path, &err) == LOAM_OK, "save: %s", err.message);
        loam_softbody_robot* back = loam_softbody_robot_load(path, &err);
        CHECK(back, "load back: %s", err.message);
        if (back) {
            CHECK(back->mass_count == 4 && back->spring_count == 4 && back->face_count == 1, "round trip counts");
            CHECK(!memcmp(back->x, r->x, 16) && !memcmp(back->rest, r->rest, 16) && !memcmp(back->inv_mass, r->inv_mass, 16) &&
                      !memcmp(back->material, r->material, 4) && !memcmp(back->face, r->face, 12),
                  "round trip is bit-exact");
        }
        loam_softbody_robot_destroy(back);
        remove(path);

        /* A population slot of 3 masses cannot hold it: refused, naming the robot. */
        loam_softbody_def d = loam_softbody_default_def();
        d.max_masses = 3;
        loam_softbody_materials m = loam_softbody_default_materials(1.0f);
        const loam_softbody_robot* rs[1] = {r};
        loam_softbody_pop* p = loam_softbody_pop_create(&d, &m, rs, 1, &err);
        CHECK(!p && strstr(err.message, "robot 0") && strstr(err.message, "4 masses"), "slot limit: %s", err.message);
        loam_softbody_pop_destroy(p);
    }
    loam_softbody_robot_destroy(r);

    expect_bad("{\"masses\": [[0,0,0],[1,0,0]], \"springs\": [[0,2,22]]}", "springs[0]");
    expect_bad("{\"masses\": [[0,0,0],[1,0,0]], \"springs\": [[0,1,22],[1,5,22]]}", "springs[1]");
    expect_bad("{\"masses\": [[0,0,0],[0,0,0]], \"springs\": [[0,1,22]]}", "spring 0");      /* zero length */
    expect_bad("{\"masses\": [[0,0,0],[1,0,0]], \"springs\": [[0,1,22,0]]}", "rest length");
    expect_bad("{\"masses\": [[0,0,0],[1,0,0]], \"springs\": [[0,1,22,1e999]]}", "springs[0][3]"); /* inf */
    expect_bad("{\"masses\": [[0,0,1e999],[1,0,0]], \"springs\": []}", "masses[0][2]");
    expect_bad("{\"masses\": [[0,0,0],[1,0,0]], \"springs\": [[0,1,0]]}", "air");
    expect_bad("{\"masses\": [[0,0,0],[1,0,0]], \"springs\": [[0,1,254]]}", "material 254");
    expect_bad("{\"masses\": [[0,0,0],[1,0,0]], \"springs\": [[0,1,22],[1,0,22]]}", "two springs join masses 0 and 1");
    expect_bad("{\"masses\": [[0,0,0],[1,0,0]], \"springs\": [[0,0,22]]}", "itself");
    expect_bad("{\"masses\": [[0,0,0],[1,0,0]], \"springs\": [[0,1.5,22]]}", "springs[0]");
    expect_bad("{\"masses\": [[0,0,0],[1,0,0,-1]], \"springs\": []}", "masses[1]");
    expect_bad("{\"masses\": [[0,0]], \"springs\": []}", "masses[0]");
    expect_bad("{\"masses\": [[0,0,0],[1,0,0]], \"springs\": [], \"faces\": [[0,1,7]]}", "faces[0]");
    expect_bad("{\"masses\": [], \"springs\": []}", "0 masses");
    expect_bad("{\"springs\": []}", "masses");
    expect_bad("{\"masses\": [[0,0,0]], \"springs\": [[0,1,\"bone\"]]}", "springs[0][2]");
    expect_bad("[1, 2", "line 1");
    expect_bad("{\"masses\": [[0,0,0]],\n \"springs\": [[0,1,22]],\n oops}", "line 3");

    /* Too many masses for any slot. */
    size_t cap = 70000 * 12 + 64;
    char* big = malloc(cap);
    size_t n = (size_t)sprintf(big, "{\"masses\": [");
    for (int i = 0; i < 70000; ++i) n += (size_t)sprintf(big + n, "%s[%d,0,0]", i ? "," : "", i);
    sprintf(big + n, "], \"springs\": []}");
    expect_bad(big, "70000 masses");
    free(big);

    CHECK(!loam_softbody_robot_load("/nonexistent/robot.json", &err) && strstr(err.message, "/nonexistent/robot.json"),
          "missing file: %s", err.message);
    CHECK(!loam_softbody_robot_parse(NULL, "x", &err), "NULL text");
    /* A robot struct filled by hand with missing arrays is refused, not read. */
    float xs[2] = {0, 1}, zero[2] = {0, 0}, ones[2] = {1, 1};
    loam_softbody_robot hand = {2, 1, 0, xs, zero, zero, ones, NULL, NULL, NULL, NULL, NULL};
    CHECK(loam_softbody_robot_validate(&hand, 0, &err) == LOAM_ERR_INPUT && strstr(err.message, "NULL s0"), "%s",
          err.message);
    CHECK(loam_softbody_robot_save(&hand, "/tmp/never.json", &err) == LOAM_ERR_INPUT, "save validates");
    CHECK(loam_softbody_robot_save(NULL, "/tmp/never.json", &err) == LOAM_ERR_INPUT, "save NULL robot");
    CHECK(!loam_softbody_robot_copy(NULL, &err), "copy NULL");
    loam_softbody_robot* ok = loam_softbody_robot_parse(k_good, "good.json", &err);
    CHECK(ok && loam_softbody_robot_save(ok, NULL, &err) != LOAM_OK, "save to a NULL path");
    loam_softbody_robot_destroy(ok);
    TEST_MAIN_END();
}
