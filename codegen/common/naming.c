/* common/naming.c (placeholder) */
#include "codegen.h"
