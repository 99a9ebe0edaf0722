/* loss.h — reference kernels: loss (placeholder). */
#ifndef INGOT_KERNELS_LOSS_H
#define INGOT_KERNELS_LOSS_H

#include "ingot_rt.h"

#endif
