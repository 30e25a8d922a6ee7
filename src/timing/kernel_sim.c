/*
 * Per-SM discrete-event issue model for one kernel (see kernel_sim.h for the rules).
 *
 * Layout: a block read from the trace becomes, per warp, a stream of 4-byte ids into the
 * kernel's table of distinct decoded instructions ("shapes", with their register slots
 * inline) plus a pool of what is the warp's own (coalesced sectors), so a whole wave
 * fits in memory even for large kernels and the shared part stays in cache. Each SM
 * steps only at cycles where something can happen: when no warp can issue, it jumps to
 * the earliest cycle one can. Time advances in epochs no longer than the L2 latency:
 * within an epoch every SM runs on its own (on any thread), touching only its L1; at the
 * epoch's end the L2 requests of all SMs are sent in global (time, SM, order) sequence,
 * the waiting instructions completed, and finished blocks replaced — so the results do
 * not depend on the number of threads.
 */
#include "timing/kernel_sim.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory/coalesce.h"
#include "timing/spill.h"
#include "trace/opcode.h"
#include "util/alloc.h"
#include "util/bigmem.h"
#include "util/bits.h"
#include "util/error.h"

/* sm.subcores is at most 16 (gpu/model.c key table). */
#define GF_MAX_SUBCORES 16u
/* Words per 64 warps of a sub-core's row in ssm.cand: candidates, LSU users, per unit,
 * parked. */
#define CAND_PARKED (2u + GF_UNIT_COUNT)
#define CAND_GROUP (3u + GF_UNIT_COUNT)
/* A quick scan parks a warp whose operands are ready more than PARK_FAR cycles on: a
 * load's value, once its L2 outcome is known, which every scan visited again until it
 * came (on the vector add 72 % of the visits to warps waiting for an operand were 64
 * cycles or more early). Parked warps return to the candidates, all together, when
 * the earliest of them is PARK_NEAR cycles away, and those still far are parked again
 * at their next visit. */
#define PARK_FAR 48u
#define PARK_NEAR 8u

enum inst_kind { K_ALU = 0, K_MEM, K_SHARED, K_BAR, K_EXIT };

#define SPARE_MAX 16u /* finished blocks kept for their buffers */
/* Lines whose L1 tracker slots a newly placed block has fetched ahead (sblock.pf_line),
 * and at most how many an SM keeps for its next run (ssm.pf). */
#define BLOCK_PF_LINES 8u
#define SM_PF_LINES 32u
/* Instructions a spilled warp holds at a time: 512 x 4 B ids plus their pool data
 * (records, inline shapes), a few KB to ~20 KB, so even 2,560 resident warps (80 SMs x
 * 32) take at most ~40 MB. */
#define SPILL_WINDOW 512u

/* A decoded instruction without what differs between warps running the same code: its
 * "shape". Warps hold a stream of 32-bit shape ids (swarp.ids) into the kernel's shape
 * table (sim.shape_chunk), where equal shapes are stored once (shape_intern): warps of
 * one kernel mostly run the same instructions with the same register slots (slots are
 * numbered by first use), so the table stays small and hot in cache while each warp's
 * own stream is 4 bytes an instruction. What does differ per warp (K_MEM's sectors)
 * stays in the warp's pool, read in instruction order through swarp.pcur. */
typedef struct shape {
    uint8_t unit, kind, ndst, nsrc;
    uint16_t latency, interval;
    uint32_t aux;      /* K_SHARED: wavefronts (bits 0-11), bank conflicts (12-23), store
                          flag (24), no active lane (25: occupies the pipe, counts as no
                          request); 0 otherwise */
    uint16_t regs[];   /* ndst + nsrc register slots (dst then src); RZ and registers past
                          GF_REG_COUNT are left out */
} shape;

/* (swarp.nshape keeps a flag in a shape pointer's bit 0) */
_Static_assert(_Alignof(shape) >= 2, "shapes are at least 2-byte aligned");

/* Bytes of a shape with nr register slots, in the table (4-byte words) and inline in a
 * warp's pool (8-byte aligned, as the memory records after it). */
#define SHAPE_WORDS(nr) ((sizeof(shape) + 2u * (nr) + 3u) / 4u)
#define SHAPE_POOL_BYTES(nr) ((sizeof(shape) + 2u * (nr) + 7u) & ~(size_t)7)
/* The table: chunks of SHAPE_CHUNK_WORDS words, allocated only while blocks are read
 * (serially), never moved or freed before the kernel ends, so SM threads read it
 * without locks. An id is chunk << SHAPE_CHUNK_BITS | word offset. Bounded to
 * SHAPE_CHUNKS chunks (8 MiB, plus a hash index of at most 4 MiB): past that (a trace
 * whose instructions hardly repeat) a new shape is stored inline in the warp's pool
 * instead (id SHAPE_INLINE), where it spills with the warp like its memory records. */
/* (Overridable at build time to test the inline fallback: -DGF_SHAPE_CHUNKS=1
 * -DGF_SHAPE_CHUNK_BITS=4 holds 3 shapes.) */
#ifndef GF_SHAPE_CHUNK_BITS
#define GF_SHAPE_CHUNK_BITS 14u
#endif
#ifndef GF_SHAPE_CHUNKS
#define GF_SHAPE_CHUNKS 128u
#endif
#define SHAPE_CHUNK_BITS GF_SHAPE_CHUNK_BITS
#define SHAPE_CHUNK_WORDS (1u << SHAPE_CHUNK_BITS)
#define SHAPE_CHUNKS GF_SHAPE_CHUNKS
#define SHAPE_INLINE UINT32_MAX
/* Interning pays only when shapes repeat: after this many instructions, if fewer than
 * half found their shape in the table, the kernel's further instructions are stored
 * inline (the table's lookups and growth then cost time and memory for nothing). */
#define SHAPE_GIVE_UP 65536u

/* Memory record in the warp's pool, followed by nsectors uint64 sectors, uint32 byte
 * masks and, for an atomic with passes (bypass bit 1), uint8 passes (memrec_bytes in all,
 * 8-byte aligned). */
typedef struct memrec {
    uint8_t space, dir;
    uint8_t bypass; /* bit 0: bypasses L1; bit 1: per-sector atomic passes follow;
                     * bits 2-4: requests - 1 (a local access split by word, local_sectors) */
    uint8_t wavefronts; /* L1 data-array wavefronts (l1.data_banks), 0 = not modelled */
    uint16_t nsectors, nlines;
} memrec;

static size_t memrec_bytes(size_t nsectors, int passes)
{
    return (sizeof(memrec) + nsectors * (sizeof(uint64_t) + sizeof(uint32_t) + (passes ? 1 : 0)) +
            7) & ~(size_t)7;
}

enum warp_state { W_RUN = 0, W_BAR, W_DONE };

struct sblock;

/* What the scheduler's scan needs of a resident warp, kept densely per sub-core beside
 * its warp list (ssm.ent) so a scan reads 4 warps per cache line instead of chasing a
 * pointer per warp: the cached readiness of its next instruction and whether it runs. */
typedef struct scan_ent {
    uint64_t opready;
    uint8_t unit, lsu, opmem, run;
} scan_ent;

/* Fields in two groups: what issuing and scheduling touch (the first two cache lines:
 * every SM's warps are revisited each epoch, after 79 other SMs went through the
 * cache), then what only decoding, spilling and retiring use. */
typedef struct swarp {
    /* 64-byte aligned (warps_alloc), so the hot fields are exactly two cache lines */
    _Alignas(64) uint32_t *ids; /* shape ids of its instructions (see shape): `own`, or
                                   the kernel's shared stream (sim.rp_ids, `shared`) */
    uint32_t *const *shapes; /* the kernel's shape table (sim.shape_chunk) */
    uint8_t *pool;         /* in instruction order: the inline shapes (SHAPE_INLINE) and
                              memory records (memrec + sectors + byte masks) */
    /* Registers are renumbered per warp, densely in order of first use (decode_inst),
     * so this holds only the few the warp uses and stays in cache. */
    uint64_t *ready;       /* per register slot: the cycle its value is readable, with
                              READY_FROM_MEM set when it comes from a memory load */
    uint32_t pc, n;
    /* Instruction pc (< ntot) is ids[pc - win0] while pc < win0 + n; its pool data (an
     * inline shape, then a memory record, as it needs) starts at pool[pcur]. A warp
     * held whole has n = ntot and win0 = pool0 = 0; a spilled one (spill_flush_warp)
     * holds one window of SPILL_WINDOW instructions and reads the next back at its end;
     * pool0 is where its pool starts in the warp's whole pool. */
    uint32_t ntot, win0, pool0, pcur;
    uint64_t next_issue;
    /* Cached for the next instruction (only this warp writes its registers, so this
     * changes only when the warp issues, is released from a barrier or gets an L2
     * outcome — the events step's wake bound accounts for, see wake_lower): the cycle
     * its operands are ready, whether the last one comes from memory, its unit, LSU use. */
    uint64_t opready;
    uint8_t opmem, unit, lsu;
    uint8_t state;         /* enum warp_state */
    unsigned subcore;
    unsigned bit;
    uint32_t nslots;       /* register slots used (ready[]'s length) */
    scan_ent *ent;         /* its entry in the SM's scan list; NULL until listed */
    uint64_t *cand;        /* ... the group of its sub-core's candidate words (ssm.cand)
                              holding its bit, bit & 63 there */
    unsigned *nwait;       /* ... and its sub-core's count of waiting warps */
    struct sblock *block;
    uintptr_t nshape;      /* the shape of instruction pc, found by warp_prepare (issue
                              takes it from here: one load instead of four dependent
                              ones), with bit 0 set when it is inline in the pool
                              (SHAPE_INLINE; shapes are 4-byte aligned) */
    /* cold: decoding, spilling */
    uint64_t uid;
    size_t poollen, poolcap;
    uint32_t *own;         /* its own array of ids, of cap ids (kept with a spare block) */
    uint32_t cap;
    int shared;            /* ids is sim.rp_ids (so win0 is 0), see warp_put_id */
    size_t slotcap;
    struct spill_win *wins; /* spilled: nwin + 1 windows (the last: the totals) */
    size_t winscap;
    int spilled;
} swarp;

/* swarp.ready: a register's value comes from a memory load (cycles stay below 2^63; a
 * load still waiting for its L2 outcome is UINT64_MAX, which has it too). */
#define READY_FROM_MEM (UINT64_C(1) << 63)
#define READY_CYCLE (~READY_FROM_MEM)

/* Window j of a spilled warp: where its shape ids, then pool data, lie in the spill
 * file, and where the latter starts in the warp's whole pool. */
typedef struct spill_win {
    uint64_t off;
    uint32_t pool;
} spill_win;

typedef struct sblock {
    swarp *warps;
    unsigned nwarps, live, arrived, slot;
    unsigned listed;               /* warps the trace lists */
    uint64_t warp_insts, thread_insts;
    struct sblock *next;           /* free list */
    uint64_t start, done; /* placed at; its last warp's last issue (or store drain) */
    uint64_t drain;       /* launch.store_drain: when its last store is acknowledged */
    unsigned pending;     /* memory instructions waiting for their L2 outcome */
    size_t held;          /* bytes of decoded instructions it holds (sim.held) */
    gf_spill *spill;      /* where its spilled warps are, else NULL */
    int ioerr;            /* errno of a failed read of a spilled window, else 0 */
    /* The first line of the first global accesses to distinct L1 tracker tiles
     * (GF_HIER_L1_TILE_SHIFT), at most BLOCK_PF_LINES: what its SM's L1 tracker will first probe,
     * fetched ahead by prefetch_sm (see ssm.pf). */
    uint64_t pf_line[BLOCK_PF_LINES];
    unsigned npf;
} sblock;

typedef struct ssm {
    sblock **slots;
    unsigned resident;
    uint64_t now;
    uint64_t *unit_free;   /* subcores x GF_UNIT_COUNT */
    uint64_t lsu_free;
    int *last;             /* per sub-core: position in sub[] of the last warp issued */
    uint8_t last_unit[GF_MAX_SUBCORES]; /* per sub-core: the unit it issued to last */
    unsigned scan_from[GF_MAX_SUBCORES]; /* per sub-core: where its scans start (set_last) */
    uint64_t park_min[GF_MAX_SUBCORES]; /* per sub-core: no parked warp's operands are
                                           ready before this cycle (UINT64_MAX: none) */
    swarp **sub;           /* per sub-core rows of resident warps at fixed positions, in age
                              order (list_warp): nsub rows of bps * warps_per_block entries,
                              the first row_cap used; NULL or finished warps elsewhere */
    scan_ent *ent;         /* beside sub[]: ent[i] mirrors *sub[i] (see scan_ent) */
    uint64_t *cand;        /* per sub-core, cand_words groups of CAND_GROUP words over its
                              row: in group k, word 0 the running warps with a known
                              operand-ready cycle (the candidates), word 1 those of them
                              whose next instruction needs the LSU, word 2 + u those
                              that need unit u (scan_subcore skips those while busy),
                              word CAND_PARKED the candidates parked instead (not in
                              word 0: see PARK_FAR) */
    unsigned cand_words;
    unsigned *nwait;       /* per sub-core: running warps waiting for a memory outcome */
    uint64_t *wake;        /* per sub-core: no warp can issue before this cycle (step) */
    uint64_t first_issue, last_done;
    int started;
    uint64_t mem_stall, miss_sectors, load_miss_sectors, lsu_cycles, partial_stores;
    uint64_t stall_to;     /* mem_stall counts through this cycle, maybe past now's epoch
                              (step); taken back if an outcome wakes the SM earlier */
    uint64_t unit_busy[GF_UNIT_COUNT], mem_insts; /* summed into the result at the end */
    uint64_t issued;       /* warp instructions issued so far */
    /* This epoch's memory instructions that went past L1, in issue order, and their
     * line requests to L2 (resolved at the epoch's end, see run_epochs). */
    struct pend *pend;
    size_t npend, cappend;
    gf_l2_req *reqs;
    uint32_t *reqslice;    /* beside reqs: each request's L2 slice (found once, here) */
    size_t nreqs, capreqs, capslice;
    uint64_t *psect;       /* the pending instructions' sectors (pend.sect0) */
    size_t npsect, cappsect;
    uint32_t seq;
    int nomem;
    /* Lines of the blocks placed since the SM last ran: the first probes of its L1
     * tracker for them are fetched by prefetch_sm one SM ahead (a new tile's hash slot
     * otherwise misses every cache: ~5 % of a vector add's prediction, perf). */
    uint64_t pf[SM_PF_LINES];
    unsigned npf;
    /* Per sub-core, where its pieces of the arrays above start (set once, so that the
     * scans, several per issued instruction, find them without arithmetic). */
    struct sc_view {
        swarp **list;             /* its row in sub[] */
        scan_ent *ents;           /* ... in ent[] */
        uint64_t *bits;           /* its candidate words in cand[] */
        uint64_t *unit_free;      /* its units in unit_free[] */
    } view[GF_MAX_SUBCORES];
} ssm;

/* A memory instruction waiting for its L2 outcome. */
typedef struct pend {
    uint64_t t;          /* issue cycle */
    uint32_t seq, sm;    /* issue order within the SM; the SM */
    swarp *w;
    uint32_t stage;      /* L1/LSU stage cycles */
    uint32_t req0, nreq; /* its requests in the SM's reqs[] */
    uint32_t past_l1;    /* sectors past L1 */
    /* Copied at issue, not looked up at the epoch's end: the warp may have moved on
     * past it by then (and a spilled warp's window with it). */
    uint32_t sect0;      /* its sectors in the SM's psect[] (for DRAM row locality) */
    uint16_t nsect;
    uint8_t ndst;
    uint8_t load;        /* not a store: holds an L1 MSHR until its data returns */
    uint16_t dst[GF_MAX_DST]; /* its destination register slots */
} pend;

/* Wavefronts of a recent shared-memory access pattern (shmem_wavefronts). Shared
 * addresses are offsets in the block's own window, so every block reads the same
 * patterns: the 655 K shared loads of SGEMM 256 (gen matmul) have 48 distinct ones.
 * Counting banks costs ~850 instructions a load there, a lookup ~150 (callgrind). */
#define SHMEM_MEMO 256u
typedef struct shmem_memo {
    uint64_t addr[GF_WARP_SIZE]; /* the active lanes' addresses, 0 for the others */
    uint32_t mask, width;        /* mask 0: empty (such accesses are never looked up) */
    unsigned wavefronts, conflicts;
} shmem_memo;

/* Wavefronts of a recent shared access by its address pattern (gf_inst.addr_pattern),
 * mask, width and base address & 255: with a power-of-two bank count of at most 64,
 * moving every lane by a multiple of 256 B moves each word by a multiple of the banks,
 * which changes neither banks nor which words are distinct (coalesce.c works on word
 * differences and word % banks), so the count is the same. The lookup replaces hashing
 * and comparing 32 addresses in shmem_memo (~140 instructions a shared access on SGEMM,
 * callgrind). */
/* What both pattern memos below key on; pattern 0: an empty entry. */
typedef struct pat_key {
    uint64_t pattern;
    uint32_t mask, width, phase;
} pat_key;

static uint64_t pat_key_hash(const pat_key *k)
{
    return (k->pattern ^ (uint64_t)k->mask << 20 ^ (uint64_t)k->width << 52 ^ k->phase) *
           UINT64_C(0x9e3779b97f4a7c15);
}

static int pat_key_eq(const pat_key *a, const pat_key *b)
{
    return a->pattern == b->pattern && a->mask == b->mask && a->width == b->width &&
           a->phase == b->phase;
}

#define SHPAT_MEMO 256u
typedef struct shpat_memo {
    pat_key key;                    /* phase: the base & 255 */
    unsigned wavefronts, conflicts;
} shpat_memo;

