/* common/buildfiles.c (placeholder) */
#include "codegen.h"
