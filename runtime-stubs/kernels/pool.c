/* pool.c — reference kernels: pool (placeholder). */
#include "pool.h"

typedef int ingot_pool_placeholder;