/* Sectors of a recent global access, by its lanes' address pattern (gf_inst.addr_pattern),
 * mask, width and the base address's offset in its 128 B line (the first active lane's
 * address & 127). Coalescing (memory/coalesce.c) sees addresses only through their
 * sectors (addr >> 5), lines (sector >> 2) and offsets within a sector, so moving every
 * lane by a multiple of 128 B moves each sector by the same multiple of 4 and keeps the
 * byte masks, order and line count — exactly, as long as no address wraps past 2^64,
 * which holds as they all lie below 2^63 (gf_inst.addr_pattern's promise). A warp's access then
 * costs a lookup instead of ~370 instructions of coalescing (callgrind, vecadd). Accesses
 * of more than COAL_MEMO_SECTORS sectors are coalesced each time. */
#define COAL_MEMO 64u
#define COAL_MEMO_SECTORS 16u
typedef struct coal_memo {
    pat_key key;                    /* phase: the base & 127 */
    uint16_t nsectors, nlines, wavefronts;
    int32_t rel[COAL_MEMO_SECTORS]; /* sector minus the first sector of the base's line */
    uint32_t bytes[COAL_MEMO_SECTORS];
} coal_memo;

/* Decoding replay (replay_inst). Warps of a kernel mostly run the same instructions:
 * lines whose text up to the addresses repeats, and whose registers a warp numbers
 * (reg_slot) the same way as long as all its instructions so far were the same. So the
 * first warp decoded records, per instruction, that text (as the parsed gf_inst's head),
 * its decoded shape and the registers it numbered first; a later warp whose every
 * instruction so far matched takes the next entry's shape when its head matches too,
 * skipping the ISA lookup, shape building, register numbering and interning (callgrind:
 * ~200 instructions of ~1,400 per warp instruction on SGEMM). Where it first differs,
 * its numbering is written out from the entries (replay_sync) and the full decode goes
 * on; a warp that runs past the list's end extends it. At most REPLAY_MAX entries. */
#define RP_HEAD offsetof(gf_inst, addr)
#define REPLAY_MAX 65536u
/* Runs of replayed lines (replay_run). An entry without a per-warp memory record (all but
 * global accesses, whose addresses differ between warps) also keeps its line's text, and
 * consecutive such entries' texts lie end to end in one buffer (sim.rp_text),
 * so a later warp following the list compares a whole run of them with the trace's next
 * bytes at once and takes the shapes of the lines that match without parsing them:
 * vecadd's 14 instructions a warp are runs of 8, 2 and 1 around its memory
 * instructions; SGEMM's inner loop, runs of 4 shared loads of B and 4 FFMAs between
 * loads of A, whose addresses differ between warps. Runs are cut at RUN_MAX lines and
 * end before an entry whose line differed RUN_MISSES times (so that the rest usually
 * matches whole, at one memcmp); a kernel where hardly any try matches (per-warp text
 * such as pre-v3 prefixes) tries no more. */
#define RUN_MAX 64u
#define RUN_MISSES 8u
typedef struct rp_line {
    uint32_t toff;        /* its text in sim.rp_text ... */
    uint16_t tlen;        /* ... of tlen bytes, newline included; 0: not in a run */
    uint16_t nslots;      /* replay_ent.nslots */
    uint32_t shape;       /* replay_ent.shape */
    uint16_t threads;     /* active lanes */
    uint16_t misses;      /* runs tried through here that differed in this line */
} rp_line;
typedef struct replay_ent {
    unsigned char head[RP_HEAD];  /* the gf_inst up to its addresses */
    const gf_isa_entry *e;        /* its ISA entry */
    uint32_t shape;               /* its shape id; SHAPE_INLINE: decode it in full */
    uint16_t nslots;              /* the warp's register slots after it */
    uint8_t kind, mspace;         /* enum inst_kind; K_MEM: its record's space */
    uint8_t nnew;                 /* registers it numbered first ... */
    uint16_t newreg[GF_MAX_DST + GF_MAX_SRC]; /* ... in slot order */
} replay_ent;

typedef struct sim {
    const gf_gpu *gpu;
    gf_isa *isa;
    gf_hier *hier;
    const gf_ksim_options *opt;
    gf_kreader *r;       /* (its lines' constant strides left unexpanded: inst_addrs) */
    uint64_t lane_addr[GF_WARP_SIZE]; /* inst_addrs' expansion */
    const gf_kernel_info *ki;
    unsigned nsub, bps, warps_per_block;
    unsigned per_slot, row_cap; /* positions per block slot in a sub-core's row, and in all */
    uint64_t quick;      /* all ones, or 0 to make quick scans full ones (opt->no_quick) */
    int lrr;             /* gpu->warp_scheduler is LRR (else GTO); read through s->gpu,
                          * it was reloaded for every sub-core of every step */
    ssm *sms;
    int trace_done;
    uint64_t epoch;      /* cycles per epoch (<= l2.latency) */
    unsigned lat_l2, lat_dram; /* unloaded L2 and L2 + DRAM latencies at the SM clock
                                  (gf_gpu_l2_latency ...), worked out once a kernel */
    uint64_t next_uid;
    gf_ksim_result *res;
    double miss_latency_sum, load_latency_sum;
    uint64_t miss_accesses, load_accesses;
    uint8_t warned[GF_OPCODE_MAX];
    /* Decoded instructions of resident blocks: bytes held, and where blocks go that
     * would take it past opt->hold_bytes (opened on first need). */
    size_t held;
    gf_spill *spill;
    /* Finished blocks kept for reuse of their buffers (at most SPARE_MAX). */
    sblock *spare;
    unsigned nspare;

    uint64_t *open_row; /* per (channel, bank): row + 1 of the open page, 0 = none */

    /* Register renumbering of the warp being read: regslot[r] is valid when
     * regstamp[r] == stamp (a new stamp per warp instead of clearing the table). */
    uint16_t regslot[GF_REG_COUNT];
    uint32_t regstamp[GF_REG_COUNT];
    uint32_t stamp;
    /* Opcodes already looked up in this kernel (the ISA table's own cache takes a lock
     * per call); entries point into the ISA table, which outlives the kernel. */
    const gf_isa_entry *isa_seen[GF_OPCODE_MAX];
    shmem_memo *shmem_memo; /* SHMEM_MEMO entries, allocated at the first shared access */
    coal_memo *coal_memo;   /* COAL_MEMO entries, allocated at the first patterned access */
    shpat_memo *shpat_memo; /* SHPAT_MEMO entries, likewise */
    /* The kernel's shape table (see shape): its chunks, the words used in the last one,
     * and a hash index of the ids (open addressing, SHAPE_INLINE = empty). */
    uint32_t *shape_chunk[SHAPE_CHUNKS];
    unsigned shape_nchunks;
    uint32_t shape_used;
    uint32_t *shape_hash;
    size_t shape_hcap, shape_count;
    /* Decoding's guess of the next shape, which skips the hash lookup when right:
     * shape_next[id] is the shape that followed shape id last time (SHAPE_INLINE: none
     * yet; indexed like the table's words, so at most as large), shape_first what began
     * the last warp, shape_prev the warp's previous shape (SHAPE_INLINE at its start). */
    uint32_t *shape_next;
    size_t shape_nextcap;
    uint32_t shape_first, shape_prev;
    /* Instructions interned, how many found their shape already there, and whether
     * interning is off for the rest of the kernel (too few repeats, SHAPE_GIVE_UP). */
    uint64_t shape_lookups, shape_hits;
    int shape_off;
    /* The replay list (see replay_ent), and where the warp being decoded stands: its
     * instruction index, the entries whose register numbering is in regslot, whether
     * it has matched every entry so far, whether it appends to the list. */
    replay_ent *rp;
    uint32_t rp_len, rp_cap;
    uint32_t rp_pos, rp_done;
    int rp_follow, rp_record;
    int rp_runs; /* replay_run is worth trying in this kernel */
    /* Beside rp: each entry's line (rp_line) and the texts; replay_run's tries and
     * successes in this kernel. */
    rp_line *rpl;
    size_t rpl_cap;
    char *rp_text;
    size_t rp_text_len, rp_text_cap;
    uint64_t run_tries, run_hits;
    /* The shared id stream: the first ids_len of REPLAY_MAX ids, never changed once
     * written (see warp_put_id); NULL: none (only costs memory and speed). */
    uint32_t *rp_ids;
    uint32_t ids_len;
} sim;

/* ---------------------------------------------------------------- block reading */

/* Room for extra more bytes in w's pool. A wave's pools reach tens of MB (SGEMM 512's
 * memory records) in fresh pages, which realloc's copies and the appends touched a page
 * fault at a time; so a pool grows into prefaulted pages and, past its first 64 KiB
 * (below, pools mostly reuse heap pages already present), is faulted in 64 KiB at a
 * time as it fills (bigmem.h: ~4x cheaper). */
static gf_status warp_reserve_pool(swarp *w, size_t extra, gf_error *err, const sim *s)
{
    const size_t first = (size_t)64 << 10;
    size_t need = w->poollen + extra;
    void *p = w->pool;
    if (gf_grow_prefaulted(&p, &w->poolcap, w->poollen, need) != 0)
        return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), gf_kreader_line(s->r),
                            "out of memory holding a thread block");
    w->pool = p;
    gf_prefault_reach(w->pool, w->poolcap, w->poollen > first ? w->poollen : first, need);
    return GF_OK;
}

/* Room in w's own array (w not shared) for `more` more instructions' shape ids. */
static gf_status warp_reserve_slow(swarp *w, const sim *s, uint32_t more, gf_error *err)
{
    void *p = w->own;
    size_t cap = w->cap;
    if (gf_grow(&p, &cap, (size_t)w->n + more, sizeof(uint32_t)) != 0)
        return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), gf_kreader_line(s->r),
                            "out of memory holding a thread block");
    w->ids = w->own = p;
    w->cap = (uint32_t)cap;
    return GF_OK;
}

/* Room for one more id (a shared warp needs none: warp_put_id makes it if it must). */
static inline gf_status warp_reserve(swarp *w, const sim *s, gf_error *err)
{
    if (w->shared || w->n < w->cap)
        return GF_OK;
    return warp_reserve_slow(w, s, 1, err);
}

/* Shared id streams. Warps of a kernel mostly run the same instructions, so their id
 * streams are mostly one stream: a warp starts out reading its ids from the kernel's
 * shared stream (sim.rp_ids) and stores none of its own while each id it appends is the
 * one already there (or extends the stream at its end). At its first different id it
 * copies its ids so far to its own array and goes on there (warp_unshare), as it does
 * before it spills. So a kernel whose warps agree holds one id stream instead of one a
 * warp (less to hold and spill), and every warp's issue reads the same hot ids. */
static gf_status warp_unshare(sim *s, swarp *w, gf_error *err)
{
    /* room for the run replay_run may be appending */
    gf_status st = w->n + RUN_MAX + 1 > w->cap ? warp_reserve_slow(w, s, RUN_MAX + 1, err)
                                               : GF_OK;
    if (st != GF_OK)
        return st;
    memcpy(w->own, s->rp_ids, (size_t)w->n * sizeof(uint32_t));
    w->ids = w->own;
    w->shared = 0;
    return GF_OK;
}

/* Appends id to w's ids (w has room when not shared: warp_reserve). */
static inline gf_status warp_put_id(sim *s, swarp *w, uint32_t id, gf_error *err)
{
    if (w->shared) {
        /* its n ids are the stream's first n, so n <= ids_len */
        uint32_t i = w->n;
        if (i < s->ids_len ? s->rp_ids[i] == id : i < REPLAY_MAX) {
            if (i == s->ids_len)
                s->rp_ids[s->ids_len++] = id;
            w->n++;
            return GF_OK;
        }
        gf_status st = warp_unshare(s, w, err);
        if (st != GF_OK)
            return st;
    }
    w->ids[w->n++] = id;
    return GF_OK;
}

/* The shape with id `id` (not SHAPE_INLINE) in a shape table. */
static inline const shape *shape_at(uint32_t *const *chunks, uint32_t id)
{
    return (const shape *)(chunks[id >> SHAPE_CHUNK_BITS] + (id & (SHAPE_CHUNK_WORDS - 1)));
}

/* Hash of a shape given as its header (regs not read) and its register slots: 8-byte
 * words multiplied in (decode_inst calls it for every instruction of the trace). */
static uint64_t shape_hash(const shape *hd, const uint16_t *regs)
{
    uint64_t w[1 + (GF_MAX_DST + GF_MAX_SRC + 3) / 4] = {0};
    unsigned nr = (unsigned)hd->ndst + hd->nsrc;
    uint32_t aux;
    memcpy(&w[0], hd, 8);
    memcpy(&aux, (const uint8_t *)hd + 8, 4);
    memcpy(&w[1], regs, 2u * nr);
    uint64_t h = (w[0] ^ (uint64_t)aux << 29) * UINT64_C(0x9e3779b97f4a7c15);
    for (unsigned k = 1; k <= (nr + 3) / 4; k++)
        h = (h ^ h >> 32 ^ w[k]) * UINT64_C(0x9e3779b97f4a7c15);
    return h ^ h >> 29;
}

/* Whether stored shape o is the shape (hd, regs). */
static int shape_eq(const shape *o, const shape *hd, const uint16_t *regs)
{
    uint64_t a, b;
    uint32_t x, y;
    memcpy(&a, o, 8);
    memcpy(&b, hd, 8);
    memcpy(&x, (const uint8_t *)o + 8, 4);
    memcpy(&y, (const uint8_t *)hd + 8, 4);
    if (a != b || x != y)
        return 0;
    for (unsigned i = 0; i < (unsigned)hd->ndst + hd->nsrc; i++)
        if (o->regs[i] != regs[i])
            return 0;
    return 1;
}

/* Writes shape (hd, regs) to dst (bytes of SHAPE_WORDS / SHAPE_POOL_BYTES). */
static void shape_put(void *dst, const shape *hd, const uint16_t *regs)
{
    memcpy(dst, hd, sizeof(shape));
    memcpy((uint8_t *)dst + sizeof(shape), regs, 2u * ((size_t)hd->ndst + hd->nsrc));
}

/* Puts id in the first free slot from h of an open-addressing index of cap slots. */
static void shape_index_put(uint32_t *index, size_t cap, uint64_t h, uint32_t id)
{
    size_t i = h & (cap - 1);
    while (index[i] != SHAPE_INLINE)
        i = (i + 1) & (cap - 1);
    index[i] = id;
}

/* The id of the shape with header hd (its padding zero, regs not read) and register
 * slots regs in s's table, adding it if new; SHAPE_INLINE when the table is full (or
 * out of memory): the caller stores the shape in the warp's pool instead. Runs only
 * while blocks are read (serially). */
static uint32_t shape_intern_slow(sim *s, const shape *hd, const uint16_t *regs)
{
    size_t nr = (size_t)hd->ndst + hd->nsrc, words = SHAPE_WORDS(nr);
    uint64_t h = shape_hash(hd, regs);
    if (s->shape_hash) {
        for (size_t i = h & (s->shape_hcap - 1);; i = (i + 1) & (s->shape_hcap - 1)) {
            uint32_t id = s->shape_hash[i];
            if (id == SHAPE_INLINE)
                break;
            const shape *o = shape_at(s->shape_chunk, id);
            if (shape_eq(o, hd, regs))
                return id;
        }
    }
    /* new: room in the index (at most half full) and in the last chunk */
    if ((s->shape_count + 1) * 2 > s->shape_hcap) {
        size_t ncap = s->shape_hcap ? s->shape_hcap * 2 : 1024;
        uint32_t *nh = malloc(ncap * sizeof *nh);
        if (!nh)
            return SHAPE_INLINE;
        memset(nh, 0xff, ncap * sizeof *nh);
        for (size_t k = 0; k < s->shape_hcap; k++) {
            uint32_t id = s->shape_hash[k];
            if (id == SHAPE_INLINE)
                continue;
            const shape *o = shape_at(s->shape_chunk, id);
            shape_index_put(nh, ncap, shape_hash(o, o->regs), id);
        }
        free(s->shape_hash);
        s->shape_hash = nh;
        s->shape_hcap = ncap;
    }
    if (!s->shape_nchunks || s->shape_used + words > SHAPE_CHUNK_WORDS) {
        if (s->shape_nchunks == SHAPE_CHUNKS)
            return SHAPE_INLINE;
        uint32_t *c = malloc(SHAPE_CHUNK_WORDS * sizeof *c);
        if (!c)
            return SHAPE_INLINE;
        s->shape_chunk[s->shape_nchunks++] = c;
        s->shape_used = 0;
    }
    uint32_t id = (s->shape_nchunks - 1) << SHAPE_CHUNK_BITS | s->shape_used;
    shape_put(s->shape_chunk[s->shape_nchunks - 1] + s->shape_used, hd, regs);
    s->shape_used += (uint32_t)words;
    shape_index_put(s->shape_hash, s->shape_hcap, h, id);
    s->shape_count++;
    return id;
}

