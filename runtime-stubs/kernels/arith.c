/* arith.c — reference kernels: math (placeholder). */
#include "arith.h"

typedef int ingot_arith_placeholder;
