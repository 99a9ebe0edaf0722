/* check.c (placeholder) */
#include "driver.h"
