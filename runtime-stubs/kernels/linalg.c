/* linalg.c — reference kernels: linalg (placeholder). */
#include "linalg.h"

typedef int ingot_linalg_placeholder;
