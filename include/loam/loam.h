/* Everything public in loam. */
#ifndef LOAM_LOAM_H
#define LOAM_LOAM_H

#include "loam/body.h"
#include "loam/core.h"
#include "loam/geom.h"
#include "loam/granular.h"
#include "loam/io.h"
#include "loam/multibody.h"
#include "loam/output.h"
#include "loam/render.h"
#include "loam/scene.h"
#include "loam/softbody.h"

#endif
