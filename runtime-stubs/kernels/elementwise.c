/* elementwise.c — reference kernels: elementwise (placeholder). */
#include "elementwise.h"

typedef int ingot_elementwise_placeholder;
