/* shape.c — reference kernels: shape (placeholder). */
#include "shape.h"

typedef int ingot_shape_placeholder;
