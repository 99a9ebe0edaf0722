/* common/emitter.c (placeholder) */
#include "codegen.h"
