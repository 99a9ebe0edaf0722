/* elementwise.h — reference kernels: elementwise (placeholder). */
#ifndef INGOT_KERNELS_ELEMENTWISE_H
#define INGOT_KERNELS_ELEMENTWISE_H

#include "ingot_rt.h"

#endif