/* shape_intern_slow behind decoding's guess (see sim.shape_next). */
static uint32_t shape_intern(sim *s, const shape *hd, const uint16_t *regs)
{
    uint32_t prev = s->shape_prev;
    uint32_t guess = prev == SHAPE_INLINE ? s->shape_first
                     : prev < s->shape_nextcap ? s->shape_next[prev]
                                               : SHAPE_INLINE;
    uint32_t id;
    if (s->shape_off)
        return SHAPE_INLINE;
    s->shape_lookups++;
    if (guess != SHAPE_INLINE && shape_eq(shape_at(s->shape_chunk, guess), hd, regs)) {
        s->shape_hits++;
        return s->shape_prev = guess;
    }
    size_t before = s->shape_count;
    id = shape_intern_slow(s, hd, regs);
    if (s->shape_count == before && id != SHAPE_INLINE)
        s->shape_hits++;
    if (s->shape_lookups >= SHAPE_GIVE_UP && s->shape_hits * 2 < s->shape_lookups)
        s->shape_off = 1;
    if (id == SHAPE_INLINE) {
        s->shape_prev = SHAPE_INLINE; /* (the next one then guesses the warp's first) */
        return id;
    }
    if (prev == SHAPE_INLINE) {
        s->shape_first = id;
    } else {
        if (prev >= s->shape_nextcap) {
            void *p = s->shape_next;
            size_t old = s->shape_nextcap;
            if (gf_grow(&p, &s->shape_nextcap, (size_t)prev + 1, sizeof(uint32_t)) == 0) {
                s->shape_next = p;
                memset(s->shape_next + old, 0xff, (s->shape_nextcap - old) * sizeof(uint32_t));
            }
        }
        if (prev < s->shape_nextcap)
            s->shape_next[prev] = id;
    }
    return s->shape_prev = id;
}

static int in_window(uint64_t a, int has_base, uint64_t base)
{
    /* Windows are 16 MiB wide: far more than any block's shared or any thread's local
     * memory, far less than the distance to the next allocation (refdata headers). */
    return has_base && a >= base && a - base < (1ull << 24);
}

/* Generic LD/ST: shared or local when the address falls in the window the trace header
 * gives, or when it is a small address (local addresses look like 0xFFFC44 —
 * pptgpu-ampere-shared-local-memory.txt); global otherwise (MODEL.md §1). */
static gf_mem_space resolve_generic(const sim *s, uint64_t a)
{
    if (in_window(a, s->ki->has_shmem_base, s->ki->shmem_base))
        return GF_SPACE_SHARED;
    if (in_window(a, s->ki->has_local_base, s->ki->local_base) || a < (1ull << 24))
        return GF_SPACE_LOCAL;
    return GF_SPACE_GLOBAL;
}

/* Every lane's address of in. The reader leaves a list of constant stride to its
 * pattern (gf_kreader_set_lazy_strides): what decoding mostly needs, the coalescing
 * memo's key, is the pattern and the first address, so it is expanded only here, for a
 * memo miss, a shared or a local access (saved ~90 instructions a line on the vector
 * add). Valid until the next call. */
static const uint64_t *inst_addrs(sim *s, const gf_inst *in)
{
    if (!(in->addr_pattern & 1u))
        return in->addr;
    gf_inst_fill_stride(in, s->lane_addr);
    return s->lane_addr;
}

static unsigned first_lane(uint32_t mask)
{
    return (unsigned)__builtin_ctz(mask);
}

/* Warp w's slot for register r (not RZ, < GF_REG_COUNT), numbering new ones densely. */
static uint16_t reg_slot(sim *s, swarp *w, uint16_t r)
{
    if (s->regstamp[r] != s->stamp) {
        s->regstamp[r] = s->stamp;
        s->regslot[r] = (uint16_t)w->nslots++;
    }
    return s->regslot[r];
}

/* gf_shmem_wavefronts through s->shmem_memo (mask != 0). Same results: a pattern is
 * reused only when its mask, width and every active lane's address match. */
static unsigned shmem_wavefronts_addr(sim *s, const gf_inst *in, unsigned width,
                                      unsigned *conflicts)
{
    const uint64_t *lanes = inst_addrs(s, in);
    if (!s->shmem_memo && !(s->shmem_memo = calloc(SHMEM_MEMO, sizeof *s->shmem_memo)))
        return gf_shmem_wavefronts(lanes, in->mask, width, s->gpu->shmem_banks, conflicts);
    uint64_t key[GF_WARP_SIZE];
    const uint64_t *a = lanes;
    if (in->mask != 0xffffffffu) { /* other lanes' addresses are unspecified (trace.h) */
        for (unsigned l = 0; l < GF_WARP_SIZE; l++)
            key[l] = in->mask >> l & 1u ? lanes[l] : 0;
        a = key;
    }
    /* A few lanes pick the slot (both half-warps, both ends); the compare is exact. */
    uint64_t h = in->mask ^ (uint64_t)width << 32;
    static const unsigned probe[] = {0, 1, 15, 16, 17, 31};
    for (unsigned k = 0; k < sizeof probe / sizeof probe[0]; k++)
        h = (h ^ a[probe[k]]) * UINT64_C(0x9e3779b97f4a7c15);
    shmem_memo *m = &s->shmem_memo[(h ^ h >> 29) & (SHMEM_MEMO - 1)];
    if (m->mask == in->mask && m->width == width &&
        memcmp(m->addr, a, sizeof m->addr) == 0) {
        *conflicts = m->conflicts;
        return m->wavefronts;
    }
    unsigned wf = gf_shmem_wavefronts(a, in->mask, width, s->gpu->shmem_banks, conflicts);
    memcpy(m->addr, a, sizeof m->addr);
    m->mask = in->mask;
    m->width = width;
    m->wavefronts = wf;
    m->conflicts = *conflicts;
    return wf;
}

/* gf_shmem_wavefronts of a shared access (mask != 0): through s->shpat_memo when the
 * reader gave its address pattern, else through s->shmem_memo. */
static unsigned shmem_wavefronts(sim *s, const gf_inst *in, unsigned width, unsigned *conflicts)
{
    unsigned banks = s->gpu->shmem_banks;
    shpat_memo *pm = NULL;
    pat_key key = {0};
    if (in->addr_pattern && banks && banks <= 64 && !(banks & (banks - 1)) &&
        (s->shpat_memo || (s->shpat_memo = calloc(SHPAT_MEMO, sizeof *s->shpat_memo)))) {
        key = (pat_key){in->addr_pattern, in->mask, width,
                        (uint32_t)(in->addr[__builtin_ctz(in->mask)] & 255u)};
        pm = &s->shpat_memo[pat_key_hash(&key) >> 56]; /* SHPAT_MEMO = 2^8 */
        if (pat_key_eq(&pm->key, &key)) {
            *conflicts = pm->conflicts;
            return pm->wavefronts;
        }
    }
    unsigned wf = shmem_wavefronts_addr(s, in, width, conflicts);
    if (pm) {
        pm->key = key;
        pm->wavefronts = wf;
        pm->conflicts = *conflicts;
    }
    return wf;
}

/* The address-dependent part of a shared-memory access: its shape's aux (wavefronts in
 * bits 0-11, conflicts 12-23, store flag 24; counted when issued, as the hierarchy belongs
 * to the issuing thread). */
static uint32_t shared_aux(sim *s, const gf_isa_entry *e, const gf_inst *in, unsigned width)
{
    if (!in->mask) /* predicated off: one wavefront, no request (see decode_inst) */
        return 1u | 1u << 25;
    unsigned conflicts = 0;
    unsigned wf = e->dir == GF_DIR_ATOMIC
                      ? gf_shmem_atomic_wavefronts(inst_addrs(s, in), in->mask, width,
                                                   s->gpu->shmem_banks, &conflicts)
                      : shmem_wavefronts(s, in, width, &conflicts);
    if (wf > 0xfff)
        wf = 0xfff;
    if (conflicts >= wf)
        conflicts = wf ? wf - 1 : 0;
    return (wf ? wf : 1) | conflicts << 12 | (e->dir == GF_DIR_STORE ? 1u << 24 : 0u);
}

/* Wavefronts of a global/local access through the L1 data array: its banks serve one
 * 4-byte word each per wavefront, as for shared memory (gf_shmem_wavefronts), so lanes
 * that hit one bank at different addresses serialise. refdata h100-gfbench ncu.csv,
 * l1tex__data_pipe_lsu_wavefronts per global access: wmma_gemm 8.0 (its LDG.E.128 rows
 * are 2048 B apart: one bank group), sgemm_tiled 2, stride16 16.2, stride32 32.4,
 * transpose_naive's scattered stores 32, stream_copy's LDG.128 4; the rule gives 8, 2,
 * 16, 32, 32, 4. 0 when l1.data_banks is 0 (then sectors alone set the stage). Depends
 * only on the lanes' offsets and the base's place in its 128 B line, like the sectors. */
static unsigned l1_wavefronts(const sim *s, const uint64_t *addr, uint32_t mask, unsigned width)
{
    unsigned banks = s->gpu->l1_data_banks;
    if (!banks || !mask)
        return 0;
    unsigned wf = gf_shmem_wavefronts(addr, mask, width, banks, NULL);
    return wf > 255 ? 255 : wf;
}

/* gf_coalesce of a non-local access through s->coal_memo (see coal_memo), when the
 * reader gave its address pattern; returns 0 (nothing done) when it cannot be used. */
static int coalesce_memo(sim *s, const gf_inst *in, unsigned width, gf_coalesced *c)
{
    if (!in->addr_pattern || !in->mask) /* (with a pattern, addresses are < 2^63) */
        return 0;
    if (!s->coal_memo && !(s->coal_memo = calloc(COAL_MEMO, sizeof *s->coal_memo)))
        return 0;
    uint64_t base = in->addr[__builtin_ctz(in->mask)], first = base >> 7 << 2;
    pat_key key = {in->addr_pattern, in->mask, width, (uint32_t)(base & 127u)};
    coal_memo *m = &s->coal_memo[pat_key_hash(&key) >> 58]; /* COAL_MEMO = 2^6 */
    if (pat_key_eq(&m->key, &key)) {
        c->nsectors = m->nsectors;
        c->nlines = m->nlines;
        c->requests = 1;
        c->wavefronts = m->wavefronts;
        for (unsigned i = 0; i < m->nsectors; i++) {
            c->sector[i] = first + (uint64_t)(int64_t)m->rel[i];
            c->bytes[i] = m->bytes[i];
        }
        return 1;
    }
    const uint64_t *addr = inst_addrs(s, in);
    gf_coalesce(addr, in->mask, width, s->gpu->coalescer, c);
    c->wavefronts = l1_wavefronts(s, addr, in->mask, width);
    if (c->nsectors > COAL_MEMO_SECTORS)
        return 1;
    for (unsigned i = 0; i < c->nsectors; i++) {
        int64_t d = (int64_t)(c->sector[i] - first);
        if (d < INT32_MIN || d > INT32_MAX)
            return 1; /* (checked before the entry is touched) */
    }
    for (unsigned i = 0; i < c->nsectors; i++) {
        m->rel[i] = (int32_t)(int64_t)(c->sector[i] - first);
        m->bytes[i] = c->bytes[i];
    }
    m->key = key;
    m->nsectors = (uint16_t)c->nsectors;
    m->nlines = (uint16_t)c->nlines;
    m->wavefronts = (uint16_t)c->wavefronts;
    return 1;
}

/* Local memory is per thread, but the hardware interleaves the threads of a warp word
 * by word (4 B), so the same stack offset in 32 threads is one contiguous 128 B run
 * (gpgpu-sim's translate_local_memaddr; NVBit reports the per-thread offset, the same
 * on every lane). An access wider than a word is split into one request per word, each
 * such a run: refdata h100-gfbench local_array, 131,072 warp STL.128 give Nsight's
 * l1tex__t_requests_pipe_lsu_mem_local_op_st.sum = 524,288 (4 each) and 16 sectors
 * each; gpgpu-sim splits the same way ("a >4B access is split into 4B chunks"). The
 * word layout is also what makes a later 4 B LDL of buf[k] find the line an STL.128
 * wrote. Offsets are taken from the header's local window when it is given. The
 * hierarchy then makes the result unique per warp (warp_uid). Fermi-mode coalescing
 * (a what-if) keeps one request of width-wide slots, whose expanded lines would not fit
 * the merge. */
static void local_word_addrs(sim *s, const gf_inst *in, unsigned width, unsigned word,
                             uint64_t out[GF_WARP_SIZE])
{
    const uint64_t *a = inst_addrs(s, in);
    uint64_t base = s->ki->has_local_base && a[__builtin_ctz(in->mask)] >= s->ki->local_base
                        ? s->ki->local_base
                        : 0;
    uint64_t w = width ? width : 4;
    for (unsigned l = 0; l < GF_WARP_SIZE; l++) {
        uint64_t off = a[l] - base + (uint64_t)word * w;
        out[l] = (off / w) * (GF_WARP_SIZE * w) + l * w + off % w;
    }
}

static void local_sectors(sim *s, const gf_inst *in, unsigned width, gf_coalesced *c)
{
    uint64_t addr[GF_WARP_SIZE];
    unsigned words = 1, w = width;
    if (width > 4 && s->gpu->coalescer == GF_COALESCE_SECTOR) {
        words = width / 4;
        w = 4;
    }
    for (unsigned k = 0; k < words; k++) {
        gf_coalesced part, *dst = k ? &part : c;
        local_word_addrs(s, in, w, k, addr);
        gf_coalesce(addr, in->mask, w, s->gpu->coalescer, dst);
        dst->wavefronts = l1_wavefronts(s, addr, in->mask, w);
        if (k)
            gf_coalesce_merge(c, &part);
    }
}

/* The address-dependent part of a global, local or texture access: its sectors. */
static void mem_sectors(sim *s, const gf_inst *in, gf_mem_space space, unsigned width,
                        gf_coalesced *c)
{
    if (space == GF_SPACE_LOCAL) {
        local_sectors(s, in, width, c);
        return;
    }
    if (coalesce_memo(s, in, width, c))
        return;
    const uint64_t *addr = inst_addrs(s, in);
    gf_coalesce(addr, in->mask, width, s->gpu->coalescer, c);
    c->wavefronts = l1_wavefronts(s, addr, in->mask, width);
}

/* Appends shape id `id` of instruction in to w's stream (warp_reserve made room) and
 * counts it. */
static inline gf_status warp_append_id(sim *s, sblock *b, swarp *w, const gf_inst *in,
                                       uint32_t id, gf_error *err)
{
    b->warp_insts++;
    b->thread_insts += gf_popcount32(in->mask);
    return warp_put_id(s, w, id, err);
}

/* Notes a global access's line for the prefetch of b's first L1 tracker probes (at most
 * one a tracker tile). */
static inline void block_note_line(sblock *b, uint64_t line)
{
    for (unsigned k = 0; k < b->npf; k++)
        if (b->pf_line[k] >> GF_HIER_L1_TILE_SHIFT == line >> GF_HIER_L1_TILE_SHIFT)
            return;
    if (b->npf < BLOCK_PF_LINES)
        b->pf_line[b->npf++] = line;
}

/* The passes an atomic's sectors need at the L2 atomic unit: per sector, the most active
 * lanes on one of its addresses, since one pass updates each word once. refdata
 * h100-gfbench hist_global_atomics: 3,000,320 RED sectors at L1 and L2 for 131,072 warp
 * REDs into 256 bins (22.89 a warp); distinct sectors are 20.55 a warp, this rule 22.48
 * (research note in docs/validation-h100.md). Returns 0 when every sector needs one. */
static int atomic_passes(sim *s, const gf_inst *in, const gf_coalesced *c, uint8_t *passes)
{
    const uint64_t *a = inst_addrs(s, in);
    int any = 0;
    memset(passes, 1, c->nsectors);
    for (unsigned l = 0; l < GF_WARP_SIZE; l++) {
        if (!(in->mask >> l & 1u))
            continue;
        unsigned same = 0, first = 1;
        for (unsigned k = 0; k < GF_WARP_SIZE; k++)
            if (in->mask >> k & 1u && a[k] == a[l]) {
                same++;
                first &= k >= l; /* counted at its lowest lane only */
            }
        if (!first || same < 2)
            continue;
        uint64_t sec = a[l] >> 5;
        for (unsigned i = 0; i < c->nsectors; i++)
            if (c->sector[i] == sec) {
                if (same > passes[i])
                    passes[i] = (uint8_t)same;
                any = 1;
                break;
            }
    }
    return any;
}

/* Appends to w an instruction of shape (si, regs), interned as id: the shape inline in
 * the pool when id is SHAPE_INLINE, then for K_MEM its memory record (c, mspace), then
 * its id. w->ids has room (warp_reserve). */
static gf_status warp_emit(sim *s, sblock *b, swarp *w, const gf_inst *in, const gf_isa_entry *e,
                           uint32_t id, const shape *si, const uint16_t *regs,
                           const gf_coalesced *c, unsigned mspace, gf_error *err)
{
    size_t nr = (size_t)si->ndst + si->nsrc;
    size_t need = id == SHAPE_INLINE ? SHAPE_POOL_BYTES(nr) : 0, shape_need = need;
    uint8_t passes[GF_COALESCE_MAX_LISTED];
    int has_passes = si->kind == K_MEM && e->dir == GF_DIR_ATOMIC &&
                     (mspace == GF_SPACE_GLOBAL || mspace == GF_SPACE_ATOMIC) &&
                     s->gpu->l2_atomic_sectors_per_cycle > 0 &&
                     atomic_passes(s, in, c, passes);
    if (si->kind == K_MEM)
        need += memrec_bytes(c->nsectors, has_passes);
    if (need) {
        gf_status st = warp_reserve_pool(w, need, err, s);
        if (st != GF_OK)
            return st;
        if ((uint64_t)w->pool0 + w->poollen > UINT32_MAX - need)
            return gf_error_set(err, GF_ERR_UNSUPPORTED, gf_kreader_path(s->r),
                                gf_kreader_line(s->r),
                                "warp has more than 4 GiB of memory accesses");
        if (shape_need) { /* zero its padding (at most the last 6 bytes), then write it */
            memset(w->pool + w->poollen + shape_need - 8, 0, 8);
            shape_put(w->pool + w->poollen, si, regs);
        }
        if (si->kind == K_MEM) {
            memrec *m = (memrec *)(w->pool + w->poollen + shape_need);
            m->space = (uint8_t)mspace;
            m->dir = (uint8_t)e->dir;
            unsigned nreq = c->requests > 1 ? (c->requests > 8 ? 8 : c->requests) : 1;
            m->bypass = (uint8_t)((e->bypass_l1 ? 1 : 0) | (has_passes ? 2 : 0) | (nreq - 1) << 2);
            m->wavefronts = (uint8_t)c->wavefronts;
            m->nsectors = (uint16_t)c->nsectors;
            m->nlines = (uint16_t)c->nlines;
            uint8_t *q = (uint8_t *)(m + 1);
            memcpy(q, c->sector, c->nsectors * sizeof(uint64_t));
            memcpy(q + c->nsectors * sizeof(uint64_t), c->bytes, c->nsectors * sizeof(uint32_t));
            if (has_passes)
                memcpy(q + c->nsectors * (sizeof(uint64_t) + sizeof(uint32_t)), passes,
                       c->nsectors);
            if (mspace == GF_SPACE_GLOBAL && c->nsectors)
                block_note_line(b, c->sector[0] >> 2);
        }
        w->poollen += need;
    }
    return warp_append_id(s, b, w, in, id, err);
}

