/*
 * Reuse-distance engine (docs/model.md, Memory): for each access to a key (a line number), the
 * number of distinct keys accessed since the previous access to the same key, in
 * O(log M) time (M = distinct keys) and O(M) memory.
 *
 * How: every key remembers the timestamp of its last access (open-addressing hash over
 * tiles of 16 consecutive keys, linear probing); a bitmap over timestamps holds a 1 at
 * each key's last-access time and an indexed count tree (Fenwick-like, fan-out 8, over
 * 256-time blocks) counts them, so the distance is the number of ones after that time.
 * When the timestamp space fills, live timestamps are renumbered 0..M-1 (their rank)
 * and the tree is rebuilt, so the time axis stays a small multiple of M.
 *
 * With a window (gf_reuse_set_window) keys whose distance reaches it are forgotten, and
 * memory is O(window) instead of O(M).
 *
 * Keys may carry a fixed-size payload (zero-filled on first access) that the sector
 * tracker (memory/secreuse.h) uses for per-line sector state. Payloads are allocated
 * lazily, a tile's group at a time: an engine with payloads also gives every key a
 * 16-bit tag in its hash slot (zero on first access), so a user whose state usually
 * fits in 16 bits (a line seen once) asks for the payload only when it does not.
 *
 * Prefix: gf_reuse_.
 */
#ifndef GF_MEMORY_REUSE_H
#define GF_MEMORY_REUSE_H

#include <stddef.h>
#include <stdint.h>

#define GF_REUSE_COLD UINT64_MAX

typedef struct gf_reuse gf_reuse;

/* Returns a new engine (caller frees with gf_reuse_free), NULL when out of memory. */
gf_reuse *gf_reuse_create(void);
/* As gf_reuse_create, with payload_bytes (<= 256) of zeroed per-key storage, aligned
 * to 8 bytes when payload_bytes is a multiple of 8, else to 4. */
gf_reuse *gf_reuse_create_payload(size_t payload_bytes);
/* As gf_reuse_create_payload, grouping 2^tile_shift (2..64) consecutive keys per table
 * entry instead of 16: a smaller tile wastes less on sparse keys (the lines one SM's L1
 * sees: a thread block's share of an array is often 8 lines), a larger one probes the
 * table less on dense keys. NULL also for an invalid tile_shift. */
gf_reuse *gf_reuse_create_tiled(size_t payload_bytes, unsigned tile_shift);
#define GF_REUSE_MAX_TILE_SHIFT 6u
void gf_reuse_free(gf_reuse *r); /* NULL-safe */

/* Records an access to key; returns distinct keys since its previous access, or
 * GF_REUSE_COLD on the first. Returns GF_REUSE_COLD - 1 if memory ran out while
 * growing (the access is then not recorded; callers treat it as an error). */
uint64_t gf_reuse_access(gf_reuse *r, uint64_t key);
/* As gf_reuse_access; *payload (if the engine has one) receives the key's payload,
 * valid until the next call that may insert a key. If the payload cannot be allocated
 * it returns GF_REUSE_NOMEM with the access already recorded. */
uint64_t gf_reuse_access_p(gf_reuse *r, uint64_t key, void **payload);
/* As gf_reuse_access, without allocating a payload: *tag (may be NULL) receives the
 * key's 16-bit tag (NULL for an engine without payloads) and *payload its payload if
 * its tile has one yet, else NULL. The tag stays valid until the next call that may
 * insert a key; the payload also until the next gf_reuse_materialize. */
uint64_t gf_reuse_access_t(gf_reuse *r, uint64_t key, uint16_t **tag, void **payload);
/* Whether key is the previous access's key, and then its tag and payload as
 * gf_reuse_access_t gives them. An access of it now would have distance 0 and change
 * nothing (it is the latest key already; distances count keys, not times), so a caller
 * that accesses a key twice in a row (the hierarchy's fetch group) may take this
 * instead of recording the second access. */
int gf_reuse_last_t(const gf_reuse *r, uint64_t key, uint16_t **tag, void **payload);
/* The payload of the key of the last access, allocated (zeroed, with its tile's group)
 * if it had none; NULL when out of memory or without payloads. Moves other payloads;
 * tags stay where they are. */
void *gf_reuse_materialize(gf_reuse *r);
/* Distance the next access to key would see, without recording anything; *payload
 * (may be NULL) receives its payload or NULL when the key was never seen (or has none
 * yet: gf_reuse_access_t). */
uint64_t gf_reuse_peek(const gf_reuse *r, uint64_t key, void **payload);
/* As gf_reuse_peek; *tag (may be NULL) receives the key's tag, 0 if never seen. */
uint64_t gf_reuse_peek_t(const gf_reuse *r, uint64_t key, uint16_t *tag, void **payload);
/* Starts fetching the memory an access to key would probe first (its tile's hash
 * slot), changing nothing: for callers that know an access well ahead. */
void gf_reuse_prefetch(const gf_reuse *r, uint64_t key);
/* The second step, after gf_reuse_prefetch's line has arrived: starts fetching key's
 * payload and its last time's bitmap word (reads the slot; changes nothing). */
