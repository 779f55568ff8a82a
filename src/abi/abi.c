/* Sizes and field offsets of the public structs that bindings mirror (loam/abi.h). */
#include "loam/abi.h"

#include <string.h>

#include "loam/core.h"
#include "loam/env.h"
#include "loam/granular.h"
#include "loam/mesh.h"
#include "loam/render.h"
#include "loam/scene.h"
#include "loam/sdf_grid.h"

typedef struct abi_field {
    const char* type;
    const char* field;
    size_t offset;
} abi_field;

typedef struct abi_type {
    const char* name;
    size_t size;
} abi_type;

#define T(type) {#type, sizeof(type)}
static const abi_type types[] = {
    T(loam_error),        T(loam_vec3),           T(loam_quat),          T(loam_pose),
    T(loam_twist),        T(loam_granular_params), T(loam_particles),    T(loam_body_state),
    T(loam_shape),        T(loam_waypoint),       T(loam_body_def),      T(loam_step_stats),
    T(loam_mesh),         T(loam_sdf_grid),       T(loam_scene_output),  T(loam_scene_camera),
    T(loam_scene),        T(loam_image),          T(loam_camera),        T(loam_env_config),
    T(loam_env_obs_spec), T(loam_env_step_info),
};
#undef T

#define F(type, field) {#type, #field, offsetof(type, field)}
static const abi_field fields[] = {
    F(loam_error, status), F(loam_error, message),
    F(loam_vec3, x), F(loam_vec3, y), F(loam_vec3, z),
    F(loam_quat, w), F(loam_quat, x), F(loam_quat, y), F(loam_quat, z),
    F(loam_pose, p), F(loam_pose, q),
    F(loam_twist, v), F(loam_twist, w),
    F(loam_granular_params, dt), F(loam_granular_params, gravity), F(loam_granular_params, solver),
    F(loam_granular_params, sweeps), F(loam_granular_params, tolerance), F(loam_granular_params, baumgarte),
    F(loam_granular_params, push_sweeps), F(loam_granular_params, relaxation), F(loam_granular_params, friction),
    F(loam_granular_params, damping), F(loam_granular_params, margin), F(loam_granular_params, skin),
    F(loam_granular_params, warm_start), F(loam_granular_params, hash_table_size),
    F(loam_granular_params, reorder_interval), F(loam_granular_params, periodic_axis),
    F(loam_granular_params, periodic_lo), F(loam_granular_params, periodic_hi), F(loam_granular_params, bound),
    F(loam_granular_params, sleep_speed), F(loam_granular_params, sleep_time), F(loam_granular_params, threads), F(loam_granular_params, context),
    F(loam_particles, count), F(loam_particles, x), F(loam_particles, y), F(loam_particles, z),
    F(loam_particles, vx), F(loam_particles, vy), F(loam_particles, vz), F(loam_particles, radius),
    F(loam_particles, inv_mass), F(loam_particles, contact_count), F(loam_particles, id),
    F(loam_body_state, pose), F(loam_body_state, twist), F(loam_body_state, force), F(loam_body_state, torque),
    F(loam_body_state, contacts),
    F(loam_shape, type), F(loam_shape, local), F(loam_shape, size), F(loam_shape, friction), F(loam_shape, grid),
    F(loam_waypoint, t), F(loam_waypoint, pose),
    F(loam_body_def, name), F(loam_body_def, pose), F(loam_body_def, motion), F(loam_body_def, twist),
    F(loam_body_def, waypoint_count), F(loam_body_def, waypoints), F(loam_body_def, shape_count),
    F(loam_body_def, shapes),
    F(loam_step_stats, contacts), F(loam_step_stats, body_contacts), F(loam_step_stats, sweeps_run),
    F(loam_step_stats, max_overlap), F(loam_step_stats, last_sweep_change), F(loam_step_stats, list_rebuilt),
    F(loam_step_stats, list_builds), F(loam_step_stats, recolored), F(loam_step_stats, blocks_relisted),
    F(loam_step_stats, time_detect),
    F(loam_step_stats, time_color), F(loam_step_stats, time_solve), F(loam_step_stats, time_push),
    F(loam_step_stats, time_finish), F(loam_step_stats, dropped_neighbors), F(loam_step_stats, sleeping),
    F(loam_step_stats, quiet),
    F(loam_mesh, vertex_count), F(loam_mesh, triangle_count), F(loam_mesh, vertices), F(loam_mesh, triangles),
    F(loam_sdf_grid, origin), F(loam_sdf_grid, cell), F(loam_sdf_grid, margin), F(loam_sdf_grid, nx),
    F(loam_sdf_grid, ny), F(loam_sdf_grid, nz), F(loam_sdf_grid, values),
    F(loam_scene_output, frames), F(loam_scene_output, png), F(loam_scene_output, vtp), F(loam_scene_output, video),
    F(loam_scene_output, width), F(loam_scene_output, height), F(loam_scene_output, color_by),
    F(loam_scene_camera, eye), F(loam_scene_camera, target), F(loam_scene_camera, up), F(loam_scene_camera, fov_deg),
    F(loam_scene_camera, has_eye), F(loam_scene_camera, has_target),
    F(loam_scene, name), F(loam_scene, path), F(loam_scene, params), F(loam_scene, duration), F(loam_scene, threads),
    F(loam_scene, density), F(loam_scene, particle_count), F(loam_scene, xyz), F(loam_scene, vel),
    F(loam_scene, radius), F(loam_scene, body_count), F(loam_scene, bodies), F(loam_scene, grid_count),
    F(loam_scene, grids), F(loam_scene, output), F(loam_scene, camera), F(loam_scene, has_environment),
    F(loam_scene, environment), F(loam_scene, environment_reset_seed),
    F(loam_image, width), F(loam_image, height), F(loam_image, rgb), F(loam_image, depth),
    F(loam_camera, eye), F(loam_camera, target), F(loam_camera, up), F(loam_camera, fov_deg),
    F(loam_camera, ortho_height), F(loam_camera, width), F(loam_camera, height),
    F(loam_env_config, kind), F(loam_env_config, particles), F(loam_env_config, radius), F(loam_env_config, density),
    F(loam_env_config, friction), F(loam_env_config, dt), F(loam_env_config, sweeps),
    F(loam_env_config, steps_per_action), F(loam_env_config, episode_time), F(loam_env_config, gears),
    F(loam_env_config, max_gear_speed), F(loam_env_config, max_speed), F(loam_env_config, max_yaw_rate),
    F(loam_env_config, threads), F(loam_env_config, hash_table_size), F(loam_env_config, observe),
    F(loam_env_config, settle_steps), F(loam_env_config, sleep_speed), F(loam_env_config, seed),
    F(loam_env_config, context),
    F(loam_env_obs_spec, name), F(loam_env_obs_spec, rank), F(loam_env_obs_spec, shape), F(loam_env_obs_spec, low),
    F(loam_env_obs_spec, high),
    F(loam_env_step_info, reward), F(loam_env_step_info, terminated), F(loam_env_step_info, truncated),
    F(loam_env_step_info, sim_time), F(loam_env_step_info, realtime_factor), F(loam_env_step_info, physics_seconds),
    F(loam_env_step_info, sensor_seconds), F(loam_env_step_info, tool_force), F(loam_env_step_info, progress),
    F(loam_env_step_info, contacts),
};
#undef F

size_t loam_abi_sizeof(const char* type_name) {
    if (!type_name) return 0;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)
        if (strcmp(types[i].name, type_name) == 0) return types[i].size;
    return 0;
}

size_t loam_abi_offsetof(const char* type_name, const char* field_name) {
    if (!type_name || !field_name) return (size_t)-1;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i)
        if (strcmp(fields[i].type, type_name) == 0 && strcmp(fields[i].field, field_name) == 0)
            return fields[i].offset;
    return (size_t)-1;
}

const char* loam_abi_type_name(int index) {
    if (index < 0 || (size_t)index >= sizeof types / sizeof types[0]) return NULL;
    return types[index].name;
}
