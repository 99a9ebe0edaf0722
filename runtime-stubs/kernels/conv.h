/* conv.h — reference kernels: conv (placeholder). */
#ifndef INGOT_KERNELS_CONV_H
#define INGOT_KERNELS_CONV_H

#include "ingot_rt.h"

#endif