void gf_reuse_prefetch_state(const gf_reuse *r, uint64_t key);
/* Distinct keys seen so far. */
size_t gf_reuse_distinct(const gf_reuse *r);
/* Calls fn for every key: its current distance (as gf_reuse_peek), tag (NULL without
 * payloads) and payload (NULL if none yet). */
void gf_reuse_foreach(gf_reuse *r,
                      void (*fn)(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag,
                                 void *payload),
                      void *ctx);
/* Calls fn for every key: whether its current distance is at least d (far), its tag
 * (NULL without payloads) and payload (NULL if none yet). The distances are not worked
 * out: a key is far when its last access came before the d-th latest live time, found
 * once (gf_reuse_foreach counts over the time axis for every key, a cache miss or two
 * each on a large engine; the sector trackers' end-of-kernel flush needs only this). */
void gf_reuse_foreach_far(gf_reuse *r, uint64_t d,
                          void (*fn)(void *ctx, uint64_t key, int far, uint16_t *tag,
                                     void *payload),
                          void *ctx);
/* Calls fn for every key whose current distance is below d, with that distance (as
 * gf_reuse_foreach), its tag and payload: the keys are found as by gf_reuse_foreach_far
 * and their distances counted in one walk down the time axis (at most d keys). Returns
 * -1, calling nothing, when it cannot allocate its list of them. */
int gf_reuse_foreach_near(gf_reuse *r, uint64_t d,
                          void (*fn)(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag,
                                     void *payload),
                          void *ctx);
/* gf_reuse_foreach_near for the near keys keep accepts (NULL: all), called with the same
 * ctx before any fn; the cost is a walk of the keys plus the accepted ones' (no sort:
 * their times mark a bitmap read from the top down). */
int gf_reuse_foreach_near_if(gf_reuse *r, uint64_t d,
                             int (*keep)(void *ctx, const uint16_t *tag, const void *payload),
                             void (*fn)(void *ctx, uint64_t key, uint64_t dist, uint16_t *tag,
                                        void *payload),
                             void *ctx);
/* gf_reuse_foreach_near_if(r, d, keep, near_fn, ctx) and then gf_reuse_foreach_far(r, d,
 * far_fn, ctx) for the far keys keep accepts (far_fn gets far = 1; the keys it is not
 * called for are those a caller's far_fn would skip as near or not kept), in one walk of
 * the keys: keep sees every far key before any near_fn, and far_fn is called in the
 * order gf_reuse_foreach_far visits. Returns -1, calling nothing, when it cannot
 * allocate its lists. */
int gf_reuse_foreach_split_if(gf_reuse *r, uint64_t d,
                              int (*keep)(void *ctx, const uint16_t *tag, const void *payload),
                              void (*near_fn)(void *ctx, uint64_t key, uint64_t dist,
                                              uint16_t *tag, void *payload),
                              void (*far_fn)(void *ctx, uint64_t key, int far, uint16_t *tag,
                                             void *payload),
                              void *ctx);
/* gf_reuse_foreach_split_if over the listed keys only (the others as if keep refused
 * them): the cost is the list's, not the engine's. Keys not held are skipped; a key
 * listed twice is passed to near_fn once, to far_fn as often as it is listed (far_fn
 * must make a repeat a no-op), and the far keys come in the list's order. */
int gf_reuse_split_keys_if(gf_reuse *r, uint64_t d, const uint64_t *keys, size_t nkeys,
                           int (*keep)(void *ctx, const uint16_t *tag, const void *payload),
                           void (*near_fn)(void *ctx, uint64_t key, uint64_t dist,
                                           uint16_t *tag, void *payload),
                           void (*far_fn)(void *ctx, uint64_t key, int far, uint16_t *tag,
                                          void *payload),
                           void *ctx);
/* A window (issue #22): with w > 0, the engine forgets the keys whose distance has
 * reached w, so that it holds at most 2w keys (plus their tiles' slots and a time axis
 * of O(w)) whatever the number of distinct keys: when a new key makes it 2w, every key
 * at distance >= w is forgotten (about w of them). fn (may be NULL) is called for each
 * first, with its tag and payload (NULL as for gf_reuse_foreach). A forgotten key's next
 * access is cold (GF_REUSE_COLD, zero tag and payload), where its distance would have been
 * at least w; every distance below w is exact, and the other keys' distances are those
 * of an engine without a window. w = 0 (the default): keys are never forgotten. Set it
 * before the first access. */
typedef void (*gf_reuse_forget_fn)(void *ctx, uint64_t key, uint16_t *tag, void *payload);
void gf_reuse_set_window(gf_reuse *r, uint64_t w, gf_reuse_forget_fn fn, void *ctx);
/* Keys forgotten so far (gf_reuse_set_window). */
uint64_t gf_reuse_forgotten(const gf_reuse *r);
/* Bytes held by the engine (hash + tree), for benchmarks. */
size_t gf_reuse_bytes(const gf_reuse *r);

#define GF_REUSE_NOMEM (GF_REUSE_COLD - 1)

#endif
