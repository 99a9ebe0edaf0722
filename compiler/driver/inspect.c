/* inspect.c (placeholder) */
#include "driver.h"
