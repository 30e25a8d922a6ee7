/*
 * Dense renumbering of keys: the first key seen gets 0, the next new key 1, and so on.
 * The reuse engine (memory/reuse.h) packs 16 consecutive keys into one table entry, so
 * it is compact only when keys touched together are numerically close; an L2 slice sees
 * about one line in every nslices, so slice streams are renumbered first (lines first
 * touched together get neighbouring numbers). Open addressing, 16 bytes per key at
 * most 50 % load. The hierarchy computes dense slice keys directly for up to 256
 * slices (hierarchy.c l2_key) and uses this map only beyond.
 *
 * Prefix: gf_idmap_.
 */
#ifndef GF_MEMORY_IDMAP_H
#define GF_MEMORY_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct gf_idmap gf_idmap;

/* NULL on exhaustion. Free with gf_idmap_free (NULL-safe). */
gf_idmap *gf_idmap_create(void);
void gf_idmap_free(gf_idmap *m);
/* The number of key, assigning the next one when key is new; UINT64_MAX when the
 * table cannot grow. */
uint64_t gf_idmap_get(gf_idmap *m, uint64_t key);

#endif
