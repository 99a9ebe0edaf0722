/* norm.h — reference kernels: norm (placeholder). */
#ifndef INGOT_KERNELS_NORM_H
#define INGOT_KERNELS_NORM_H

#include "ingot_rt.h"

#endif