/* ---------------------------------------------------------------- decoding replay */

/* Writes the register numbering of replay entries [s->rp_done, k) to regslot, as the
 * full decode of those instructions would have left it. */
static void replay_sync(sim *s, uint32_t k)
{
    for (uint32_t j = s->rp_done; j < k; j++) {
        const replay_ent *re = &s->rp[j];
        unsigned base = j ? s->rp[j - 1].nslots : 0;
        for (unsigned i = 0; i < re->nnew; i++) {
            s->regstamp[re->newreg[i]] = s->stamp;
            s->regslot[re->newreg[i]] = (uint16_t)(base + i);
        }
    }
    if (k > s->rp_done)
        s->rp_done = k;
}

/* Appends the instruction the full decode just did (w numbered its registers from
 * `before` slots on) to the replay list. */
static void replay_record(sim *s, const swarp *w, const gf_inst *in, const gf_isa_entry *e,
                          uint32_t id, unsigned kind, unsigned mspace, unsigned before)
{
    if (s->rp_len >= REPLAY_MAX) {
        s->rp_record = 0;
        return;
    }
    {
        void *p = s->rpl;
        if (gf_grow(&p, &s->rpl_cap, (size_t)s->rp_len + 1, sizeof *s->rpl) != 0) {
            s->rp_record = 0; /* only costs speed */
            return;
        }
        s->rpl = p;
    }
    if (s->rp_len == s->rp_cap) {
        void *p = s->rp;
        size_t cap = s->rp_cap;
        if (gf_grow(&p, &cap, (size_t)s->rp_len + 1, sizeof *s->rp) != 0) {
            s->rp_record = 0; /* only costs speed */
            return;
        }
        s->rp = p;
        s->rp_cap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    }
    rp_line *rl = &s->rpl[s->rp_len];
    replay_ent *re = &s->rp[s->rp_len++];
    memcpy(re->head, in, RP_HEAD);
    re->e = e;
    /* a generic access's kind and space depend on its addresses: decoded in full */
    re->shape = e->space == GF_SPACE_GENERIC && (kind == K_MEM || kind == K_SHARED) ? SHAPE_INLINE
                                                                                     : id;
    re->kind = (uint8_t)kind;
    re->mspace = (uint8_t)mspace;
    re->nslots = (uint16_t)w->nslots;
    re->nnew = (uint8_t)(w->nslots - before);
    const uint16_t *lists[2] = {in->dst, in->src};
    unsigned counts[2] = {in->ndst < GF_MAX_DST ? in->ndst : GF_MAX_DST,
                          in->nsrc < GF_MAX_SRC ? in->nsrc : GF_MAX_SRC};
    for (unsigned l = 0; l < 2; l++)
        for (unsigned i = 0; i < counts[l]; i++) {
            uint16_t r = lists[l][i];
            if (r != GF_REG_ZERO && r < GF_REG_COUNT && s->regslot[r] >= before)
                re->newreg[s->regslot[r] - before] = r;
        }
    s->rp_done = s->rp_len;
    /* its line, for runs: one without a memory record whose shape the list holds */
    const char *text;
    size_t len;
    gf_kreader_last_text(s->r, &text, &len);
    rl->tlen = 0;
    rl->nslots = re->nslots;
    /* (a shared access's text holds its addresses: the same text, the same wavefronts
     * and conflicts, so the same shape) */
    rl->shape = re->shape;
    rl->threads = (uint16_t)gf_popcount32(in->mask);
    rl->misses = 0;
    if (len && len <= UINT16_MAX && kind != K_MEM && re->shape != SHAPE_INLINE &&
        s->rp_text_len + len <= UINT32_MAX) {
        void *p = s->rp_text;
        if (gf_grow(&p, &s->rp_text_cap, s->rp_text_len + len, 1) == 0) {
            s->rp_text = p;
            memcpy(s->rp_text + s->rp_text_len, text, len);
            rl->toff = (uint32_t)s->rp_text_len;
            rl->tlen = (uint16_t)len;
            s->rp_text_len += len;
        }
    }
}

/* Takes the warp's next instructions as a run of the replay list (see RUN_MAX) when the
 * trace's next lines are that run's texts: returns 1 with their ids appended, or 0
 * having read nothing (*st GF_OK either way unless out of memory). The run stops
 * before an instruction index at which produce_block checks for spilling, which it
 * leaves to the line-by-line path. */
static int replay_run(sim *s, sblock *b, swarp *w, gf_status *st, gf_error *err)
{
    uint32_t k = s->rp_pos;
    *st = GF_OK;
    if (k >= s->rp_len || !s->rpl[k].tlen || s->rpl[k].misses >= RUN_MISSES ||
        (w->n && w->n % SPILL_WINDOW == 0))
        return 0;
    uint32_t most = s->rp_len - k, room = SPILL_WINDOW - w->n % SPILL_WINDOW;
    most = most < RUN_MAX ? most : RUN_MAX;
    most = most < room ? most : room;
    const rp_line *rl = s->rpl + k;
    size_t bytes = 0;
    uint32_t m = 0;
    uint64_t threads = 0;
    /* (a run ends before a line that keeps differing: then the whole run usually
     * matches, and one memcmp says so) */
    for (; m < most && rl[m].tlen && (m == 0 || rl[m].misses < RUN_MISSES); m++) {
        bytes += rl[m].tlen;
        threads += rl[m].threads;
    }
    /* the run's first lines that the trace repeats: where the first differs (another
     * warp's shared addresses, another register), the line-by-line path goes on */
    size_t compared, same = gf_kreader_match(s->r, s->rp_text + rl[0].toff, bytes, &compared);
    uint32_t n = m;
    if (same < bytes) {
        threads = 0;
        for (bytes = 0, m = 0; m < n && bytes + rl[m].tlen <= same; m++) {
            bytes += rl[m].tlen;
            threads += rl[m].threads;
        }
    }
    s->run_tries++;
    if (same < compared && s->rpl[k + m].misses < UINT16_MAX) /* (m < n then) */
        s->rpl[k + m].misses++;
    if (!m || !gf_kreader_skip_lines(s->r, bytes, m)) {
        if (s->run_tries >= 4096 && s->run_hits * 16 < s->run_tries)
            s->rp_runs = 0;
        return 0;
    }
    s->run_hits++;
    if (!w->shared && w->n + m > w->cap && (*st = warp_reserve_slow(w, s, m, err)) != GF_OK)
        return 1;
    for (uint32_t j = 0; j < m; j++)
        if ((*st = warp_put_id(s, w, rl[j].shape, err)) != GF_OK)
            return 1;
    w->nslots = rl[m - 1].nslots;
    b->warp_insts += m;
    b->thread_insts += threads;
    s->rp_pos = k + m;
    s->shape_lookups += m; /* repeats, as interning would have found */
    s->shape_hits += m;
    s->shape_prev = rl[m - 1].shape;
    return 1;
}

/* Decodes in from the replay list when the warp has followed it so far and in's head
 * (everything but its addresses) is the next entry's: the entry's decoded shape, with
 * only what depends on the addresses worked out again (a shared access's wavefronts, a
 * global one's sectors). Sets *done when it did; otherwise the full decode follows, with
 * the warp's registers numbered as it left them. */
static gf_status replay_inst(sim *s, sblock *b, swarp *w, const gf_inst *in, int *done,
                             gf_error *err)
{
    uint32_t k = s->rp_pos;
    const replay_ent *re = k < s->rp_len ? &s->rp[k] : NULL;
    *done = 0;
    if (!re || memcmp(in, re->head, RP_HEAD) != 0) {
        replay_sync(s, k);
        s->rp_follow = 0;
        s->rp_record = !re && s->rp_len < REPLAY_MAX; /* past its end: extend it */
        return GF_OK;
    }
    s->rp_pos = k + 1;
    if (re->shape == SHAPE_INLINE) { /* decoded in full every time */
        replay_sync(s, k);
        s->rp_done = k + 1; /* (the full decode numbers this one's registers) */
        return GF_OK;
    }
    gf_status st = warp_reserve(w, s, err);
    if (st != GF_OK)
        return st;
    uint32_t id = re->shape;
    const shape *sh = shape_at(s->shape_chunk, id);
    gf_coalesced c;
    if (re->kind == K_SHARED) {
        uint32_t aux = shared_aux(s, re->e, in, in->mem_width);
        if (aux != sh->aux) {
            shape si = *sh; /* the fixed header; the register slots stay in the table */
            si.aux = aux;
            id = shape_intern(s, &si, sh->regs);
            if (id == SHAPE_INLINE) {
                *done = 1;
                w->nslots = re->nslots;
                return warp_emit(s, b, w, in, re->e, id, &si, sh->regs, NULL, 0, err);
            }
            sh = shape_at(s->shape_chunk, id);
            goto emit; /* (shape_intern counted and remembered it) */
        }
    } else if (re->kind == K_MEM) {
        mem_sectors(s, in, re->e->space, in->mem_width, &c);
    }
    s->shape_lookups++; /* a repeat, as interning would have found */
    s->shape_hits++;
    s->shape_prev = id;
emit:
    w->nslots = re->nslots;
    *done = 1;
    if (re->kind != K_MEM) /* nothing for the pool: skip warp_emit's call */
        return warp_append_id(s, b, w, in, id, err);
    return warp_emit(s, b, w, in, re->e, id, sh, sh->regs, &c, re->mspace, err);
}

/* Decodes in into w in full (produce_block tries replay_inst first). */
static gf_status decode_inst(sim *s, sblock *b, swarp *w, const gf_inst *in, gf_error *err)
{
    const gf_isa_entry *e = in->opcode < GF_OPCODE_MAX ? s->isa_seen[in->opcode] : NULL;
    int warned = 0;
    gf_status st = e ? GF_OK
                     : gf_isa_lookup(s->isa, in->opcode, s->opt->unknown, &e, &warned, err);
    if (st == GF_OK && in->opcode < GF_OPCODE_MAX)
        s->isa_seen[in->opcode] = e;
    if (st != GF_OK) {
        /* The ISA layer names the opcode; add where it was met. */
        if (err) {
            char msg[sizeof err->message];
            snprintf(msg, sizeof msg, "%.500s in kernel %.400s", err->message, s->ki->name);
            gf_error_set(err, st, gf_kreader_path(s->r), gf_kreader_line(s->r), "%s", msg);
        }
        return st;
    }
    if (warned && s->opt->warn_unknown && !s->warned[in->opcode]) {
        s->warned[in->opcode] = 1;
        s->opt->warn_unknown(s->opt->warn_ctx, gf_opcode_name(in->opcode),
                             gf_kreader_path(s->r), gf_kreader_line(s->r));
    }
    if (in->mem_width > 32)
        return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(s->r), gf_kreader_line(s->r),
                            "memory width %u bytes per lane; expected at most 32", in->mem_width);
    shape si;
    memset(&si, 0, sizeof si); /* padding too: shapes are compared bytewise */
    si.unit = (uint8_t)e->unit;
    si.latency = (uint16_t)(e->latency > 65535 ? 65535 : e->latency);
    si.interval = (uint16_t)(e->interval ? (e->interval > 65535 ? 65535 : e->interval) : 1);
    si.kind = K_ALU;
    gf_coalesced c;
    unsigned mspace = 0; /* K_MEM: its record's space (per warp, not in the shape) */
    /* EXIT with some lanes off (or none on: predicated off, mask 0) does not end the
     * warp; the warp ends with its last traced instruction. */
    if (e->is_exit && in->mask == 0xffffffffu)
        si.kind = K_EXIT;
    else if (e->is_barrier && in->mask)
        si.kind = K_BAR;
    else if ((e->space == GF_SPACE_SHARED || e->space == GF_SPACE_SHARED_ATOMIC) && !in->mask) {
        /* Predicated off, it still takes a wavefront of the shared-memory pipe: refdata
         * h100-gfbench reduce, l1tex__data_pipe_lsu_wavefronts_mem_shared 1,789,934 of
         * which 374,417 carry lanes and 1,277,952 are its masked-off LDS/STS. */
        si.kind = K_SHARED;
        si.aux = shared_aux(s, e, in, 0);
    } else if (e->space != GF_SPACE_NONE && e->space != GF_SPACE_CONST && in->mem_width &&
             in->mask) {
        gf_mem_space space = e->space;
        if (space == GF_SPACE_GENERIC)
            space = resolve_generic(s, in->addr[first_lane(in->mask)]);
        unsigned width = in->mem_width ? in->mem_width : e->width;
        if (space == GF_SPACE_SHARED || space == GF_SPACE_SHARED_ATOMIC) {
            si.kind = K_SHARED;
            si.aux = shared_aux(s, e, in, width);
        } else {
            mem_sectors(s, in, space, width, &c);
            si.kind = K_MEM;
            mspace = (unsigned)(space == GF_SPACE_TEXTURE ? GF_SPACE_GLOBAL : space);
        }
    }
    if ((st = warp_reserve(w, s, err)) != GF_OK)
        return st;
    unsigned before = w->nslots;
    uint16_t regs[GF_MAX_DST + GF_MAX_SRC];
    unsigned nr = 0;
    for (unsigned i = 0; i < in->ndst && i < GF_MAX_DST; i++)
        if (in->dst[i] != GF_REG_ZERO && in->dst[i] < GF_REG_COUNT)
            regs[nr++] = reg_slot(s, w, in->dst[i]);
    si.ndst = (uint8_t)nr;
    for (unsigned i = 0; i < in->nsrc && i < GF_MAX_SRC; i++)
        if (in->src[i] != GF_REG_ZERO && in->src[i] < GF_REG_COUNT)
            regs[nr++] = reg_slot(s, w, in->src[i]);
    si.nsrc = (uint8_t)(nr - si.ndst);
    uint32_t id = shape_intern(s, &si, regs);
    if ((st = warp_emit(s, b, w, in, e, id, &si, regs, &c, mspace, err)) != GF_OK)
        return st;
    if (s->rp_record)
        replay_record(s, w, in, e, id, si.kind, mspace, before);
    return GF_OK;
}

/* Bytes of w's pool data for an instruction of shape sh at p (its inline shape, if any,
 * already skipped): its memory record, if any. */
static size_t pool_rec_bytes(const shape *sh, const uint8_t *p)
{
    if (sh->kind != K_MEM)
        return 0;
    memrec m;
    memcpy(&m, p, sizeof m);
    return memrec_bytes(m.nsectors, m.bypass & 2);
}

static void block_reset(sblock *b)
{
    for (unsigned i = 0; i < b->nwarps; i++) {
        b->warps[i].n = b->warps[i].pc = b->warps[i].nslots = 0;
        b->warps[i].poollen = 0;
        b->warps[i].ntot = b->warps[i].win0 = b->warps[i].pool0 = b->warps[i].pcur = 0;
        b->warps[i].spilled = 0;
        b->warps[i].state = W_RUN;
    }
    b->held = 0;
    b->npf = 0;
    b->ioerr = 0;
    b->spill = NULL;
    b->live = b->arrived = b->listed = 0;
    b->warp_insts = b->thread_insts = 0;
}

static void block_free(sblock *b)
{
    if (!b)
        return;
    for (unsigned i = 0; i < b->nwarps; i++) {
        free(b->warps[i].own);
        free(b->warps[i].ready);
        free(b->warps[i].pool);
        free(b->warps[i].wins);
    }
    free(b->warps);
    free(b);
}

/* n zeroed warps on a cache-line boundary (see swarp); NULL when out of memory. */
static swarp *warps_alloc(size_t n)
{
    if (n == 0 || n > SIZE_MAX / sizeof(swarp))
        return NULL;
    swarp *w = aligned_alloc(_Alignof(swarp), n * sizeof(swarp));
    if (w)
        memset(w, 0, n * sizeof(swarp));
    return w;
}

/* A block to fill: a spare one (its buffers are reused) or a new one; NULL when out of
 * memory. */
static sblock *take_spare(sim *s)
{
    sblock *b = s->spare;
    if (b) {
        s->spare = b->next;
        s->nspare--;
        return b;
    }
    b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->warps = warps_alloc(s->warps_per_block);
    if (!b->warps) {
        free(b);
        return NULL;
    }
    b->nwarps = s->warps_per_block;
    return b;
}

static void put_spare(sim *s, sblock *b)
{
    if (s->nspare >= SPARE_MAX) {
        block_free(b);
        return;
    }
    b->next = s->spare;
    s->spare = b;
    s->nspare++;
}

/* ---------------------------------------------------------------- spilling */

static size_t block_bytes(const sblock *b)
{
    size_t n = 0;
    for (unsigned i = 0; i < b->nwarps; i++) {
        const swarp *w = &b->warps[i];
        n += (size_t)w->cap * sizeof(uint32_t) + w->poolcap;
    }
    return n;
}

