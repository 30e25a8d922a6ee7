/*
 * Opcode interning moved to the ground floor, src/sass/opcode.h, below both trace/ and
 * gpu/. This header only forwards to it for the files that still include it by its old
 * name (spin.h, spin.c, timing/ksim_internal.h, owned by other work in progress); it
 * goes when they include sass/opcode.h.
 */
#ifndef GF_TRACE_OPCODE_H
#define GF_TRACE_OPCODE_H

#include "sass/opcode.h"

#endif
