/* rnn.c — reference kernels: rnn (placeholder). */
#include "rnn.h"

typedef int ingot_rnn_placeholder;
