/* image.c — reference kernels: image (placeholder). */
#include "image.h"

typedef int ingot_image_placeholder;
