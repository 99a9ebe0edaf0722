/* driver.h — the ingot command line (placeholder). */
#ifndef INGOT_DRIVER_H
#define INGOT_DRIVER_H
#include "frontend.h"
#include "codegen.h"
#endif
