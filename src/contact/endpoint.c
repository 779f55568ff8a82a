/* The world endpoint (endpoint.h): the fixed side of a contact with the ground or a wall. */
#include "contact/endpoint.h"

static void world_velocity(const void* owner, loam_endpoint e, const double p[3], double v[3]) {
    (void)owner, (void)e, (void)p;
    v[0] = v[1] = v[2] = 0.0;
}

static void world_apply(void* owner, loam_endpoint e, const double p[3], const double impulse[3]) {
    (void)owner, (void)e, (void)p, (void)impulse;
}

static double world_delassus(const void* owner, loam_endpoint e, const double p[3], const double n[3]) {
    (void)owner, (void)e, (void)p, (void)n;
    return 0.0;
}

const loam_endpoint_ops loam_world_endpoint_ops = {LOAM_ENDPOINT_WORLD, world_velocity, world_apply, world_delassus};

void loam_world_endpoint_jacobian(const void* owner, loam_endpoint e, const double p[3], const loam_endpoint_rows* rows) {
    (void)owner, (void)e, (void)p, (void)rows;
}
