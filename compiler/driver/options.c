/* options.c (placeholder) */
#include "driver.h"
