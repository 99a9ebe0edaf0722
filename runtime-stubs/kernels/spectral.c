/* spectral.c — reference kernels: signal (placeholder). */
#include "spectral.h"

typedef int ingot_spectral_placeholder;