static uint32_t spill_windows(const swarp *w)
{
    return (w->ntot + SPILL_WINDOW - 1) / SPILL_WINDOW;
}

/* Moves what w holds while being decoded (instructions win0 .. win0 + n, whole windows
 * but for a warp's last) to the spill file, window by window, each as its instructions,
 * registers and records; w then holds nothing and decodes on from win0 + n. */
static gf_status spill_flush_warp(sim *s, sblock *b, swarp *w, gf_error *err)
{
    gf_status st;
    if (w->shared && (st = warp_unshare(s, w, err)) != GF_OK)
        return st;
    if (!s->spill && (st = gf_spill_open(&s->spill, err)) != GF_OK)
        return st;
    b->spill = s->spill;
    uint32_t j0 = w->win0 / SPILL_WINDOW, nw = (w->n + SPILL_WINDOW - 1) / SPILL_WINDOW;
    void *p = w->wins;
    if (gf_grow(&p, &w->winscap, (size_t)j0 + nw + 1, sizeof(spill_win)) != 0)
        return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), gf_kreader_line(s->r),
                            "out of memory spilling a thread block");
    w->wins = p;
    /* Pool data is appended in instruction order, so a window's starts at its first
     * instruction's. */
    size_t off = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        if (i % SPILL_WINDOW == 0)
            w->wins[j0 + i / SPILL_WINDOW].pool = w->pool0 + (uint32_t)off;
        uint32_t id = w->ids[i];
        const shape *sh;
        if (id == SHAPE_INLINE) {
            sh = (const shape *)(w->pool + off);
            off += SHAPE_POOL_BYTES((size_t)sh->ndst + sh->nsrc);
        } else {
            sh = shape_at(s->shape_chunk, id);
        }
        off += pool_rec_bytes(sh, w->pool + off);
    }
    for (uint32_t k = 0; k < nw; k++) {
        spill_win *sw = &w->wins[j0 + k];
        uint32_t i0 = k * SPILL_WINDOW, i1 = w->n - i0 < SPILL_WINDOW ? w->n : i0 + SPILL_WINDOW;
        uint32_t q1 = k + 1 < nw ? sw[1].pool : w->pool0 + (uint32_t)w->poollen;
        uint64_t at;
        if ((st = gf_spill_append(s->spill, w->ids + i0, (size_t)(i1 - i0) * sizeof(uint32_t),
                                  &sw->off, err)) != GF_OK ||
            (st = gf_spill_append(s->spill, w->pool + (sw->pool - w->pool0), q1 - sw->pool, &at,
                                  err)) != GF_OK)
            return st;
    }
    w->win0 += w->n;
    w->pool0 += (uint32_t)w->poollen;
    w->n = 0;
    w->poollen = 0;
    w->spilled = 1;
    return GF_OK;
}

/* The end of a spilled warp's trace: its last window goes out too, the totals close the
 * window list, and it holds nothing until warp_prepare reads its first window back. */
static gf_status spill_finish_warp(sim *s, sblock *b, swarp *w, gf_error *err)
{
    gf_status st;
    if (w->n && (st = spill_flush_warp(s, b, w, err)) != GF_OK)
        return st;
    w->ntot = w->win0;
    w->wins[spill_windows(w)] = (spill_win){gf_spill_size(s->spill), w->pool0};
    w->win0 = w->pool0 = 0;
    return GF_OK;
}

/* b retires: its bytes are no longer held, its spilled ranges no longer needed. */
static void block_release(sim *s, sblock *b)
{
    s->held -= b->held;
    b->held = 0;
    for (unsigned i = 0; b->spill && i < b->nwarps; i++) {
        const swarp *w = &b->warps[i];
        if (w->spilled)
            gf_spill_discard(b->spill, w->wins[0].off, w->wins[spill_windows(w)].off - w->wins[0].off);
    }
}

/* Reads the window holding w->pc back from the spill file: 0, or an errno. Runs on the
 * thread of w's SM (preadv: safe alongside the other SMs' reads). */
static int warp_load_window(swarp *w)
{
    const gf_spill *sp = w->block->spill;
    uint32_t j = w->pc / SPILL_WINDOW, i0 = j * SPILL_WINDOW;
    uint32_t i1 = w->ntot - i0 < SPILL_WINDOW ? w->ntot : i0 + SPILL_WINDOW;
    const spill_win *a = &w->wins[j], *z = &w->wins[j + 1];
    size_t npool = z->pool - a->pool;
    /* every window was held whole while decoding, so the arrays hold it; checked all
     * the same, as the file's contents are taken on trust otherwise (a shape id in it
     * is not: the file is this process's own scratch) */
    if (!sp || i1 - i0 > w->cap || npool > w->poolcap)
        return EIO;
    struct iovec v[2] = {{w->ids, (size_t)(i1 - i0) * sizeof(uint32_t)}, {w->pool, npool}};
    if (gf_spill_readv(sp, a->off, v, 2) != 0)
        return errno ? errno : EIO;
    w->win0 = i0;
    w->n = i1 - i0;
    w->pool0 = a->pool;
    w->pcur = 0;
    return 0;
}

/* Parses and decodes the next thread block of the trace into b. GF_END at the end of
 * the kernel. Touches only the reader, the ISA table and b. */
static gf_status produce_block(sim *s, sblock *b, gf_error *err)
{
    unsigned tb[3];
    gf_status st = gf_kreader_next_block(s->r, tb, err);
    if (st != GF_OK)
        return st;
    block_reset(b);
    for (;;) {
        unsigned wid;
        uint32_t n;
        st = gf_kreader_next_warp(s->r, &wid, &n, err);
        if (st == GF_END)
            break;
        if (st != GF_OK)
            return st;
        if (wid >= s->warps_per_block)
            return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(s->r), gf_kreader_line(s->r),
                                "warp %u outside a block of %u warps (block dim %ux%ux%u)", wid,
                                s->warps_per_block, s->ki->block[0], s->ki->block[1],
                                s->ki->block[2]);
        swarp *w = &b->warps[wid];
        if (w->state == W_DONE || w->n)
            return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(s->r), gf_kreader_line(s->r),
                                "warp %u appears twice in one thread block", wid);
        s->shape_prev = SHAPE_INLINE;
        w->shared = s->rp_ids != NULL;
        w->ids = w->shared ? s->rp_ids : w->own;
        s->rp_pos = s->rp_done = 0;
        s->rp_follow = !s->opt->no_replay;
        s->rp_record = 0;
        if (++s->stamp == 0) { /* wrapped: forget every old stamp */
            memset(s->regstamp, 0, sizeof s->regstamp);
            s->stamp = 1;
        }
        gf_inst in;
        /* (replay_inst compares heads bytewise: no stack garbage in the padding or in
         * the register lists past ndst and nsrc, which the parser leaves alone) */
        memset(&in, 0, RP_HEAD);
        for (;;) {
            if (s->rp_follow && s->rp_runs && replay_run(s, b, w, &st, err)) {
                if (st != GF_OK)
                    return st;
                continue;
            }
            if ((st = gf_kreader_next_inst(s->r, &in, err)) != GF_OK)
                break;
            /* At each window boundary: past the hold budget, what the warp holds goes
             * to the spill file, and from then on each window as it fills. */
            if (w->n && w->n % SPILL_WINDOW == 0 && s->opt->hold_bytes &&
                (w->spilled || s->held + block_bytes(b) > s->opt->hold_bytes) &&
                (st = spill_flush_warp(s, b, w, err)) != GF_OK)
                return st;
            if (s->rp_follow) { /* (here, not in decode_inst: a replayed instruction then
                                  * skips that big function's call) */
                int done;
                if ((st = replay_inst(s, b, w, &in, &done, err)) != GF_OK)
                    return st;
                if (done)
                    continue;
            }
            if ((st = decode_inst(s, b, w, &in, err)) != GF_OK)
                return st;
        }
        if (st != GF_END)
            return st;
        if (w->spilled && (st = spill_finish_warp(s, b, w, err)) != GF_OK)
            return st;
        /* Every register starts ready. */
        void *pr = w->ready;
        int ok = gf_grow(&pr, &w->slotcap, w->nslots + 1, sizeof *w->ready) == 0;
        w->ready = pr;
        if (!ok)
            return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), gf_kreader_line(s->r),
                                "out of memory holding a thread block");
        memset(w->ready, 0, w->nslots * sizeof *w->ready);
        w->state = W_DONE; /* marks "listed" until the block is finished below */
        b->listed++;
    }
    for (unsigned i = 0; i < b->nwarps; i++) {
        swarp *w = &b->warps[i];
        if (!w->spilled)
            w->ntot = w->n;
        w->state = w->ntot ? W_RUN : W_DONE;
    }
    /* spilled windows are read back from when the block is placed */
    if (b->spill)
        return gf_spill_flush(b->spill, err);
    return GF_OK;
}

/* The next thread block of the kernel, ready to place; *out = NULL at the end. */
static gf_status read_block(sim *s, sblock **out, gf_error *err)
{
    *out = NULL;
    if (s->trace_done)
        return GF_OK;
    sblock *b = take_spare(s);
    if (!b)
        return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), gf_kreader_line(s->r),
                            "out of memory holding a thread block");
    gf_status st = produce_block(s, b, err);
    if (st != GF_OK) {
        put_spare(s, b);
        s->trace_done = 1;
        return st == GF_END ? GF_OK : st;
    }
    b->held = block_bytes(b);
    s->held += b->held;
    for (unsigned i = 0; i < b->nwarps; i++) {
        swarp *w = &b->warps[i];
        w->block = b;
        w->pc = 0;
        w->pcur = 0;
        w->shapes = s->shape_chunk;
        w->uid = s->next_uid++;
        if (w->state == W_RUN)
            b->live++;
    }
    s->res->blocks++;
    s->res->warps += b->listed;
    s->res->warp_insts += b->warp_insts;
    s->res->thread_insts += b->thread_insts;
    if (s->opt->progress)
        s->opt->progress(s->opt->progress_ctx, s->ki->name, s->res->blocks,
                         (uint64_t)s->ki->grid[0] * s->ki->grid[1] * s->ki->grid[2]);
    *out = b;
    return GF_OK;
}

/* ---------------------------------------------------------------- issue */

static void warp_prepare(swarp *w);

/* Puts warp i of the block placed in slot `slot` at its fixed position in its sub-core's
 * row: slot by slot, and in warp order within a slot (warp i of a slot is the (i /
 * nsub)-th of that slot on its sub-core), so the rows stay in age order without moving
 * any other warp. The position's previous warp has finished (its block retired first). */
static void list_warp(const sim *s, ssm *sm, unsigned slot, unsigned i, swarp *w)
{
    unsigned row = s->bps * s->warps_per_block, sc = w->subcore;
    unsigned pos = slot * s->per_slot + i / s->nsub;
    sm->sub[sc * row + pos] = w;
    w->ent = &sm->ent[sc * row + pos];
    w->ent->run = 0; /* a fresh entry: nothing to undo in warp_mirror */
    w->cand = sm->cand + ((size_t)sc * sm->cand_words + (pos >> 6)) * CAND_GROUP;
    w->nwait = &sm->nwait[sc];
    w->bit = pos;
}

static void place_block(sim *s, unsigned smi, unsigned slot, sblock *b, uint64_t t)
{
    ssm *sm = &s->sms[smi];
    sm->slots[slot] = b;
    sm->resident++;
    b->slot = slot;
    for (unsigned k = 0; k < b->npf && sm->npf < SM_PF_LINES; k++)
        sm->pf[sm->npf++] = b->pf_line[k];
    b->start = b->done = t;
    b->drain = 0;
    for (unsigned i = 0; i < b->nwarps; i++) {
        swarp *w = &b->warps[i];
        /* Warp slots are allocated per block slot, as gpgpu-sim does; warp slot
         * w issues on sub-core w % subcores (accelsim-subcore-frontend-memory-pipeline). */
        w->subcore = (slot * s->warps_per_block + i) % s->nsub;
        w->next_issue = t;
        w->ent = NULL;
        if (w->state != W_DONE)
            list_warp(s, sm, slot, i, w);
        /* w->ready is all zero here (produce_block). */
        warp_prepare(w);
        sm->wake[w->subcore] = 0; /* it may issue before the old bound */
    }
}

/* Copies w's scheduling state to its scan entry. */
static inline void warp_mirror(const swarp *w)
{
    scan_ent *e = w->ent;
    if (!e)
        return;
    int was_wait = e->run && e->opready == UINT64_MAX;
    unsigned old_unit = e->unit; /* (its bit is set there only if it was a candidate) */
    e->opready = w->opready;
    e->unit = w->unit;
    e->lsu = w->lsu;
    e->opmem = w->opmem;
    e->run = w->state == W_RUN;
    int wait = e->run && e->opready == UINT64_MAX;
    uint64_t m = 1ull << (w->bit & 63), *c = w->cand;
    c[2 + old_unit] &= ~m;
    c[CAND_PARKED] &= ~m; /* (park_min stays a lower bound) */
    if (e->run && !wait) {
        c[0] |= m;
        c[1] = e->lsu ? c[1] | m : c[1] & ~m;
        c[2 + e->unit] |= m;
    } else {
        c[0] &= ~m;
        c[1] &= ~m;
    }
    *w->nwait += (unsigned)wait;
    *w->nwait -= (unsigned)was_wait;
}

/* Recomputes the cached operand readiness of w's next instruction. (Inlined into issue,
 * which calls it for every instruction; the others call warp_prepare.) */
static inline __attribute__((always_inline)) void warp_prepare_inline(swarp *w)
{
    if (w->pc >= w->ntot) {
        warp_mirror(w);
        return;
    }
    if (w->pc - w->win0 >= w->n) {
        /* a spilled warp at the end of its window; a failed read stops it (as if its
         * operands never came) and the epoch's end reports the error */
        int e = warp_load_window(w);
        if (e) {
            w->block->ioerr = e;
            w->opready = UINT64_MAX;
            w->opmem = 1;
            warp_mirror(w);
            return;
        }
    }
    uint32_t id = w->ids[w->pc - w->win0];
    const shape *in =
        id == SHAPE_INLINE ? (const shape *)(w->pool + w->pcur) : shape_at(w->shapes, id);
    w->nshape = (uintptr_t)in | (id == SHAPE_INLINE);
    uint64_t t = w->next_issue;
    int mem = 0;
    const uint16_t *regs = in->regs;
    for (unsigned i = 0; i < (unsigned)in->ndst + in->nsrc; i++) {
        uint64_t v = w->ready[regs[i]];
        if ((v & READY_CYCLE) > t) {
            t = v & READY_CYCLE;
            mem = (int)(v >> 63);
        }
    }
    if (t == READY_CYCLE) /* a load waiting for its L2 outcome */
        t = UINT64_MAX;
    w->opready = t;
    w->opmem = (uint8_t)mem;
    w->unit = in->unit;
    w->lsu = in->kind == K_MEM || in->kind == K_SHARED;
    warp_mirror(w);
}

static void warp_prepare(swarp *w)
{
    warp_prepare_inline(w);
}

/* Earliest cycle warp w could issue its next instruction: its operands ready, its unit
 * (unit_free: its sub-core's row) and, for memory instructions, the SM's LSU free. */
static inline uint64_t warp_ready_cycle(const ssm *sm, const uint64_t *unit_free,
                                        const scan_ent *w)
{
    uint64_t e = w->opready, u = unit_free[w->unit], l = w->lsu ? sm->lsu_free : 0;
    e = u > e ? u : e;
    return l > e ? l : e;
}

/* warp_ready_cycle, and in *mem_wait whether the binding constraint is a value still
 * coming from memory (the operands bind unless the unit or the LSU frees up later). */
static uint64_t warp_earliest(const ssm *sm, unsigned sc, const scan_ent *w, int *mem_wait)
{
    uint64_t e = warp_ready_cycle(sm, sm->unit_free + sc * GF_UNIT_COUNT, w);
    *mem_wait = w->opmem && e == w->opready;
    return e;
}

static unsigned level_latency(const sim *s, gf_level lv)
{
    switch (lv) {
    case GF_LEVEL_L1: return s->gpu->l1.latency;
    case GF_LEVEL_L2: return s->lat_l2;
    case GF_LEVEL_DRAM: return s->lat_dram;
    }
    return s->lat_l2;
}

/* w's next instruction changed (an L2 outcome, a barrier release): its sub-core's wake
 * bound must not exceed the cycle its operands are ready, the other warps' are as
 * before. */
static void wake_lower(ssm *sm, const swarp *w)
{
    if (w->opready < sm->wake[w->subcore])
        sm->wake[w->subcore] = w->opready;
}

static void release_barrier(ssm *sm, sblock *b, uint64_t t)
{
    if (b->arrived < b->live)
        return;
    for (unsigned i = 0; i < b->nwarps; i++)
        if (b->warps[i].state == W_BAR) {
            b->warps[i].state = W_RUN;
            if (b->warps[i].next_issue < t + 1)
                b->warps[i].next_issue = t + 1;
            warp_prepare(&b->warps[i]);
            wake_lower(sm, &b->warps[i]);
        }
    b->arrived = 0;
}

/* Row-buffer locality of the DRAM stream (MODEL.md §4: DRAM efficiency depends on it).
 * Address map: 256 B chunks interleave across channels, then banks, then rows of
 * dram_row_bytes per bank — the usual linear map; the real one hashes channel bits
 * (multi2sim-gpu-memory-subsystem.txt §4), which this does not model. The hierarchy
 * reports how many of an access's sectors reached DRAM, not which: the first ones are
 * taken, which matters only for partly cached requests. */
