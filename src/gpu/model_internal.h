/*
 * What the GPU model's files share (model_keys.c holds the key table, model.c reads the
 * keys, model_check.c checks them):
 * the key table's row type and the table, the record of where each key was set, and the
 * checks. Nothing outside src/gpu/model*.c includes this.
 *
 * Prefix: model_ (functions and tables); types key_type, key_def, origin, blame.
 */
#ifndef GF_GPU_MODEL_INTERNAL_H
#define GF_GPU_MODEL_INTERNAL_H

#include <stddef.h>

#include "gpu/gpu.h"

typedef enum key_type {
    K_STR,    /* char array */
    K_UINT,   /* unsigned, plain number */
    K_SIZE,   /* uint64_t bytes, size units */
    K_SIZE32, /* unsigned bytes, size units */
    K_FREQ,   /* double Hz */
    K_BW,     /* double bytes/s */
    K_XFER,   /* double transfers/s per pin */
    K_DOUBLE, /* double, plain number */
    K_ENUM,   /* int-sized enum, names below */
    K_BOOL,   /* int 0/1 */
    K_SIZELIST /* the carveout list */
} key_type;

typedef struct key_def {
    const char *name;
    key_type type;
    size_t offset;
    size_t size;       /* K_STR: capacity */
    double min, max;   /* numeric range, inclusive */
    const char *const *enum_names; /* K_ENUM: NULL-terminated, index = value */
    int optional;      /* may be absent from the file (then 0) */
    const char *help;
} key_def;

/* The key table (model_keys.c): every key of a model file, in show-gpu's order,
 * MODEL_NKEYS of them. The count is a constant here, for the arrays kept per key while
 * loading (model.c); a table of another size does not compile (model_keys.c asserts it),
 * so adding a key means raising it. */
#define MODEL_NKEYS 100
extern const key_def *const model_keys;
extern const size_t model_nkeys;
/* The key of the table named name and its index (*idx), or NULL. */
const key_def *model_find_key(const char *name, size_t *idx);
/* The index of a key of the table by name; 0 for a name it does not hold. */
size_t model_key_index(const char *name);

typedef struct origin {
    char file[512]; /* model file or "--set k=v" */
    long line;
    unsigned seq;   /* order of assignment: errors blame the latest of the keys involved */
} origin;

/* Who gave a model its values, for messages: the loader's record of where each key was
 * set (where[i], set[i] per key of the table), or one name (a profile file) for a model
 * that comes whole from elsewhere (where NULL). */
typedef struct blame {
    const origin *where; /* NULL: every key comes from origin */
    const int *set;
    const char *origin;
} blame;

/* model_check.c: values the model file may leave out, as the rest of the code expects
 * them; then the one rule set of a resolved model (every key in its range, then the rules
 * that tie keys together), failing with the key that broke it. */
void model_apply_defaults(gf_gpu *g);
gf_status model_check(const gf_gpu *g, const blame *b, gf_error *err);

#endif
