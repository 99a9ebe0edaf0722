/* shape.h — reference kernels: shape (placeholder). */
#ifndef INGOT_KERNELS_SHAPE_H
#define INGOT_KERNELS_SHAPE_H

#include "ingot_rt.h"

#endif
