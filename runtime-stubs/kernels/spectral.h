/* spectral.h — reference kernels: signal (placeholder). */
#ifndef INGOT_KERNELS_SPECTRAL_H
#define INGOT_KERNELS_SPECTRAL_H

#include "ingot_rt.h"

#endif
