/* pool.h — reference kernels: pool (placeholder). */
#ifndef INGOT_KERNELS_POOL_H
#define INGOT_KERNELS_POOL_H

#include "ingot_rt.h"

#endif
