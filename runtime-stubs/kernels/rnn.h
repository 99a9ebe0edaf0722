/* rnn.h — reference kernels: rnn (placeholder). */
#ifndef INGOT_KERNELS_RNN_H
#define INGOT_KERNELS_RNN_H

#include "ingot_rt.h"

#endif
