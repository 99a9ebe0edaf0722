/* c/target.c (placeholder) */
#include "codegen.h"
