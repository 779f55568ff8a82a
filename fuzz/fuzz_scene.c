/* libFuzzer target for the scene reader: the input is a scene file, read by loam_scene_load_buffer
 * and freed. Lines at the very start of the input of the form "--set key=value" (at most 8) are
 * taken off and passed as overrides, so the fuzzer also explores src/scene/overrides.c; the rest
 * is the YAML text, passed with its exact length (it need not be NUL-terminated).
 *
 * Built only with -DLOAM_FUZZ=ON and clang (fuzz/CMakeLists.txt); run with scripts/fuzz.sh. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "loam/scene.h"

enum { MAX_SETS = 8, MAX_SET_LEN = 256 };

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const char prefix[] = "--set ";
    char sets[MAX_SETS][MAX_SET_LEN];
    const char* set_ptrs[MAX_SETS];
    int set_count = 0;
    const char* text = (const char*)data;
    size_t length = size;
    while (set_count < MAX_SETS && length >= sizeof prefix - 1 && memcmp(text, prefix, sizeof prefix - 1) == 0) {
        const char* nl = memchr(text, '\n', length);
        size_t line = nl ? (size_t)(nl - text) : length;
        size_t value = line - (sizeof prefix - 1);
        if (value >= MAX_SET_LEN) break;
        memcpy(sets[set_count], text + sizeof prefix - 1, value);
        sets[set_count][value] = '\0';
        if (memchr(sets[set_count], '\0', value)) break; /* an embedded NUL: leave it to the YAML */
        set_ptrs[set_count] = sets[set_count];
        ++set_count;
        size_t consumed = nl ? line + 1 : line;
        text += consumed;
        length -= consumed;
    }
    loam_scene scene;
    loam_error err;
    loam_error_clear(&err);
    loam_status st = loam_scene_load_buffer(text, length, "fuzz.yaml", set_ptrs, set_count, &scene, &err);
    if (st == LOAM_OK) {
        /* Touch what was read so a wrong count or a stale pointer shows up under ASan. */
        volatile float sink = 0.0f;
        for (int i = 0; i < scene.particle_count; i += 4099)
            sink += scene.xyz[3 * i] + scene.vel[3 * i + 2] + scene.radius[i];
        for (int b = 0; b < scene.body_count; ++b)
            sink += (float)scene.bodies[b].shape_count + (float)scene.bodies[b].waypoint_count;
        (void)sink;
        loam_scene_destroy(&scene);
    } else {
        /* A failed load must leave nothing behind and a message that is a terminated string. */
        if (scene.xyz || scene.vel || scene.radius || scene.bodies) __builtin_trap();
        if (!memchr(err.message, 0, sizeof err.message)) __builtin_trap();
        if (err.status != st) __builtin_trap();
    }
    return 0;
}
