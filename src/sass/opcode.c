/*
 * Process-wide opcode intern table (see opcode.h) and register-token parsing.
 *
 * Open addressing with linear probing in a table twice the id space, so probes stay short
 * (load <= 0.5). Lookups are lock-free: a slot is published with a release store only after
 * its name is written, so a reader that sees the slot sees the name. Inserts take a mutex
 * because two readers could otherwise intern the same new opcode twice. Real traces carry
 * a few hundred distinct opcode strings (the refdata lud kernel: 60), far below
 * GF_OPCODE_MAX.
 */
#include "sass/opcode.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define NSLOTS (2 * GF_OPCODE_MAX)

static _Atomic uint32_t slots[NSLOTS];          /* 0 = empty, else id + 1 */
static const char *names[GF_OPCODE_MAX];
static uint32_t hashes[GF_OPCODE_MAX];
static size_t lens[GF_OPCODE_MAX];
static _Atomic uint32_t count;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t hash(const char *s, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a: short keys, no need for anything stronger */
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

static uint16_t probe(const char *s, size_t len, uint32_t h, size_t *empty_slot)
{
    size_t i = h & (NSLOTS - 1);
    for (;;) {
        uint32_t v = atomic_load_explicit(&slots[i], memory_order_acquire);
        if (v == 0) {
            *empty_slot = i;
            return UINT16_MAX;
        }
        uint32_t id = v - 1;
        if (hashes[id] == h && lens[id] == len && memcmp(names[id], s, len) == 0)
            return (uint16_t)id;
        i = (i + 1) & (NSLOTS - 1);
    }
}

uint16_t gf_opcode_find(const char *s, size_t len)
{
    size_t empty = 0; /* probe sets it; gcc 12 -O3 cannot tell */
    return probe(s, len, hash(s, len), &empty);
}

uint16_t gf_opcode_intern(const char *s, size_t len)
{
    uint32_t h = hash(s, len);
    size_t empty = 0;
    uint16_t id = probe(s, len, h, &empty);
    if (id != UINT16_MAX)
        return id;
    pthread_mutex_lock(&lock);
    id = probe(s, len, h, &empty); /* another thread may have inserted it meanwhile */
    if (id == UINT16_MAX) {
        uint32_t n = atomic_load_explicit(&count, memory_order_relaxed);
        char *copy = n < GF_OPCODE_MAX ? malloc(len + 1) : NULL;
        if (copy) {
            memcpy(copy, s, len);
            copy[len] = '\0';
            names[n] = copy;
            hashes[n] = h;
            lens[n] = len;
            atomic_store_explicit(&count, n + 1, memory_order_release);
            atomic_store_explicit(&slots[empty], n + 1, memory_order_release);
            id = (uint16_t)n;
        }
    }
    pthread_mutex_unlock(&lock);
    return id;
}

const char *gf_opcode_name(uint16_t id)
{
    if (id >= atomic_load_explicit(&count, memory_order_acquire))
        return "?";
    return names[id];
}

size_t gf_opcode_count(void)
{
    return atomic_load_explicit(&count, memory_order_acquire);
}

/* Decimal 0..max from s[0..len); -1 when not all digits or out of range. */
static int small_number(const char *s, size_t len, int max)
{
    if (len == 0 || len > 3)
        return -1;
    int v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v <= max ? v : -1;
}

int gf_reg_parse(const char *s, size_t len)
{
    if (len && s[0] == '!') {
        s++;
        len--;
    }
    if (len < 2)
        return -1;
    /* RZ is R255 and URZ is UR63 (the zero registers); PT/UPT are predicate 7, the
     * always-true predicate (NVIDIA CUDA binary utilities, instruction set reference). */
    if (s[0] == 'R') {
        if (len == 2 && s[1] == 'Z')
            return 255;
        return small_number(s + 1, len - 1, 255);
    }
    if (s[0] == 'P') {
        if (len == 2 && s[1] == 'T')
            return GF_REG_PRED_BASE + 7;
        int n = small_number(s + 1, len - 1, 7);
        return n < 0 ? -1 : GF_REG_PRED_BASE + n;
    }
    if (s[0] == 'U' && len >= 3 && s[1] == 'R') {
        if (len == 3 && s[2] == 'Z')
            return GF_REG_UNIFORM_BASE + 63;
        int n = small_number(s + 2, len - 2, 63);
        return n < 0 ? -1 : GF_REG_UNIFORM_BASE + n;
    }
    if (s[0] == 'U' && len >= 3 && s[1] == 'P') {
        if (len == 3 && s[2] == 'T')
            return GF_REG_UPRED_BASE + 7;
        int n = small_number(s + 2, len - 2, 7);
        return n < 0 ? -1 : GF_REG_UPRED_BASE + n;
    }
    return -1;
}
