/* c/emit.c (placeholder) */
#include "codegen.h"
