/* libFuzzer target for soft-robot files: the input is parsed as a robot (JSON); a robot that parses
 * must validate, and is stepped for a few steps in water and on land (divergence is a fine outcome,
 * a crash or a sanitizer report is not). Built only with -DLOAM_FUZZ=ON and clang; run with
 * TARGET=robot scripts/fuzz.sh. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loam/softbody.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > (1u << 20)) return 0;
    char* text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    loam_error err;
    loam_softbody_robot* r = loam_softbody_robot_parse(text, "fuzz.json", &err);
    free(text);
    if (!r) return 0;
    if (loam_softbody_robot_validate(r, 0, &err) != LOAM_OK) abort(); /* parse accepted an invalid robot */
    loam_softbody_materials m = loam_softbody_default_materials(1.0f);
    for (int env = 0; env < 3; env += 2) {
        loam_softbody_def d = loam_softbody_default_def();
        d.env = (loam_softbody_env)env;
        d.solver = (loam_softbody_solver)(r->mass_count % 3);
        const loam_softbody_robot* rs[1] = {r};
        loam_softbody_pop* p = loam_softbody_pop_create(&d, &m, rs, 1, &err);
        if (p) loam_softbody_pop_step(p, 5, &err);
        loam_softbody_pop_destroy(p);
    }
    loam_softbody_robot_destroy(r);
    return 0;
}
