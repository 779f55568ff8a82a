/* A program built against an installed loam (tests/install_consumer.sh): the umbrella header, then a
 * sphere dropped onto a plane must come to rest on it, its centre one radius above the plane. */
#include <math.h>
#include <stdio.h>

#include <loam/loam.h>

int main(void) {
    loam_granular_params params = loam_granular_default_params();
    loam_error err;
    loam_world* world = loam_world_create(&params, &err);
    if (!world) {
        fprintf(stderr, "consumer: %s\n", err.message);
        return 1;
    }
    loam_body_def ground = loam_body_default_def();
    ground.shape_count = 1;
    ground.shapes[0] = (loam_shape){.type = LOAM_SHAPE_PLANE, .local = loam_pose_identity(), .friction = 0.5f};
    float xyz[3] = {0.0f, 0.0f, 0.05f}, radius = 0.01f;
    if (loam_world_add_body(world, &ground, &err) < 0 ||
        loam_world_add_particles(world, 1, xyz, NULL, &radius, 2500.0f, &err) != LOAM_OK) {
        fprintf(stderr, "consumer: %s\n", err.message);
        return 1;
    }
    if (loam_world_step(world, 1000, &err) != LOAM_OK) {
        fprintf(stderr, "consumer: %s\n", err.message);
        return 1;
    }
    loam_particles p = loam_world_particles(world);
    double z = p.z[0];
    loam_world_destroy(world);
    printf("consumer: loam %s, sphere at rest at z = %.5f m\n", loam_version(), z);
    /* at rest on the plane: centre one radius up, within the solver's overlap allowance */
    return fabs(z - radius) < 0.1 * radius ? 0 : 1;
}
