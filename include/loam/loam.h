/* Everything public in loam: every header under include/loam/ (tests/symbols.sh checks it). */
#ifndef LOAM_LOAM_H
#define LOAM_LOAM_H

#include "loam/abi.h"
#include "loam/body.h"
#include "loam/chain.h"
#include "loam/core.h"
#include "loam/env.h"
#include "loam/export.h"
#include "loam/geom.h"
#include "loam/granular.h"
#include "loam/io.h"
#include "loam/mesh.h"
#include "loam/mesh_gen.h"
#include "loam/multibody.h"
#include "loam/output.h"
#include "loam/render.h"
#include "loam/scene.h"
#include "loam/sdf_grid.h"
#include "loam/softbody.h"
#include "loam/urdf.h"
#include "loam/viewer.h" /* functions in libloam_viewer, built where GLFW and OpenGL are found */

#endif
