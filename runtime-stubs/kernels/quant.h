/* quant.h — reference kernels: quant (placeholder). */
#ifndef INGOT_KERNELS_QUANT_H
#define INGOT_KERNELS_QUANT_H

#include "ingot_rt.h"

#endif
