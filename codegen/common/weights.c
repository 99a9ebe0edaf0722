/* common/weights.c (placeholder) */
#include "codegen.h"
