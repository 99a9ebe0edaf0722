/* indexing.c — reference kernels: index (placeholder). */
#include "indexing.h"

typedef int ingot_indexing_placeholder;
