/* quant.c — reference kernels: quant (placeholder). */
#include "quant.h"

typedef int ingot_quant_placeholder;
