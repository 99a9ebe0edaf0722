/* indexing.h — reference kernels: index (placeholder). */
#ifndef INGOT_KERNELS_INDEXING_H
#define INGOT_KERNELS_INDEXING_H

#include "ingot_rt.h"

#endif
