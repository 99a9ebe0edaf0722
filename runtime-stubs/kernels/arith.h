/* arith.h — reference kernels: math (placeholder). */
#ifndef INGOT_KERNELS_ARITH_H
#define INGOT_KERNELS_ARITH_H

#include "ingot_rt.h"

#endif
