/* libFuzzer target for the state-file loaders (docs/state-files.md). The first byte picks the
 * loader (soft-body population, multibody state, granular world) and whether the harness writes a
 * correct length and CRC-32 into the header, so the fuzzer reaches past the checksum into the
 * fields; the rest is the file. A load must fail cleanly or give a state that passes the loader's
 * checks: soft-body and multibody states are then stepped (every value was validated); a granular
 * image holds caches whose consistency the loader cannot check in full (docs/state-files.md), so
 * it is only loaded and freed. Built only with -DLOAM_FUZZ=ON and clang; run with
 * TARGET=state scripts/fuzz.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/state_file.h"
#include "loam/granular.h"
#include "loam/multibody.h"
#include "loam/softbody.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static loam_softbody_pop* g_pop;
static loam_mb_model* g_model;
static loam_mb_state* g_state;
static loam_world* g_world;
static char g_path[64];

static void setup(void) {
    loam_error err;
    snprintf(g_path, sizeof g_path, "/tmp/loam-fuzz-state.%ld", (long)getpid());
    loam_softbody_voxel_def vd = loam_softbody_voxel_default_def();
    vd.nx = vd.ny = vd.nz = 2, vd.size = 0.05f;
    uint8_t vox[8] = {1, 1, 22, 22, 1, 1, 22, 22};
    loam_softbody_robot* r = loam_softbody_voxel_robot(&vd, vox, &err);
    loam_softbody_def d = loam_softbody_default_def();
    d.env = LOAM_SB_LAND;
    loam_softbody_materials mats = loam_softbody_default_materials(10.0f);
    const loam_softbody_robot* rs[1] = {r};
    g_pop = r ? loam_softbody_pop_create(&d, &mats, rs, 1, &err) : NULL;
    loam_softbody_robot_destroy(r);
    loam_mb_body_def b[2] = {loam_mb_body_default_def(), loam_mb_body_default_def()};
    b[0].joint = LOAM_JOINT_FLOATING, b[0].placement.p.z = 0.1;
    b[1].parent = 0, b[1].joint = LOAM_JOINT_REVOLUTE, b[1].placement.p.x = 0.1, b[1].limited = 1, b[1].lower = -1, b[1].upper = 1;
    loam_mb_geom_def g[3] = {loam_mb_geom_default_def(), loam_mb_geom_default_def(), loam_mb_geom_default_def()};
    g[0].body = -1, g[0].shape.type = LOAM_SHAPE_PLANE;
    g[1].body = 0, g[1].shape.type = LOAM_SHAPE_SPHERE, g[1].shape.size.x = 0.05;
    g[2].body = 1, g[2].shape.type = LOAM_SHAPE_BOX, g[2].shape.size = (loam_vec3){0.05, 0.02, 0.02};
    loam_mb_options o = loam_mb_default_options();
    o.solver = LOAM_MB_SOLVER_SUBADMM;
    if ((g_model = loam_mb_model_create(b, 2, g, 3, &o, &err)) != NULL) g_state = loam_mb_state_create(g_model, &err);
    loam_granular_params p = loam_granular_default_params();
    g_world = loam_world_create(&p, &err);
    loam_body_def box = loam_body_default_def();
    box.shape_count = loam_open_box_pieces((loam_vec3){0.05f, 0.05f, 0.1f}, 0.01f, 0.5f, box.shapes);
    loam_world_add_body(g_world, &box, &err);
    float xyz[3 * 40], rad[40];
    for (int i = 0; i < 40; ++i)
        xyz[3 * i] = -0.04f + 0.02f * (float)(i % 5), xyz[3 * i + 1] = -0.04f + 0.02f * (float)(i / 5 % 5), xyz[3 * i + 2] = 0.01f + 0.02f * (float)(i / 25),
        rad[i] = 0.009f;
    loam_world_add_particles(g_world, 40, xyz, NULL, rad, 2500.0f, &err);
    if (!g_pop || !g_state || !g_world) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (!g_pop) setup();
    if (size < 1) return 0;
    int which = data[0] % 3, fix = data[0] >> 7;
    data++, size--;
    unsigned char* file = malloc(size ? size : 1);
    if (!file) return 0;
    memcpy(file, data, size);
    if (fix && size >= LOAM_STATE_HEADER_BYTES) { /* a header that agrees with the payload */
        uint64_t len = size - LOAM_STATE_HEADER_BYTES;
        uint32_t crc = loam_crc32(file + LOAM_STATE_HEADER_BYTES, (size_t)len);
        memcpy(file + 16, &len, 8);
        memcpy(file + 24, &crc, 4);
    }
    FILE* f = fopen(g_path, "wb");
    if (!f) abort();
    if (size) fwrite(file, 1, size, f);
    fclose(f);
    free(file);
    loam_error err;
    if (which == 0) {
        if (loam_softbody_pop_load(g_pop, g_path, &err) == LOAM_OK) loam_softbody_pop_step(g_pop, 2, &err);
    } else if (which == 1) {
        if (loam_mb_state_load(g_model, g_state, g_path, &err) == LOAM_OK) loam_mb_step(g_model, g_state, 1, &err);
    } else {
        loam_world* w = loam_world_clone(g_world, &err);
        if (w) loam_world_load(w, g_path, &err);
        loam_world_destroy(w);
    }
    return 0;
}

#ifdef LOAM_FUZZ_STATE_SEEDS
/* The seed corpus (fuzz/corpus-state/): one saved state of each kind after a few steps, behind its
 * selector byte. Regenerate with
 *   cc -DLOAM_FUZZ_STATE_SEEDS -Iinclude -Isrc fuzz/fuzz_state.c build/libloam.a -fopenmp -lm ... -o /tmp/seeds
 *   /tmp/seeds fuzz/corpus-state */
static void seed(const char* dir, const char* name, int which) {
    char out[512];
    snprintf(out, sizeof out, "%s/%s", dir, name);
    FILE* in = fopen(g_path, "rb");
    FILE* o = fopen(out, "wb");
    if (!in || !o) abort();
    fputc(which, o);
    for (int c; (c = fgetc(in)) != EOF;) fputc(c, o);
    fclose(in);
    fclose(o);
}

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    setup();
    loam_error err;
    loam_softbody_pop_step(g_pop, 30, &err);
    if (loam_softbody_pop_save(g_pop, g_path, &err) != LOAM_OK) return 1;
    seed(argv[1], "softbody", 0);
    for (int i = 0; i < 30; ++i) loam_mb_step(g_model, g_state, 1, &err);
    if (loam_mb_state_save(g_model, g_state, g_path, &err) != LOAM_OK) return 1;
    seed(argv[1], "multibody", 1);
    for (int i = 0; i < 30; ++i) loam_world_step(g_world, 1, &err);
    if (loam_world_save(g_world, g_path, &err) != LOAM_OK) return 1;
    seed(argv[1], "granular", 2);
    remove(g_path);
    return 0;
}
#endif
