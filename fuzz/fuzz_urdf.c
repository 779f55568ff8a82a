/* libFuzzer target for the URDF reader: every input is parsed; a model that loads is given a state,
 * stepped a few times and checked for finite poses or a clean error (a bad model must be refused by
 * the reader, never crash the dynamics). Built only with -DLOAM_FUZZ=ON and clang; run with
 * TARGET=urdf scripts/fuzz.sh. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "loam/urdf.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    loam_mb_model* m = NULL;
    loam_error err;
    loam_urdf_options o = loam_urdf_default_options();
    o.floating_base = size & 1;
    o.warn = NULL;       /* skipped meshes and shapes: no output per input */
    o.mesh_grids = 0;    /* a mesh the input names is read but gets no grid: no cache files written */
    o.self_collision = (loam_mb_self_collision)((size >> 1) % 3);
    m = loam_urdf_parse((const char*)data, size, "fuzz.urdf", &o, &err);
    if (!m) {
        if (err.status == LOAM_OK) abort(); /* a failure always says why */
        return 0;
    }
    if (m->nbody < 1 || m->nv > 6 * m->nbody) abort();
    loam_mb_state* s = NULL;
    if (m->nbody <= 64 && (s = loam_mb_state_create(m, &err)) != NULL) {
        for (int n = 0; n < 3; ++n)
            if (loam_mb_step(m, s, 1, &err) != LOAM_OK) break;
        for (int i = 0; i < m->nbody; ++i)
            if (!isfinite(s->xpose[i].p.x) && s->step == 3) abort();
        loam_mb_state_destroy(s);
    }
    loam_mb_model_destroy(m);
    return 0;
}
