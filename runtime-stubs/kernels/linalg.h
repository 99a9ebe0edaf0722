/* linalg.h — reference kernels: linalg (placeholder). */
#ifndef INGOT_KERNELS_LINALG_H
#define INGOT_KERNELS_LINALG_H

#include "ingot_rt.h"

#endif
