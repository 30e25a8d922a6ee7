/*
 * The SASS vocabulary on the ground floor, below both the readers (trace/) and the GPU's
 * opcode tables (gpu/isa.c), which share its ids: includes nothing of the project.
 *
 * Opcode interning: each distinct opcode string ("LDG.E.128") gets a small integer,
 * stable for the life of the process. Thread-safe for concurrent lookups after a
 * kernel is read; interning happens in the (single-threaded) reader.
 *
 * Register naming: Rn -> n (RZ = 255); predicates Pn -> GF_REG_PRED_BASE + n;
 * uniform URn -> GF_REG_UNIFORM_BASE + n; UPn -> GF_REG_UPRED_BASE + n.
 */
#ifndef GF_SASS_OPCODE_H
#define GF_SASS_OPCODE_H

#include <stddef.h>
#include <stdint.h>

#define GF_REG_PRED_BASE 256
#define GF_REG_UNIFORM_BASE 272
#define GF_REG_UPRED_BASE 336
#define GF_REG_COUNT 352

#define GF_OPCODE_MAX 4096

/* Returns the id of s[0..len), interning it; UINT16_MAX when the table is full. */
uint16_t gf_opcode_intern(const char *s, size_t len);
/* The string of an id; NUL-terminated, owned by the table. */
const char *gf_opcode_name(uint16_t id);
size_t gf_opcode_count(void);
/* Id of s[0..len) if it is already interned, UINT16_MAX otherwise (never interns). */
uint16_t gf_opcode_find(const char *s, size_t len);

/* Register token -> register number per the naming above: "R12" -> 12, "RZ"/"R255" ->
 * 255, "P3" -> GF_REG_PRED_BASE + 3, "PT" -> GF_REG_PRED_BASE + 7, "UR4" ->
 * GF_REG_UNIFORM_BASE + 4, "URZ" -> GF_REG_UNIFORM_BASE + 63, "UP1" -> GF_REG_UPRED_BASE
 * + 1, "UPT" -> GF_REG_UPRED_BASE + 7. A leading '!' (negated predicate) is ignored.
 * Returns -1 for anything else (the caller reports the token). */
int gf_reg_parse(const char *s, size_t len);

#endif
