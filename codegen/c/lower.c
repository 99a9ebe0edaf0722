/* c/lower.c (placeholder) */
#include "codegen.h"
