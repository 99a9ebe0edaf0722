/* image.h — reference kernels: image (placeholder). */
#ifndef INGOT_KERNELS_IMAGE_H
#define INGOT_KERNELS_IMAGE_H

#include "ingot_rt.h"

#endif
