/* reduce.c — reference kernels: reduce (placeholder). */
#include "reduce.h"

typedef int ingot_reduce_placeholder;
