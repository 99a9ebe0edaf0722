/* codegen.h — code generation (placeholder header, filled in with the C target). */
#ifndef INGOT_CODEGEN_H
#define INGOT_CODEGEN_H

#include "passes.h"
#include "opimpl.h"

#include "embedded.h"

#endif
