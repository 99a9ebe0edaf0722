/* reduce.h — reference kernels: reduce (placeholder). */
#ifndef INGOT_KERNELS_REDUCE_H
#define INGOT_KERNELS_REDUCE_H

#include "ingot_rt.h"

#endif