static void track_rows(sim *s, const uint64_t *sector, unsigned nsectors, unsigned n)
{
    const gf_gpu *g = s->gpu;
    unsigned ch = g->dram_channels ? g->dram_channels : 1;
    unsigned nb = g->dram_banks ? g->dram_banks : 1;
    uint64_t row_bytes = g->dram_row_bytes ? g->dram_row_bytes : 2048;
    uint64_t last_chunk = UINT64_MAX, row = 0, *slot = NULL;
    for (unsigned i = 0; i < n && i < nsectors; i++) {
        uint64_t chunk = (sector[i] << 5) >> 8;
        if (chunk != last_chunk) { /* a request's sectors share chunks: 3 divisions fewer */
            uint64_t channel = chunk % ch, rest = chunk / ch;
            uint64_t bank = rest % nb;
            row = (rest / nb) * 256 / row_bytes;
            slot = &s->open_row[channel * nb + bank];
            last_chunk = chunk;
        }
        s->res->dram_row_accesses++;
        if (*slot == row + 1)
            s->res->dram_row_hits++;
        *slot = row + 1;
    }
}

/* issue's part for a global, local or texture access (K_MEM): the L1 half of the
 * hierarchy, the LSU stage, the requests to L2. Returns the cycle the value is ready
 * (UINT64_MAX while it waits for its L2 outcome). Out of line so that issue, inlined
 * into step, stays small for the ALU instructions that are most of a kernel. */
static __attribute__((noinline)) uint64_t issue_mem(sim *s, unsigned smi, ssm *sm, swarp *w,
                                                   const shape *in, uint64_t t)
{
    const gf_gpu *g = s->gpu;
    const memrec *m = (const memrec *)(w->pool + w->pcur);
    w->pcur += (uint32_t)pool_rec_bytes(in, w->pool + w->pcur);
    const uint8_t *q = (const uint8_t *)(m + 1);
    /* (read in place: the record is 8-byte aligned, its byte masks 4-byte) */
    gf_sector_list c = {m->nsectors, 1u + (m->bypass >> 2 & 7u),
                        (const uint64_t *)(const void *)q,
                        (const uint32_t *)(const void *)(q + m->nsectors * sizeof(uint64_t)),
                        m->bypass & 2 ? q + m->nsectors * (sizeof(uint64_t) + sizeof(uint32_t))
                                      : NULL};
    gf_access_outcome o;
    gf_l2_req reqs[GF_COALESCE_MAX_LISTED];
    unsigned nr = 0;
    gf_hier_access_l1(s->hier, smi, w->uid, (gf_mem_space)m->space, (gf_mem_dir)m->dir,
                      m->bypass & 1, &c, &o, reqs, &nr);
    /* The L1 tag/data stage takes one cycle per l1.bytes_per_cycle of sectors. */
    double bpc = g->l1.bytes_per_cycle > 0 ? g->l1.bytes_per_cycle : 128.0;
    uint64_t stage = (uint64_t)((double)(c.nsectors * 32u) / bpc + 0.999);
    if (stage < m->wavefronts) /* bank conflicts in the data array (l1_wavefronts) */
        stage = m->wavefronts;
    if (stage < 1)
        stage = 1;
    sm->lsu_free = t + stage;
    sm->lsu_cycles += stage;
    /* stores and atomics without a return value (RED) are posted: no MSHR, no result */
    int posted = m->dir == GF_DIR_STORE || (m->dir == GF_DIR_ATOMIC && !in->ndst);
    if (g->store_drain && posted) {
        /* its slot waits for the acknowledgement (Nsight's "drain" after EXIT) */
        uint64_t ack = t + stage + s->lat_l2;
        if (ack > w->block->drain)
            w->block->drain = ack;
    }
    unsigned past_l1 = o.sectors - o.l1_hits;
    sm->miss_sectors += past_l1;
    if (!posted)
        sm->load_miss_sectors += past_l1;
    else if (m->dir == GF_DIR_STORE) /* (write-through: every stored sector goes to L2) */
        for (unsigned i = 0; i < c.nsectors; i++)
            sm->partial_stores += c.bytes[i] != 0xffffffffu;
    sm->mem_insts++;
    uint64_t done = t + stage + g->l1.latency;
    if (nr) {
        /* Its result depends on L2, resolved at the end of the epoch; nothing can
         * read it before (it lands at least l2.latency >= the epoch later). */
        void *pp = sm->pend, *pr = sm->reqs, *ps = sm->reqslice, *pc = sm->psect;
        int ok = gf_grow(&pp, &sm->cappend, sm->npend + 1, sizeof(pend)) == 0 &&
                 gf_grow(&pr, &sm->capreqs, sm->nreqs + nr, sizeof(gf_l2_req)) == 0 &&
                 gf_grow(&ps, &sm->capslice, sm->nreqs + nr, sizeof(uint32_t)) == 0 &&
                 gf_grow(&pc, &sm->cappsect, sm->npsect + c.nsectors, sizeof(uint64_t)) == 0;
        sm->pend = pp;
        sm->reqs = pr;
        sm->reqslice = ps;
        sm->psect = pc;
        if (!ok) {
            sm->nomem = 1;
        } else {
            pend *pq = &sm->pend[sm->npend++];
            pq->t = t;
            pq->seq = sm->seq++;
            pq->sm = smi;
            pq->w = w;
            pq->stage = (uint32_t)stage;
            pq->req0 = (uint32_t)sm->nreqs;
            pq->nreq = nr;
            pq->past_l1 = past_l1;
            pq->sect0 = (uint32_t)sm->npsect;
            pq->nsect = (uint16_t)c.nsectors;
            memcpy(sm->psect + sm->npsect, c.sector, c.nsectors * sizeof(uint64_t));
            sm->npsect += c.nsectors;
            const uint16_t *dregs = in->regs;
            pq->ndst = in->ndst;
            pq->load = !posted;
            for (unsigned k = 0; k < in->ndst; k++)
                pq->dst[k] = dregs[k];
            memcpy(sm->reqs + sm->nreqs, reqs, nr * sizeof *reqs);
            for (unsigned k = 0; k < nr; k++)
                sm->reqslice[sm->nreqs + k] = gf_hier_slice_of(s->hier, reqs[k].line);
            sm->nreqs += nr;
            w->block->pending++;
            done = UINT64_MAX;
        }
    }
    return done;
}

/* Issues w's next instruction at cycle t on SM smi. (Inlined into step, its one caller:
 * the call's register saves cost ~20 instructions an issue, callgrind.) */
static inline __attribute__((always_inline)) void issue(sim *s, unsigned smi, swarp *w,
                                                        uint64_t t)
{
    ssm *sm = &s->sms[smi];
    const gf_gpu *g = s->gpu;
    /* (warp_prepare found it: the warp could issue) */
    const shape *in = (const shape *)(w->nshape & ~(uintptr_t)1);
    w->pc++;
    if (w->nshape & 1u) /* inline in the pool (SHAPE_INLINE): its bytes come first */
        w->pcur += (uint32_t)SHAPE_POOL_BYTES((size_t)in->ndst + in->nsrc);
    uint64_t done = t + in->latency;
    int from_mem = 0;
    sm->unit_free[w->subcore * GF_UNIT_COUNT + in->unit] = t + in->interval;
    sm->unit_busy[in->unit] += in->interval;
    sm->issued++;
    if (!sm->started) {
        sm->started = 1;
        sm->first_issue = t;
    }
    if (in->kind == K_MEM) {
        done = issue_mem(s, smi, sm, w, in, t);
        from_mem = 1;
    } else if (in->kind == K_SHARED) {
        uint64_t stage = in->aux & 0xfff;
        if (!(in->aux >> 25 & 1))
            gf_hier_shared_sm(s->hier, smi, (unsigned)stage, in->aux >> 12 & 0xfff,
                              (int)(in->aux >> 24 & 1));
        sm->lsu_free = t + stage;
        sm->lsu_cycles += stage;
        done = t + stage + g->shmem_latency;
    }
    const uint16_t *regs = in->regs;
    for (unsigned i = 0; i < in->ndst; i++) {
        uint16_t r = regs[i];
        w->ready[r] = done | (from_mem ? READY_FROM_MEM : 0);
    }
    int kind = in->kind; /* in may be overwritten: warp_prepare may load the next window */
    if (done != UINT64_MAX && done > sm->last_done)
        sm->last_done = done;

    w->next_issue = t + 1;
    warp_prepare_inline(w);
    sblock *b = w->block;
    if (kind == K_EXIT || w->pc >= w->ntot) {
        /* A warp whose trace ends without EXIT finishes after its last instruction. */
        w->state = W_DONE;
        warp_mirror(w);
        b->live--;
        b->done = t + 1 > b->drain ? t + 1 : b->drain;
        if (b->done > sm->last_done)
            sm->last_done = b->done;
        release_barrier(sm, b, t);
    } else if (kind == K_BAR) {
        w->state = W_BAR;
        warp_mirror(w);
        b->arrived++;
        release_barrier(sm, b, t);
    }
}

/* Records position `last` (-1: none) as sub-core sc's last warp issued, and where its
 * scans start (ssm.scan_from), worked out here once instead of at every scan: GTO from
 * the oldest warp (after trying the last one issued, step), LRR after the last one
 * issued. */
static inline void set_last(const sim *s, ssm *sm, unsigned sc, int last)
{
    unsigned n = s->row_cap;
    sm->last[sc] = last;
    sm->scan_from[sc] = 0;
    if (s->lrr && last >= 0 && n) {
        unsigned after = (unsigned)last + 1; /* last < n: no division needed */
        sm->scan_from[sc] = after < n ? after : 0;
    }
}

/* Drops the finished warp at position i of sub-core sc's row (warp_mirror has cleared its
 * candidate bit); the others keep their positions. */
static void row_remove(const sim *s, ssm *sm, unsigned sc, unsigned i)
{
    swarp **list = sm->sub + sc * (s->bps * s->warps_per_block);
    list[i]->ent = NULL;
    list[i] = NULL;
    if (sm->last[sc] == (int)i)
        set_last(s, sm, sc, -1);
}

/* The first candidate (set bit) of a sub-core's candidate words (the first of each group:
 * see ssm.cand) in [from, limit), or limit. */
static unsigned next_candidate(const uint64_t *bits, unsigned from, unsigned limit)
{
    while (from < limit) {
        uint64_t word = bits[CAND_GROUP * (from >> 6)] >> (from & 63);
        if (word) {
            unsigned i = from + (unsigned)__builtin_ctzll(word);
            return i < limit ? i : limit;
        }
        from = (from | 63) + 1;
    }
    return limit;
}

/* One warp met by a scan: 1 when it can issue at t, else its earliest cycle lowers *next
 * (and it becomes *first_min) if it is the first so early. */
static inline int scan_visit(const ssm *sm, const uint64_t *unit_free, const scan_ent *w,
                             uint64_t t, uint64_t *next, const scan_ent **first_min)
{
    /* no memory flag here: only the minimum needs one (scan_subcore) */
    uint64_t e = warp_ready_cycle(sm, unit_free, w);
    if (e <= t)
        return 1;
    if (e < *next) {
        *next = e;
        *first_min = w;
    }
    return 0;
}

/* What scan_subcore found on one sub-core. */
typedef struct scan_out {
    uint64_t next;              /* the least earliest cycle of the warps it visited */
    const scan_ent *first_min;  /* the first of them in scan order with it; NULL: none */
    uint64_t skipped;           /* SCAN_QUICK returning -2: candidates it did not visit, */
    uint64_t parked;            /* ... the parked warps (also not visited), */
    uint64_t gate;              /* ... none of which can issue before this cycle */
} scan_out;

enum scan_mode { SCAN_FULL = 0, SCAN_QUICK, SCAN_REST };

/* What quick scans may do (scan_tune_of), read once per run of an SM. */
typedef struct scan_tune {
    uint64_t skip;     /* all ones: skip gated warps; 0: visit them (opt->no_quick) */
    uint64_t park_far; /* PARK_FAR, or past any cycle: park none */
} scan_tune;

static scan_tune scan_tune_of(const sim *s)
{
    scan_tune q = {s->quick, s->quick ? PARK_FAR : UINT64_MAX / 2};
    return q;
}

/* Position of row entry i in a scan starting at `start` over n entries. */
static inline unsigned scan_pos(unsigned i, unsigned start, unsigned n)
{
    return i >= start ? i - start : i + n - start;
}

/* Scans sub-core sc's warps in its scheduler's order (from scan_from, wrapping) for the
 * first that can issue at t; returns its index in the row or -1. Only candidates are
 * visited: warps waiting for a value nobody has produced yet (opready UINT64_MAX) or
 * not running can never be picked. o->next and o->first_min: the earliest cycle of the
 * warps passed over and the first warp in scan order with it — the exact minimum when
 * nothing can issue.
 *
 * SCAN_QUICK does not visit candidates that need the LSU while it is busy past t, nor
 * those that need the unit the sub-core issued to last while that is: they cannot
 * issue before it frees up, the scheduler's usual wait (on SGEMM most visits were
 * LSU-bound warps, on the vector add a third waited for a unit: bench/README,
 * 2026-11-25 eleventh session). The pick is the same. When nothing can issue and a
 * skipped warp may be the minimum, it returns -2 and o->gate is only a lower bound;
 * SCAN_REST (at the same t, nothing issued since) then visits just the skipped ones
 * and makes o exact. (Rows of more than 64 warps are always scanned in full.) */
/* Inlined into step: it runs once per sub-core per step and usually visits one or two
 * warps, so a call's prologue and epilogue cost as much as the visits (callgrind). */
static inline __attribute__((always_inline)) int
scan_subcore(const sim *s, ssm *sm, unsigned sc, uint64_t t, scan_out *o, const int mode,
             const scan_tune *q)
{
    const struct sc_view *v = &sm->view[sc];
    const scan_ent *ents = v->ents, *first_min = NULL;
    uint64_t *bits = v->bits;
    const uint64_t *unit_free = v->unit_free;
    unsigned n = s->row_cap, start = sm->scan_from[sc];
    int pick = -1;
    uint64_t next = UINT64_MAX, skip = 0, gate = UINT64_MAX, parked = 0, far = t + q->park_far;
    if (sm->cand_words == 1) {
        /* The usual row of at most 64 warps: walk the set bits of one word, from start
         * to the end, then from 0 to start. */
        uint64_t cand = bits[0], pk = mode == SCAN_REST ? 0 : bits[CAND_PARKED];
        if (pk && sm->park_min[sc] <= t + PARK_NEAR) {
            cand |= pk; /* (none can issue yet: see PARK_FAR) */
            bits[0] = cand;
            bits[CAND_PARKED] = pk = 0;
            sm->park_min[sc] = UINT64_MAX;
        }
        if (mode == SCAN_REST) {
            cand = o->skipped | o->parked;
        } else if (mode == SCAN_FULL) {
            cand |= pk;
        } else {
            unsigned u = sm->last_unit[sc];
            if (sm->lsu_free > t && (cand & bits[1] & q->skip)) {
                skip = cand & bits[1];
                gate = sm->lsu_free;
            }
            if (unit_free[u] > t && (cand & bits[2 + u] & q->skip)) {
                skip |= cand & bits[2 + u];
                gate = unit_free[u] < gate ? unit_free[u] : gate;
            }
            cand &= ~skip;
            if (pk) {
                parked = pk;
                gate = sm->park_min[sc] < gate ? sm->park_min[sc] : gate;
            }
        }
        /* (rotated so that bit 0 is position start: one pass in scan order, the
         * positions past the row's end being clear) */
        uint64_t word = cand >> start | cand << ((64u - start) & 63u);
        for (; word; word &= word - 1) {
            unsigned i = ((unsigned)__builtin_ctzll(word) + start) & 63u;
            if (scan_visit(sm, unit_free, &ents[i], t, &next, &first_min)) {
                pick = (int)i;
                break;
            }
            uint64_t ready = ents[i].opready;
            if (mode == SCAN_QUICK && ready > far) {
                bits[0] &= ~(1ull << i);
                bits[CAND_PARKED] |= 1ull << i;
                if (ready < sm->park_min[sc])
                    sm->park_min[sc] = ready;
            }
        }
    } else {
        for (unsigned pass = 0; pick < 0 && pass < 2; pass++) {
            unsigned lo = pass ? 0 : start, hi = pass ? start : n;
            for (unsigned i = next_candidate(bits, lo, hi); i < hi;
                 i = next_candidate(bits, i + 1, hi))
                if (scan_visit(sm, unit_free, &ents[i], t, &next, &first_min)) {
                    pick = (int)i;
                    break;
                }
        }
    }
    if (mode == SCAN_REST) {
        /* (none of the rest can issue at t: each waits for a gate past t) */
        if (first_min &&
            (next < o->next ||
             (next == o->next && scan_pos((unsigned)(first_min - ents), start, n) <
                                     scan_pos((unsigned)(o->first_min - ents), start, n)))) {
            o->next = next;
            o->first_min = first_min;
        }
        return -1;
    }
    o->next = next;
    o->first_min = first_min;
    if (pick < 0 && (skip | parked) && next >= gate) {
        o->skipped = skip;
        o->parked = parked;
        o->gate = gate;
        return -2;
    }
    return pick;
}

/* Whether the warp found by an exact scan (o) waits for a value from memory (it binds
 * unless its unit or the LSU frees up later). */
static inline int scan_mem(const ssm *sm, unsigned sc, const scan_out *o)
{
    int mem = 0;
    if (o->first_min)
        (void)warp_earliest(sm, sc, o->first_min, &mem);
    return mem;
}

