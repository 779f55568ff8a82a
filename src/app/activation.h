/* The colour a soft robot's masses are drawn with, shared by `loam evolve --replay --frames` and
 * `loam view --robot`. */
#ifndef LOAM_APP_ACTIVATION_H
#define LOAM_APP_ACTIVATION_H

#include "loam/softbody.h"

/* Mean activation sin(omega t + phi) of the muscle springs at each mass, in [-1, 1] (0 where none);
 * n is scratch of mass_count ints. */
void app_muscle_activation(const loam_softbody_robot* r, const loam_softbody_materials* m, double t, float* out, int* n);

#endif
