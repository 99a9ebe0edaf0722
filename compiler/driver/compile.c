/* compile.c (placeholder) */
#include "driver.h"