/* One step of SM smi at its current time (< end): issue on every sub-core that can,
 * then move the SM's clock to the next cycle anything can happen, or to the epoch's
 * end when only L2 outcomes (resolved there) or other SMs can unblock it. Touches only
 * this SM's state, the L1 half of the hierarchy for this SM, and its blocks.
 *
 * sm->wake[sc] is a cycle before which no warp of sub-core sc can issue: the minimum of
 * its warps' earliest cycles at its last full scan. It stays a lower bound because
 * those only grow (units and the LSU free up later, never earlier) except through the
 * events that lower it: an issue on that sub-core or blocks placed or retired (to 0),
 * a barrier release or an L2 outcome (to the warp's operand-ready cycle, wake_lower).
 * Skipping such sub-cores leaves every decision unchanged; when nothing issues, their
 * exact next cycles are recomputed (and become their wake bounds). A quick scan
 * (scan_subcore) that leaves only a lower bound is treated the same way. */
static inline __attribute__((always_inline)) void step(sim *s, unsigned smi, uint64_t end,
                                                       const int lrr, const scan_tune *q)
{
    ssm *sm = &s->sms[smi];
    uint64_t t = sm->now;
    int issued_any = 0;
    /* (kept in locals: issue's stores through pointers would make the compiler reload
     * them from s and sm for every sub-core) */
    const unsigned nsub = s->nsub, n = s->row_cap;
    uint64_t *wake = sm->wake;
    scan_out so[GF_MAX_SUBCORES];
    /* bit sc: sub-core sc not scanned (t being below its wake bound) or, also in
     * partial, its quick scan left only a lower bound */
    unsigned skipped = 0, partial = 0;
    for (unsigned sc = 0; sc < nsub; sc++) {
        if (t < wake[sc]) {
            skipped |= 1u << sc;
            continue;
        }
        swarp **list = sm->view[sc].list;
        const scan_ent *ents = sm->view[sc].ents;
        int pick = -1;
        /* GTO keeps issuing from the last warp while it can, else takes the oldest ready
         * one; LRR starts looking after the last one issued (set_last). */
        if (!lrr && sm->last[sc] >= 0 && n) {
            int li = sm->last[sc], mw; /* a position < n (row_remove clears it) */
            if (ents[li].run && warp_earliest(sm, sc, &ents[li], &mw) <= t)
                pick = li;
        }
        if (pick < 0)
            pick = scan_subcore(s, sm, sc, t, &so[sc], SCAN_QUICK, q);
        if (pick >= 0) {
            swarp *w = list[pick];
            sm->last_unit[sc] = ents[pick].unit;
            issue(s, smi, w, t);
            set_last(s, sm, sc, pick);
            wake[sc] = 0;
            issued_any = 1;
            if (w->state == W_DONE)
                row_remove(s, sm, sc, (unsigned)pick);
        } else {
            /* the exact minimum, or a lower bound (-2) */
            wake[sc] = pick == -2 ? so[sc].gate : so[sc].next;
            skipped |= (unsigned)(pick == -2) << sc;
            partial |= (unsigned)(pick == -2) << sc;
        }
    }
    if (issued_any) {
        sm->now = t + 1;
        return;
    }
    /* The SM's next cycle is the least of the sub-cores' exact ones (ties to the first
     * sub-core). One not scanned in full (bit in skipped) has wake[sc] below its exact
     * cycle: it needs its full scan only when that bound does not exceed the least
     * exact cycle known so far, which only falls, so one pass settles them all. */
    uint64_t least = UINT64_MAX;
    for (unsigned sc = 0; sc < nsub; sc++)
        if (!(skipped >> sc & 1u) && so[sc].next < least)
            least = so[sc].next;
    for (unsigned sc = 0; sc < nsub; sc++) {
        if (!(skipped >> sc & 1u) || wake[sc] > least)
            continue;
        int rest = partial >> sc & 1u;
        if (!rest && wake[sc] == UINT64_MAX) { /* (a bound of "never" is exact) */
            so[sc].next = UINT64_MAX;
            so[sc].first_min = NULL;
        } else {
            /* a quick scan's rest, or a full scan of a sub-core skipped for its bound */
            (void)scan_subcore(s, sm, sc, t, &so[sc], rest ? SCAN_REST : SCAN_FULL, q);
            wake[sc] = so[sc].next;
        }
        skipped &= ~(1u << sc);
        least = so[sc].next < least ? so[sc].next : least;
    }
    uint64_t next = UINT64_MAX;
    int next_mem = 0, waiting = 0;
    unsigned best = nsub;
    for (unsigned sc = 0; sc < nsub; sc++) {
        waiting |= sm->nwait[sc] > 0;
        if (!(skipped >> sc & 1u) && so[sc].next < next) {
            next = so[sc].next;
            best = sc;
        }
    }
    if (best < nsub)
        next_mem = scan_mem(sm, best, &so[best]);
    if (next != UINT64_MAX && next < end) {
        if (next_mem)
            sm->mem_stall += next - t;
    } else {
        /* Nothing before the epoch's end: warps wait for L2 outcomes (a memory stall), at
         * a barrier, or for blocks that are handed out there. The SM sleeps until its
         * next known cycle (the epoch's end if none); a memory stall is counted for all
         * of it, and the part an outcome cuts short is taken back (stall_back). */
        next = next == UINT64_MAX ? end : next;
        if (waiting || next_mem) {
            sm->mem_stall += next - t;
            sm->stall_to = next;
        }
    }
    sm->now = next;
}

/* The SM wakes at cycle now (earlier than it planned): stall counted past it is undone. */
static void stall_back(ssm *sm, uint64_t now)
{
    if (sm->stall_to > now) {
        sm->mem_stall -= sm->stall_to - now;
        sm->stall_to = now;
    }
    sm->now = now;
}

/* Starts fetching what SM smi's next run will touch while an earlier SM runs: each
 * epoch visits all SMs in turn, so by its turn an SM's warps (two lines each, at
 * scattered addresses), their next shape ids, register readiness and pool records have
 * been evicted by the other SMs', and issue and warp_prepare stalled on them (perf
 * annotate: ~45 % of issue's time on the load of w->ids). Two passes, as the second
 * reads the swarps to find its addresses: shallow (the scan entries and swarps) three
 * SMs ahead, deep (what the swarps point to) one ahead; two and one was 3 % slower on
 * SGEMM 512, four and two no better. CPU seconds on one core against none, ABBA pairs
 * (bench/README, 2026-11-25 seventh session): SGEMM 512 0.90, vecadd 522 MB 0.88. */
static void prefetch_sm(const sim *s, unsigned smi, int deep, uint64_t end)
{
    const ssm *sm = &s->sms[smi];
    unsigned row = s->bps * s->warps_per_block;
    for (unsigned sc = 0; sc < s->nsub; sc++) {
        swarp *const *list = sm->sub + sc * row;
        if (!deep)
            for (size_t k = 0; k < s->row_cap * sizeof(scan_ent); k += 64)
                __builtin_prefetch((const char *)(sm->ent + sc * row) + k);
        for (unsigned i = 0; i < s->row_cap; i++) {
            const swarp *w = list[i];
            if (!w)
                continue;
            if (!deep) {
                __builtin_prefetch(w);
                __builtin_prefetch((const char *)w + 64);
                continue;
            }
            /* (nor for warps that cannot issue before the epoch ends: waiting for an
             * outcome, or parked) */
            if (w->state == W_DONE || w->pc - w->win0 >= w->n ||
                (w->ent && w->ent->opready >= end))
                continue;
            if (w->ids != s->rp_ids) /* (the shared stream is hot: every warp reads it) */
                __builtin_prefetch(w->ids + (w->pc - w->win0));
            const char *r = (const char *)w->ready;
            /* (malloc's 16-byte alignment: the array's last line may be one more) */
            for (size_t k = 0; k < w->nslots * sizeof(uint64_t); k += 64)
                __builtin_prefetch(r + k);
            if (w->nslots)
                __builtin_prefetch(r + w->nslots * sizeof(uint64_t) - 1);
            /* a memory record (~60 B for 4 sectors) mostly straddles two lines: both;
             * CPU time ABBA 0.93-0.96 on vecadd 522 MB and SGEMM 512 against one */
            __builtin_prefetch(w->pool + w->pcur);
            __builtin_prefetch(w->pool + w->pcur + 63);
        }
    }
    if (deep)
        for (unsigned k = 0; k < sm->npf; k++)
            gf_hier_prefetch_l1(s->hier, smi, sm->pf[k]);
}

/* (step is compiled once per scheduler, so that neither tests which one per sub-core) */
static void run_sm(sim *s, unsigned smi, uint64_t end)
{
    ssm *sm = &s->sms[smi];
    const scan_tune q = scan_tune_of(s);
    sm->npf = 0; /* (prefetch_sm has fetched them, or will not: the first SM of a thread) */
    if (s->lrr)
        while (sm->resident && sm->now < end)
            step(s, smi, end, 1, &q);
    else
        while (sm->resident && sm->now < end)
            step(s, smi, end, 0, &q);
}

/* The epoch's two parallel phases run on a pool of threads: SMs (each thread a
 * contiguous range, so threads do not share ssm cache lines), then L2 slices (each
 * slice's requests in their global order). Which thread runs an SM or a slice never
 * changes what it computes, so every result is the same for any thread count. */
enum pool_phase { PHASE_SMS = 0, PHASE_SLICES = 1 };

struct l2item {
    const gf_l2_req *req;
    unsigned hits, dram;
};

typedef struct pool {
    sim *s;
    unsigned n;
    uint64_t end;
    int quit, phase;
    /* Start gate: workers wait here until every thread exists (1) or the pool is
     * abandoned (2), so a failed pthread_create never leaves one inside a barrier. */
    pthread_mutex_t gate_mu;
    pthread_cond_t gate_cv;
    int gate;
    pthread_barrier_t go, done;
    pthread_t *tids;
    unsigned started;
    /* PHASE_SLICES: items of slice i are items[first[i] .. first[i+1]) */
    struct l2item *items;
    size_t *first;
} pool;

/* ---------------------------------------------------------------- epochs */

static int pend_cmp(const void *a, const void *b)
{
    const pend *x = *(const pend *const *)a, *y = *(const pend *const *)b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sends this epoch's L2 requests in global issue order (time, SM, order within the SM),
 * which is what one thread stepping the SMs in time order would produce — each slice
 * sees its requests in that order, slices in parallel — and completes the instructions
 * waiting for them. */
static void run_phase(pool *p);

/* Puts the epoch's pending instructions in (time, SM, order) sequence in all[]. Their
 * times lie within one epoch, so a counting sort by time, filling SM by SM in issue
 * order (it is stable), gives that sequence in linear time; the comparison sort is
 * kept for the unexpected case of a wide range or no memory for the counts. */
static void order_pending(sim *s, pend **all, size_t total, size_t **tcount, size_t *tcap)
{
    unsigned nsm = s->gpu->num_sms;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (unsigned i = 0; i < nsm; i++)
        for (size_t j = 0; j < s->sms[i].npend; j++) {
            uint64_t t = s->sms[i].pend[j].t;
            lo = t < lo ? t : lo;
            hi = t > hi ? t : hi;
        }
    void *p = *tcount;
    if (hi - lo < 65536 && gf_grow(&p, tcap, (size_t)(hi - lo) + 2, sizeof(size_t)) == 0) {
        size_t *c = *tcount = p;
        size_t span = (size_t)(hi - lo) + 1;
        memset(c, 0, (span + 1) * sizeof *c);
        for (unsigned i = 0; i < nsm; i++)
            for (size_t j = 0; j < s->sms[i].npend; j++)
                c[s->sms[i].pend[j].t - lo + 1]++;
        for (size_t b = 0; b < span; b++)
            c[b + 1] += c[b];
        for (unsigned i = 0; i < nsm; i++)
            for (size_t j = 0; j < s->sms[i].npend; j++)
                all[c[s->sms[i].pend[j].t - lo]++] = &s->sms[i].pend[j];
        return;
    }
    *tcount = p;
    size_t k = 0;
    for (unsigned i = 0; i < nsm; i++)
        for (size_t j = 0; j < s->sms[i].npend; j++)
            all[k++] = &s->sms[i].pend[j];
    qsort(all, total, sizeof *all, pend_cmp);
}

/* A spilled window that could not be read back stops the kernel with the reason. */
static gf_status spill_check(const sim *s, gf_error *err)
{
    for (unsigned i = 0; i < s->gpu->num_sms; i++)
        for (unsigned k = 0; k < s->bps; k++) {
            const sblock *b = s->sms[i].slots[k];
            if (b && b->ioerr)
                return gf_error_set(err, GF_ERR_IO, gf_spill_dir(s->spill), 0,
                                    "cannot read back spilled instructions of kernel %s from "
                                    "the spill file in %s: %s",
                                    s->ki->name, gf_spill_dir(s->spill), strerror(b->ioerr));
        }
    return GF_OK;
}

/* Outcomes ahead whose warps resolve_epoch prefetches (see there). */
#define RESOLVE_AHEAD 16u

static gf_status resolve_epoch(sim *s, pool *pl, pend ***scratch, size_t *scap,
                               size_t **tcount, size_t *tcap, struct l2item **items,
                               size_t *icap, size_t *f, gf_error *err)
{
    const gf_gpu *g = s->gpu;
    uint64_t end = pl->end;
    size_t total = 0, nreq = 0;
    gf_status sst;
    if (s->spill && (sst = spill_check(s, err)) != GF_OK)
        return sst;
    for (unsigned i = 0; i < g->num_sms; i++) {
        if (s->sms[i].nomem)
            return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), 0,
                                "out of memory tracking memory requests");
        total += s->sms[i].npend;
        nreq += s->sms[i].nreqs;
    }
    if (!total)
        return GF_OK;
    void *p = *scratch, *q = *items;
    if (gf_grow(&p, scap, total, sizeof(pend *)) != 0 ||
        gf_grow(&q, icap, nreq, sizeof(struct l2item)) != 0) {
        *scratch = p;
        *items = q;
        return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), 0, "out of memory");
    }
    *scratch = p;
    *items = q;
    pend **all = *scratch;
    order_pending(s, all, total, tcount, tcap);
    /* Bucket the requests by slice, keeping the global order inside each slice. */
    unsigned nsl = g->l2_slices ? g->l2_slices : 1;
    memset(f, 0, (nsl + 1) * sizeof *f);
    for (size_t j = 0; j < total; j++)
        for (uint32_t r = 0; r < all[j]->nreq; r++)
            f[s->sms[all[j]->sm].reqslice[all[j]->req0 + r] + 1]++;
    for (unsigned i = 0; i < nsl; i++)
        f[i + 1] += f[i];
    size_t *fill = f + nsl + 1; /* second half of the buffer: next free position */
    memcpy(fill, f, nsl * sizeof *f);
    for (size_t j = 0; j < total; j++)
        for (uint32_t r = 0; r < all[j]->nreq; r++) {
            const ssm *sm = &s->sms[all[j]->sm];
            (*items)[fill[sm->reqslice[all[j]->req0 + r]]++].req = &sm->reqs[all[j]->req0 + r];
        }
    pl->items = *items;
    pl->first = f;
    pl->phase = PHASE_SLICES;
    run_phase(pl);
    pl->phase = PHASE_SMS;
    /* Back in global order: each instruction's requests, slice by slice as bucketed. */
    memcpy(fill, f, nsl * sizeof *f);
    for (size_t j = 0; j < total; j++) {
        /* each outcome touches its warp, which the SMs' runs have long evicted: fetch
         * the warps RESOLVE_AHEAD on, and their registers and scan entries half as far */
        if (j + RESOLVE_AHEAD < total)
            __builtin_prefetch(all[j + RESOLVE_AHEAD]->w);
        if (j + RESOLVE_AHEAD / 2 < total) {
            const swarp *pw = all[j + RESOLVE_AHEAD / 2]->w;
            __builtin_prefetch(pw->ready);
            __builtin_prefetch(pw->ent);
            __builtin_prefetch((const char *)pw + 64);
        }
        pend *pq = all[j];
        ssm *sm = &s->sms[pq->sm];
        swarp *w = pq->w;
        unsigned dram = 0;
        for (uint32_t r = 0; r < pq->nreq; r++) {
            const struct l2item *it = &(*items)[fill[sm->reqslice[pq->req0 + r]]++];
            dram += it->dram;
        }
        gf_level worst = dram ? GF_LEVEL_DRAM : GF_LEVEL_L2;
        unsigned lat = level_latency(s, worst);
        uint64_t done = pq->t + pq->stage + lat;
        for (unsigned i = 0; i < pq->ndst; i++) {
            uint16_t r = pq->dst[i];
            w->ready[r] = done | READY_FROM_MEM;
        }
        warp_prepare(w);
        wake_lower(sm, w);
        if (done > sm->last_done)
            sm->last_done = done;
        if (done < sm->now && sm->now > end)
            stall_back(sm, done > end ? done : end);
        s->res->l2_sectors += pq->past_l1;
        s->res->dram_sectors += dram;
        if (dram) {
            track_rows(s, sm->psect + pq->sect0, pq->nsect, dram);
        }
        s->miss_latency_sum += lat;
        s->miss_accesses++;
        if (pq->load) {
            s->load_latency_sum += lat;
            s->load_accesses++;
        }
        w->block->pending--;
    }
    for (unsigned i = 0; i < g->num_sms; i++)
        s->sms[i].npend = s->sms[i].nreqs = s->sms[i].npsect = 0;
    return GF_OK;
}

typedef struct retire_ev {
    uint64_t t;
    unsigned sm, slot;
} retire_ev;

