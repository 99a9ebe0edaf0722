/* c/kernels.c (placeholder) */
#include "codegen.h"
