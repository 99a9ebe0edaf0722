/* conv.c — reference kernels: conv (placeholder). */
#include "conv.h"

typedef int ingot_conv_placeholder;