static int retire_cmp(const void *a, const void *b)
{
    const retire_ev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* Retires the blocks that finished (all warps exited, no outcome pending) and hands the
 * next blocks of the trace to their slots in the order the slots freed — the hardware
 * block scheduler's "next free SM". A new block starts at the later of its slot's
 * freeing plus the launch overhead and the epoch's end (so up to one epoch late).
 * *progress is set when anything retired. */
static gf_status retire_and_refill(sim *s, uint64_t end, retire_ev **evs, size_t *cap,
                                   int *progress, gf_error *err)
{
    const gf_gpu *g = s->gpu;
    size_t n = 0;
    for (unsigned i = 0; i < g->num_sms; i++)
        for (unsigned k = 0; k < s->bps; k++) {
            sblock *b = s->sms[i].slots[k];
            if (!(b && b->live == 0 && b->pending == 0))
                continue;
            void *p = *evs;
            if (gf_grow(&p, cap, n + 1, sizeof(retire_ev)) != 0)
                return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), 0,
                                    "out of memory");
            *evs = p;
            (*evs)[n++] = (retire_ev){b->done, i, k};
        }
    if (n)
        qsort(*evs, n, sizeof **evs, retire_cmp);
    for (size_t j = 0; j < n; j++) {
        ssm *sm = &s->sms[(*evs)[j].sm];
        unsigned k = (*evs)[j].slot;
        sblock *b = sm->slots[k];
        /* Nsight counts a warp active from launch to exit; the block's last exit
         * bounds that (warps that exit early are over-counted). */
        uint64_t bend = b->done > b->start ? b->done : b->start;
        s->res->warp_cycles_resident += (double)b->nwarps * (double)(bend - b->start);
        sm->slots[k] = NULL;
        sm->resident--;
        block_release(s, b);
        put_spare(s, b);
        *progress = 1;
        sblock *nb;
        gf_status st = read_block(s, &nb, err);
        if (st != GF_OK)
            return st;
        if (nb) {
            uint64_t start = (*evs)[j].t + g->block_launch_cycles;
            if (start < end)
                start = end;
            place_block(s, (*evs)[j].sm, k, nb, start);
            if (sm->now > start)
                stall_back(sm, start);
            else if (sm->resident == 1)
                sm->now = start;
        }
    }
    return GF_OK;
}


typedef struct worker_arg {
    pool *p;
    unsigned k;
} worker_arg;

static void run_share(pool *p, unsigned k)
{
    sim *s = p->s;
    unsigned n = p->phase == PHASE_SMS ? s->gpu->num_sms
                                       : (s->gpu->l2_slices ? s->gpu->l2_slices : 1);
    unsigned lo = (unsigned)((unsigned long long)n * k / p->n);
    unsigned hi = (unsigned)((unsigned long long)n * (k + 1) / p->n);
    for (unsigned i = lo; i < hi; i++) {
        if (p->phase == PHASE_SMS) {
            if (i + 3 < hi)
                prefetch_sm(s, i + 3, 0, p->end);
            if (i + 1 < hi)
                prefetch_sm(s, i + 1, 1, p->end);
            run_sm(s, i, p->end);
            continue;
        }
        for (size_t j = p->first[i]; j < p->first[i + 1]; j++)
            gf_hier_l2_line(s->hier, i, p->items[j].req, &p->items[j].hits, &p->items[j].dram);
    }
}

/* Runs the current phase on every thread of the pool (or inline). */
static void run_phase(pool *p)
{
    if (p->n > 1) {
        pthread_barrier_wait(&p->go);
        run_share(p, 0);
        pthread_barrier_wait(&p->done);
    } else {
        run_share(p, 0);
    }
}

static void *worker_main(void *arg)
{
    worker_arg *a = arg;
    pool *p = a->p;
    pthread_mutex_lock(&p->gate_mu);
    while (p->gate == 0)
        pthread_cond_wait(&p->gate_cv, &p->gate_mu);
    int go = p->gate == 1;
    pthread_mutex_unlock(&p->gate_mu);
    if (!go)
        return NULL;
    for (;;) {
        pthread_barrier_wait(&p->go);
        if (p->quit)
            return NULL;
        run_share(p, a->k);
        pthread_barrier_wait(&p->done);
    }
}

static gf_status run_epochs(sim *s, uint64_t t0, gf_error *err)
{
    const gf_gpu *g = s->gpu;
    pool p = {.s = s, .n = s->opt->threads > 1 ? s->opt->threads : 1};
    if (p.n > g->num_sms)
        p.n = g->num_sms;
    if (p.n > 256)
        p.n = 256;
    worker_arg *args = NULL;
    int gate_made = 0;
    if (p.n > 1) {
        args = gf_calloc(p.n, sizeof *args);
        p.tids = gf_calloc(p.n, sizeof *p.tids);
        gate_made = pthread_mutex_init(&p.gate_mu, NULL) == 0;
        if (gate_made && pthread_cond_init(&p.gate_cv, NULL) != 0) {
            pthread_mutex_destroy(&p.gate_mu);
            gate_made = 0;
        }
        int ok = args && p.tids && gate_made;
        int go_made = ok && pthread_barrier_init(&p.go, NULL, p.n) == 0;
        int done_made = go_made && pthread_barrier_init(&p.done, NULL, p.n) == 0;
        ok = ok && go_made && done_made;
        for (unsigned k = 1; ok && k < p.n; k++) {
            args[k] = (worker_arg){&p, k};
            if (pthread_create(&p.tids[k], NULL, worker_main, &args[k]) != 0)
                ok = 0;
            else
                p.started++;
        }
        if (gate_made) {
            pthread_mutex_lock(&p.gate_mu);
            p.gate = ok ? 1 : 2;
            pthread_cond_broadcast(&p.gate_cv);
            pthread_mutex_unlock(&p.gate_mu);
        }
        if (!ok) {
            /* Could not start them all: the started ones leave at the gate; go on with
             * the calling thread alone (same results, only slower). */
            for (unsigned k = 1; k <= p.started; k++)
                pthread_join(p.tids[k], NULL);
            if (done_made)
                pthread_barrier_destroy(&p.done);
            if (go_made)
                pthread_barrier_destroy(&p.go);
            p.started = 0;
            p.n = 1;
        }
    }
    pend **scratch = NULL;
    size_t *tcount = NULL;
    size_t scap = 0, ecap = 0, icap = 0, tcap = 0;
    retire_ev *evs = NULL;
    struct l2item *items = NULL;
    unsigned nsl = g->l2_slices ? g->l2_slices : 1;
    size_t *first = gf_calloc(2 * (size_t)nsl + 1, sizeof *first);
    gf_status st = first ? GF_OK
                         : gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(s->r), 0,
                                        "out of memory");
    uint64_t t = t0;
    unsigned stuck = 0;
    while (st == GF_OK) {
        p.end = t + s->epoch;
        uint64_t issued_before = 0, issued_after = 0;
        for (unsigned i = 0; i < g->num_sms; i++)
            issued_before += s->sms[i].issued;
        run_phase(&p);
        for (unsigned i = 0; i < g->num_sms; i++)
            issued_after += s->sms[i].issued;
        int progress = issued_after != issued_before;
        size_t npend = 0;
        for (unsigned i = 0; i < g->num_sms; i++)
            npend += s->sms[i].npend;
        progress |= npend > 0;
        if ((st = resolve_epoch(s, &p, &scratch, &scap, &tcount, &tcap, &items, &icap,
                                 first, err)) != GF_OK)
            break;
        if ((st = retire_and_refill(s, p.end, &evs, &ecap, &progress, err)) != GF_OK)
            break;
        /* Next epoch: skip ahead to the first SM with something to do. */
        uint64_t next = UINT64_MAX;
        for (unsigned i = 0; i < g->num_sms; i++)
            if (s->sms[i].resident && s->sms[i].now < next)
                next = s->sms[i].now;
        if (next == UINT64_MAX)
            break; /* no resident blocks left: the trace is done (refill read to its end) */
        stuck = progress ? 0 : stuck + 1;
        if (stuck > 2 && next <= p.end) {
            st = gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(s->r), 0,
                              "kernel %s: warps wait at a barrier that the rest of their "
                              "block never reaches",
                              s->ki->name);
            break;
        }
        t = next > p.end ? next : p.end;
    }
    if (p.n > 1) {
        p.quit = 1;
        pthread_barrier_wait(&p.go);
        for (unsigned k = 1; k < p.n; k++)
            pthread_join(p.tids[k], NULL);
        pthread_barrier_destroy(&p.go);
        pthread_barrier_destroy(&p.done);
    }
    if (gate_made) {
        pthread_cond_destroy(&p.gate_cv);
        pthread_mutex_destroy(&p.gate_mu);
    }
    free(args);
    free(p.tids);
    free(scratch);
    free(tcount);
    free(evs);
    free(items);
    free(first);
    return st;
}

/* ---------------------------------------------------------------- driver */

static void sim_free(sim *s)
{
    if (s->sms)
        for (unsigned i = 0; i < s->gpu->num_sms; i++) {
            if (s->sms[i].slots)
                for (unsigned k = 0; k < s->bps; k++)
                    block_free(s->sms[i].slots[k]);
            free(s->sms[i].slots);
            free(s->sms[i].unit_free);
            free(s->sms[i].last);
            free(s->sms[i].sub);
            free(s->sms[i].wake);
            free(s->sms[i].ent);
            free(s->sms[i].cand);
            free(s->sms[i].nwait);
            free(s->sms[i].pend);
            free(s->sms[i].reqs);
            free(s->sms[i].reqslice);
            free(s->sms[i].psect);
        }
    free(s->sms);
    free(s->open_row);
    free(s->shmem_memo);
    free(s->coal_memo);
    free(s->shpat_memo);
    free(s->rp);
    free(s->rpl);
    free(s->rp_ids);
    free(s->rp_text);
    for (unsigned k = 0; k < s->shape_nchunks; k++)
        free(s->shape_chunk[k]);
    free(s->shape_hash);
    free(s->shape_next);
    gf_spill_close(s->spill);
    while (s->spare) {
        sblock *b = s->spare;
        s->spare = b->next;
        block_free(b);
    }
}

gf_status gf_ksim_run(gf_kreader *r, const gf_gpu *gpu, gf_isa *isa, gf_hier *hier,
                      const gf_ksim_options *opt, gf_ksim_result *out, gf_error *err)
{
    memset(out, 0, sizeof *out);
    const gf_kernel_info *ki = gf_kreader_info(r);
    unsigned long long threads = (unsigned long long)ki->block[0] * ki->block[1] * ki->block[2];
    unsigned long long blocks = (unsigned long long)ki->grid[0] * ki->grid[1] * ki->grid[2];
    if (threads == 0 || threads > 4096)
        return gf_error_set(err, GF_ERR_PARSE, gf_kreader_path(r), 0,
                            "kernel %s: block dim (%u,%u,%u) is not a valid block", ki->name,
                            ki->block[0], ki->block[1], ki->block[2]);
    if (gpu->subcores_per_sm > GF_MAX_SUBCORES) /* model.c bounds it; step's arrays rely on it */
        return gf_error_set(err, GF_ERR_INVALID, gf_kreader_path(r), 0,
                            "sm.subcores = %u; at most %u are supported", gpu->subcores_per_sm,
                            GF_MAX_SUBCORES);
    gf_status st = gf_occupancy_compute(gpu, (unsigned)threads, ki->nregs, ki->shmem, blocks,
                                        &out->occ, err);
    if (st != GF_OK) {
        char msg[sizeof err->message];
        snprintf(msg, sizeof msg, "kernel %.300s cannot run on %.60s: %.500s", ki->name, gpu->name,
                 err ? err->message : "");
        return gf_error_set(err, st, gf_kreader_path(r), 0, "%s", msg);
    }
    if ((st = gf_hier_begin_kernel(hier, out->occ.l1_size, err)) != GF_OK)
        return st;

    sim *s = calloc(1, sizeof *s);
    if (!s)
        return gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(r), 0, "out of memory");
    s->gpu = gpu;
    s->lat_l2 = gf_gpu_l2_latency(gpu);
    s->lat_dram = s->lat_l2 + gf_gpu_dram_latency(gpu);
    s->isa = isa;
    s->hier = hier;
    s->opt = opt;
    s->r = r;
    gf_kreader_set_lazy_strides(r, 1);
    s->ki = ki;
    s->shape_first = s->shape_prev = SHAPE_INLINE;
    s->rp_runs = 1;
    if (!opt->no_share) /* NULL: every warp keeps its own */
        s->rp_ids = malloc(REPLAY_MAX * sizeof *s->rp_ids);
    s->res = out;
    s->nsub = gpu->subcores_per_sm ? gpu->subcores_per_sm : 1;
    s->bps = out->occ.blocks_per_sm;
    s->warps_per_block = (unsigned)((threads + GF_WARP_SIZE - 1) / GF_WARP_SIZE);
    s->per_slot = (s->warps_per_block + s->nsub - 1) / s->nsub;
    s->row_cap = s->bps * s->per_slot;
    s->lrr = gpu->warp_scheduler == GF_WARP_SCHED_LRR;
    s->quick = opt->no_quick ? 0 : UINT64_MAX;
    s->sms = gf_calloc(gpu->num_sms, sizeof *s->sms);
    s->open_row = gf_calloc((size_t)(gpu->dram_channels ? gpu->dram_channels : 1) *
                                (gpu->dram_banks ? gpu->dram_banks : 1),
                            sizeof *s->open_row);
    if (!s->sms || !s->open_row)
        goto nomem;
    for (unsigned i = 0; i < gpu->num_sms; i++) {
        ssm *sm = &s->sms[i];
        sm->slots = gf_calloc(s->bps, sizeof *sm->slots);
        sm->unit_free = gf_calloc((size_t)s->nsub * GF_UNIT_COUNT, sizeof *sm->unit_free);
        sm->last = gf_calloc(s->nsub, sizeof *sm->last);
        sm->sub = gf_calloc((size_t)s->nsub * s->bps * s->warps_per_block, sizeof *sm->sub);
        sm->wake = gf_calloc(s->nsub, sizeof *sm->wake);
        sm->ent = gf_calloc((size_t)s->nsub * s->bps * s->warps_per_block, sizeof *sm->ent);
        sm->cand_words = (s->row_cap + 63) / 64;
        sm->cand = gf_calloc((size_t)s->nsub * CAND_GROUP * sm->cand_words, sizeof *sm->cand);
        sm->nwait = gf_calloc(s->nsub, sizeof *sm->nwait);
        if (!sm->slots || !sm->unit_free || !sm->last || !sm->sub ||
            !sm->wake || !sm->ent || !sm->cand || !sm->nwait)
            goto nomem;
        for (unsigned k = 0; k < s->nsub; k++) {
            size_t row = (size_t)s->bps * s->warps_per_block;
            sm->last[k] = -1;
            sm->scan_from[k] = 0;
            sm->park_min[k] = UINT64_MAX;
            sm->view[k].list = sm->sub + k * row;
            sm->view[k].ents = sm->ent + k * row;
            sm->view[k].bits = sm->cand + (size_t)k * CAND_GROUP * sm->cand_words;
            sm->view[k].unit_free = sm->unit_free + k * GF_UNIT_COUNT;
        }
    }
    /* First wave: the block scheduler hands blocks out breadth-first, one per SM in
     * turn, until every SM is full or the grid runs out. */
    uint64_t t0 = gpu->block_launch_cycles;
    for (unsigned k = 0; k < s->bps && !s->trace_done; k++)
        for (unsigned i = 0; i < gpu->num_sms && !s->trace_done; i++) {
            sblock *b;
            if ((st = read_block(s, &b, err)) != GF_OK)
                goto fail;
            if (b)
                place_block(s, i, k, b, t0);
        }
    for (unsigned i = 0; i < gpu->num_sms; i++)
        s->sms[i].now = t0;
    /* Epochs no longer than the L2 latency: an instruction's L2 outcome, resolved at the
     * end of its epoch, can never be needed inside it (seeds/parallel-gpu-simulation-
     * workgroup.txt: SMs interact only through the memory system). 64 cycles or less
     * keeps the delay of blocks handed out at epoch ends small. */
    s->epoch = s->lat_l2 < 64 ? (s->lat_l2 ? s->lat_l2 : 1) : 64;
    if ((st = run_epochs(s, t0, err)) != GF_OK)
        goto fail;
    /* Summaries. */
    double sum = 0;
    for (unsigned i = 0; i < gpu->num_sms; i++) {
        ssm *sm = &s->sms[i];
        for (unsigned u = 0; u < GF_UNIT_COUNT; u++)
            out->unit_busy[u] += sm->unit_busy[u];
        out->mem_insts += sm->mem_insts;
        if (!sm->started)
            continue;
        uint64_t c = sm->last_done - sm->first_issue + gpu->block_launch_cycles;
        out->sms_used++;
        sum += (double)c;
        if (c > out->sm_cycles_max) {
            out->sm_cycles_max = c;
            out->critical_sm = i;
            out->crit_mem_stall_cycles = sm->mem_stall;
            out->crit_l1_miss_sectors = sm->miss_sectors;
        }
        if (sm->miss_sectors > out->max_l1_miss_sectors_sm)
            out->max_l1_miss_sectors_sm = sm->miss_sectors;
        if (sm->load_miss_sectors > out->max_l1_load_miss_sectors_sm)
            out->max_l1_load_miss_sectors_sm = sm->load_miss_sectors;
        out->partial_store_sectors += sm->partial_stores;
        if (sm->lsu_cycles > out->max_lsu_cycles_sm)
            out->max_lsu_cycles_sm = sm->lsu_cycles;
    }
    out->sm_cycles_avg = out->sms_used ? sum / out->sms_used : 0;
    out->mean_miss_latency = s->miss_accesses ? s->miss_latency_sum / (double)s->miss_accesses
                                              : (double)s->lat_l2;
    out->mean_load_miss_latency = s->load_accesses
                                      ? s->load_latency_sum / (double)s->load_accesses
                                      : out->mean_miss_latency;
    sim_free(s);
    free(s);
    return GF_OK;
nomem:
    st = gf_error_set(err, GF_ERR_NOMEM, gf_kreader_path(r), 0, "out of memory");
fail:
    sim_free(s);
    free(s);
    return st;
}
