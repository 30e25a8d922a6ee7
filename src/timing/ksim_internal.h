/*
 * The issue model's private types and the few helpers its files share (kernel_sim.c and
 * the ksim_*.c files; nothing outside src/timing includes this).
 *
 * The structures, and their invariants:
 *  - shape: a decoded instruction without what differs between warps; the kernel's
 *    shape table (sim.shape_chunk) only grows, and only while blocks are read (serially,
 *    ksim_decode.c), so SM threads read it without locks. Shapes are never changed
 *    once stored.
 *  - swarp: a resident warp. Instruction pc is ids[pc - win0] while pc < win0 + n, its
 *    pool data (inline shape, memory record) at pool[pcur]. Its cached readiness
 *    (opready, opmem, unit, lsu, nshape) changes only when it issues, is released from
 *    a barrier or gets an L2 outcome; each such change goes through ksim_warp_prepare
 *    (or warp_prepare_inline), which copies it to its scan_ent and candidate bits
 *    (warp_mirror), and, where the warp can issue earlier than its sub-core's wake
 *    bound, through wake_lower.
 *  - scan_ent and ssm.cand mirror the swarps of an SM's rows; only warp_mirror and
 *    list_warp/row_remove (ksim_issue.c) write them.
 *  - ready[r]: the cycle register slot r is readable, READY_FROM_MEM set when a load
 *    produces it; UINT64_MAX while the load waits for its L2 outcome.
 *  - sblock: retires only when live == 0 (every warp done) and pending == 0 (no pend
 *    left); sim.held is the sum of the resident blocks' held bytes.
 *  - pend and an SM's reqs/reqslice/psect live for one epoch: filled by issue_mem,
 *    consumed and emptied by resolve_epoch.
 *
 * Who touches what: during an epoch's SM phase (ksim_run_sm, on any thread of the
 * pool) SM i touches only sms[i], the blocks in its slots and their warps, the L1 half
 * of the hierarchy for SM i and, read only, the shape table and the shared id stream;
 * a spilled warp also reads its window back (ksim_warp_load_window). During the L2
 * phase each thread touches only its slices. Everything else — reading and decoding
 * blocks, resolving outcomes, retiring and refilling, the driver — runs on the calling
 * thread between phases and may touch any of it. So results do not depend on the
 * number of threads.
 *
 * Prefix of functions shared between the files: ksim_ (declared at the end); all else
 * is static to its file.
 */
#ifndef GF_TIMING_KSIM_INTERNAL_H
#define GF_TIMING_KSIM_INTERNAL_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "memory/coalesce.h"
#include "timing/kernel_sim.h"
#include "timing/spill.h"
#include "sass/opcode.h"
#include "trace/spin.h"

/* KSIM_ASSERT(x): an invariant stated above, checked in builds without NDEBUG (Debug and
 * the Sanitize build CI runs the tests under); nothing in RelWithDebInfo and Release. */
#define KSIM_ASSERT(x) assert(x)

/* sm.subcores is at most 16 (gpu/model.c key table). */
#define GF_MAX_SUBCORES 16u
/* the largest l1.lsu_queue (gpu/model.c) */
#define LSU_QUEUE_MAX 64u
/* Words per 64 warps of a sub-core's row in ssm.cand: candidates, LSU users, per unit,
 * parked, and those of the parked whose operands are ready at park_min (see ssm.cand). */
#define CAND_PARKED (2u + KSIM_UNITS)
#define CAND_PMIN (3u + KSIM_UNITS)
#define CAND_GROUP (4u + KSIM_UNITS)
/* A quick scan parks a warp whose operands are ready more than PARK_FAR cycles on: a
 * load's value, once its L2 outcome is known, which every scan visited again until it
 * came (on the vector add 72 % of the visits to warps waiting for an operand were 64
 * cycles or more early). Parked warps return to the candidates when their operands are
 * PARK_NEAR cycles away, at the first quick scan once the earliest of them is
 * (0: at the scan of that cycle, which unparks them before it visits any); the others
 * stay parked (ksim_issue.c unpark_due; until session 37 all returned together and
 * those still far were parked again at their next visit). (Neither changes a
 * decision. Predict's instructions, callgrind, against 48 and 8: -0.8 % on the H100
 * global-atomics histogram, -0.6 % on its vector add, -1.7 % on stride1, -0.6 % on
 * vecadd 2M titanv, matmul 256 titanv unchanged; 16 and 0 took less off the vector
 * add, 32 and 0 less off the histogram, a PARK_NEAR of 4 or 8 less everywhere.) */
#define PARK_FAR 24u
#define PARK_NEAR 0u

enum inst_kind { K_ALU = 0, K_MEM, K_SHARED, K_BAR, K_EXIT };

/* The issue model's units per sub-core: the ISA's (GF_UNIT_*, an opcode's in
 * models/isa) and the ADU's share (KSIM_UNIT_ADU): each SM has one address divergence
 * unit, which takes the LDCs, S2Rs and BARs at Nsight's peak of 0.5 warp instructions a
 * cycle; the model gives each sub-core a quarter of it, a unit of its own that those
 * instructions take instead of theirs, for gpu adu_interval cycles (ksim_decode.c; 0: not
 * modelled, they keep their units; docs/model.md, "The ADU"). Its busy cycles are not in
 * the pipe counters. */
#define KSIM_UNIT_ADU GF_UNIT_COUNT
#define KSIM_UNITS (GF_UNIT_COUNT + 1u)

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
 * table (sim.shape_chunk), where equal shapes are stored once (ksim_shape.c): warps of
 * one kernel mostly run the same instructions with the same register slots (slots are
 * numbered by first use), so the table stays small and hot in cache while each warp's
 * own stream is 4 bytes an instruction. What does differ per warp (K_MEM's sectors)
 * stays in the warp's pool, read in instruction order through swarp.pcur. */
typedef struct shape {
    uint8_t unit, kind, ndst, nsrc;
    uint16_t latency, interval;
    uint32_t aux;      /* K_SHARED: wavefronts (bits 0-11), bank conflicts (12-23), store
                          flag (24), no active lane (25: occupies the pipe, counts as no
                          request); K_ALU and K_EXIT: cycles the warp waits after
                          issuing it, bits 0-15 for resolving the next PC (a taken
                          branch's redirect, an EXIT's wind-down: sm.branch_taken_cycles,
                          sm.exit_cycles: branch_resolving), 16-31 for fetching the
                          target (sm.fetch_redirect_cycles: no_instruction); 0 otherwise */
    uint16_t regs[];   /* ndst + nsrc register slots (dst then src); RZ and registers past
                          GF_REG_COUNT are left out; async-copy pseudo registers added */
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
                     * bits 2-4: requests - 1 (a local access split by word, local_sectors);
                     * bit 5: a TMA / bulk copy, which the LSU does not carry (MEMREC_BULK) */
    uint8_t wavefronts; /* L1 data-array wavefronts (l1.data_banks), 0 = not modelled */
    uint16_t nsectors, nlines;
} memrec;

#define MEMREC_BULK 32u

static inline size_t memrec_bytes(size_t nsectors, int passes)
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
     * held whole has n = ntot and win0 = pool0 = 0; a spilled one (ksim_spill_flush_warp)
     * holds one window of SPILL_WINDOW instructions and reads the next back at its end;
     * pool0 is where its pool starts in the warp's whole pool. */
    uint32_t ntot, win0, pool0, pcur;
    uint64_t next_issue;
    /* Cached for the next instruction (only this warp writes its registers, so this
     * changes only when the warp issues, is released from a barrier or gets an L2
     * outcome — the events step's wake bound accounts for, see wake_lower): the cycle
     * its operands are ready, where the last one comes from (opmem: bit 1 memory, which
     * alone counts as a memory wait, bit 0 MIO; see READY_MIO), its unit, LSU use. */
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
    uintptr_t nshape;      /* the shape of instruction pc, found by ksim_warp_prepare (issue
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
    /* Its TMA copies in issue order (ksim_mbar.c): 1 + the block's mbarrier phase each
     * completes (sblock.mbp), 0 for none; mbcur: the next copy whose outcome comes. */
    uint32_t *mbq;
    uint32_t nmbq, mbqcap, mbcur;
    uint64_t drain;        /* launch.store_drain: when its last store is acknowledged */
} swarp;

/* swarp.ready: a register's value comes from a memory load (cycles stay below 2^62; a
 * load still waiting for its L2 outcome is UINT64_MAX, which has it too), or from a
 * variable-latency MIO instruction (shared memory, SFU). The two flags, bits 63 and 62,
 * become the warp's opmem (bit 1: memory, bit 0: MIO) for the stall bookkeeping
 * (gf_stall: long_scoreboard, short_scoreboard, else wait); only bit 1 decides anything. */
#define READY_FROM_MEM (UINT64_C(1) << 63)
#define READY_MIO (UINT64_C(1) << 62)
#define CODE_LINE_BITS 65536u /* sim.code_seen */
#define READY_CYCLE (~(READY_FROM_MEM | READY_MIO))

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
    uint64_t mio_wavefronts;       /* gf_ksim_result.mio_wavefronts of its warps */
    struct sblock *next;           /* free list */
    uint64_t start, done; /* placed at; its last warp's last issue (or store drain) */
    uint64_t drain;       /* launch.store_drain: when its last store is acknowledged */
    uint64_t warp_cycles; /* its warps' cycles from its placement to their exits (each
                             its own exit, or its own last store's acknowledgement) */
    unsigned pending;     /* memory instructions waiting for their L2 outcome */
    size_t held;          /* bytes of decoded instructions it holds (sim.held) */
    gf_spill *spill;      /* where its spilled warps are, else NULL */
    int ioerr;            /* errno of a failed read of a spilled window, else 0 */
    /* The first line of the first global accesses to distinct L1 tracker tiles
     * (GF_HIER_L1_TILE_SHIFT), at most BLOCK_PF_LINES: what its SM's L1 tracker will first probe,
     * fetched ahead by ksim_prefetch_sm (see ssm.pf). */
    uint64_t pf_line[BLOCK_PF_LINES];
    unsigned npf;
    /* mbarrier phases that TMA copies complete (ksim_mbar.c) and the polls waiting for
     * them: phase i's waiters are mbw[mbp[i].w0 .. + nw). */
    struct mb_phase *mbp;
    struct mb_waiter *mbw;
    uint32_t nmbp, mbpcap, nmbw, mbwcap;
} sblock;

/* An mbarrier phase of a block that TMA copies complete: at the latest copy's outcome
 * (done), when `left` reaches 0, its waiters' polls become ready. */
typedef struct mb_phase {
    uint64_t done;
    uint32_t left, w0, nw;
} mb_phase;
typedef struct mb_waiter {
    uint16_t warp, slot;
} mb_waiter;
/* A synthetic TMA copy's sectors lie at and above this sector (ksim_mbar.c: byte address
 * bit 58; a trace's own addresses are below 2^57). */
#define MB_TMA_SECTOR (UINT64_C(1) << 53)

/* The per-sub-core arrays that step and issue use are held here at their largest
 * (GF_MAX_SUBCORES) rather than allocated: at a fixed offset from sm, they need no
 * pointer of their own in registers or reloaded after stores (wake, last, unit_free,
 * unit_from: -1.5 % of predict's instructions on matmul 256 titanv, cachegrind). */
typedef struct ssm {
    sblock **slots;
    unsigned resident;
    uint64_t now;
    uint64_t unit_free[GF_MAX_SUBCORES * KSIM_UNITS]; /* subcores x KSIM_UNITS */
    uint64_t lsu_free;     /* the LSU's tag stage is free (its queue has drained) */
    uint64_t lsu_gate;     /* the LSU's queue has room (gpu l1_lsu_queue; = lsu_free
                              without a queue): the issue gate of memory instructions */
    int last[GF_MAX_SUBCORES]; /* per sub-core: position in sub[] of the last warp issued */
    uint8_t last_unit[GF_MAX_SUBCORES]; /* per sub-core: the unit it issued to last */
    unsigned scan_from[GF_MAX_SUBCORES]; /* per sub-core: where its scans start (set_last) */
    uint64_t park_min[GF_MAX_SUBCORES]; /* per sub-core: no parked warp's operands are
                                           ready before this cycle (UINT64_MAX: none);
                                           its CAND_PMIN word holds exactly the parked
                                           warps whose opready equals it, so when that
                                           word is not empty it is their least opready,
                                           else a lower bound below all of them */
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
                              word 0: see PARK_FAR), word CAND_PMIN those parked warps
                              whose opready is park_min (rows of one word only; see
                              park_min) */
    unsigned cand_words;
    unsigned *nwait;       /* per sub-core: running warps waiting for a memory outcome */
    uint64_t wake[GF_MAX_SUBCORES]; /* per sub-core: no warp can issue before this cycle
                                       (step) */
    uint64_t first_issue, last_done;
    int started;
    uint64_t mem_stall, miss_sectors, load_miss_sectors, lsu_cycles, partial_stores;
    uint64_t read_requests; /* load requests to L2 (one line each) */
    uint64_t stall_to;     /* mem_stall counts through this cycle, maybe past now's epoch
                              (step); taken back if an outcome wakes the SM earlier */
    uint64_t unit_busy[KSIM_UNITS], mem_insts; /* summed into the result at the end */
    uint64_t atomic_insts, posted_atomic_insts;
    uint64_t issued;       /* warp instructions issued so far */
    /* The stall bookkeeping (ksim_stalls.h charge_stalls, docs/stalls.md): warp-cycles per reason,
     * and per sub-core which of the 64 cycles up to hist_t it issued in (bit k: cycle
     * hist_t - k), which tells a ready warp's cycles not_selected from throttled. */
    uint64_t stall[GF_STALL_COUNT];
    uint64_t hist[GF_MAX_SUBCORES], hist_t[GF_MAX_SUBCORES];
    /* ... and where the last busy stretch of each unit (beside unit_free) and of the LSU
     * gate (lsu_gate) began: the cycle after the issue that set it */
    uint64_t unit_from[GF_MAX_SUBCORES * KSIM_UNITS];
    uint64_t lsu_from;
    uint64_t lsu_done[LSU_QUEUE_MAX]; /* when the last lsu_queue LSU instructions leave
                                         its tag stage, a ring at lsu_head */
    unsigned lsu_head;
    /* This epoch's memory instructions that went past L1, in issue order, and their
     * line requests to L2 (resolved at the epoch's end, see ksim_run_epochs). */
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
     * tracker for them are fetched by ksim_prefetch_sm one SM ahead (a new tile's hash slot
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

/* Decoding's memos (defined in ksim_addr.c) and replay list (ksim_decode.c), where they are
 * described. */
typedef struct shmem_memo shmem_memo;
typedef struct shpat_memo shpat_memo;
typedef struct coal_memo coal_memo;
typedef struct rp_line rp_line;
typedef struct replay_ent replay_ent;
/* Entries of the replay list and ids of the shared id stream (sim.rp_ids), at most. */
#define REPLAY_MAX 65536u
/* Branches of the replay list at most (ksim_decode.c replay_branch), and the buckets
 * (a power of two) their chains hang from. */
#define RP_BRANCHES 256u
#define RP_BUCKETS 64u
/* Entries recorded on branches before their use is checked (ksim_decode.c
 * replay_may_fork). */
#define RP_BRANCH_ENTRIES_FREE 4096u
/* Lines a run of replayed text appends at most (ksim_decode.c replay_run; ksim_block.c
 * ksim_warp_unshare leaves room for one). */
#define RUN_MAX 64u

/* Asynchronous copy groups (ksim_decode.c async_note): a warp's LDGSTS of its last
 * AG_GROUPS groups each write their own pseudo register, up to AG_MEMBERS a group,
 * numbered past the trace's registers. */
#define AG_GROUPS 4u
#define AG_MEMBERS 8u
#define AG_REG_BASE GF_REG_COUNT
/* Warpgroup MMA groups (Hopper wgmma, ksim_decode.c async_note): likewise, a warp's
 * HGMMA/QGMMA/IGMMA/BGMMA of its last WG_GROUPS groups, up to WG_MEMBERS a group. */
#define WG_GROUPS 4u
#define WG_MEMBERS 8u
#define WG_REG_BASE (AG_REG_BASE + AG_GROUPS * AG_MEMBERS)
/* mbarrier waits (ksim_mbar.c): a warp's n-th poll of an mbarrier (SYNCS.PHASECHK*, n <
 * MB_WAITS) reads pseudo register MB_WAIT_BASE + n, which the TMA copies of the phase it
 * waits for make ready; later polls are not tied to any copy. */
#define MB_WAITS 512u
#define MB_WAIT_BASE (WG_REG_BASE + WG_GROUPS * WG_MEMBERS)
/* The trace names no predicate registers (NVBit lists R and UR operands only): a warp's
 * predicate writes (a comparison or predicate logic naming no register destination:
 * ISETP, FSETP, LOP3 P, PLOP3...) all write pseudo register PRED_ANY, and its control
 * flow (BRA, EXIT) reads it (ksim_decode.c pred_role). */
#define PRED_ANY (MB_WAIT_BASE + MB_WAITS)
#define KSIM_REG_COUNT (PRED_ANY + 1)
/* (the most pseudo registers one instruction names: a wait on every group) */
#define AG_MAX_REGS (AG_GROUPS * AG_MEMBERS > WG_GROUPS * WG_MEMBERS ? AG_GROUPS * AG_MEMBERS \
                                                                       : WG_GROUPS * WG_MEMBERS)
enum ag_class {
    AG_UNSEEN = 0, AG_NONE, AG_COPY, AG_COMMIT, AG_WAIT,
    AG_MMA,       /* wgmma.mma_async: HGMMA, QGMMA, IGMMA, BGMMA */
    AG_MMA_FENCE, /* WARPGROUP.ARRIVE (wgmma.fence): closes the open MMA group */
    AG_MMA_WAIT   /* WARPGROUP.DEPBAR.LE N / WARPGROUP.WAIT (wgmma.wait_group N / 0) */
};

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
    /* The kernel's code lines (128 bytes: pc >> 7) met by decoding, a bit each, folded
     * modulo CODE_LINE_BITS (PCs are offsets in the kernel's code: no two lines of one
     * kernel fold together below 8 MiB of code), and how many (the cold start's size;
     * none when the reader's PCs are not code addresses: gf_kernel_info.pc_is_line) */
    uint64_t code_seen[CODE_LINE_BITS / 64];
    unsigned code_lines;
    uint64_t epoch;      /* cycles per epoch (<= l2.latency) */
    unsigned lat_l2_far_extra; /* gf_gpu_l2_far_extra: a hit served over the fabric */
    unsigned lat_l2, lat_dram; /* unloaded L2 and L2 + DRAM latencies at the SM clock
                                  (gf_gpu_l2_latency ...), worked out once a kernel */
    int count_mio;       /* gpu l1.shared_pipe_mio: count gf_ksim_result.mio_wavefronts */
    uint64_t next_uid;
    gf_ksim_result *res;
    double miss_latency_sum, load_latency_sum;
    uint64_t miss_accesses, load_accesses;
    /* DRAM as one first-come first-served server (resolve_epoch): the reads resolved so
     * far keep it busy until dram_free; dram_bpc bytes per SM cycle (0: not simulated,
     * the queueing model's M/D/1 term alone times DRAM contention). */
    double dram_bpc, dram_free, dram_wait_sum;
    uint64_t dram_waits;
    uint8_t warned[GF_OPCODE_MAX];
    int warned_bulk; /* this kernel's TMA / bulk-copy warning was given (copies not modelled) */
    int warned_tma;  /* ... and the one for TMA loads (modelled, ksim_mbar.c) */
    int warned_tma_clip; /* ... and the one for a TMA copy counted in part (ksim_mbar.c) */
    gf_spin spin;    /* wait-loop collapse between the reader and decoding */
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
    uint16_t regslot[KSIM_REG_COUNT];
    uint32_t regstamp[KSIM_REG_COUNT];
    uint32_t stamp;
    /* The warp being read's asynchronous copy groups (async_note): the open group's
     * number, how many of the groups before it a wait has covered, the copies of each
     * of the last AG_GROUPS groups; and the pseudo registers the current instruction
     * writes (ag_dst) or reads. ag_class caches each opcode's role (enum ag_class). */
    uint32_t ag_open, ag_waited;
    uint8_t ag_members[AG_GROUPS];
    /* ... and the same for its warpgroup MMA groups (wg_*); ag_drop: the current
     * instruction is an MMA whose trace registers (its accumulators) leave the
     * scoreboard, their dependence being the tensor pipe's own (async_note_slow). */
    uint32_t wg_open, wg_waited;
    uint8_t wg_members[WG_GROUPS];
    uint16_t ag_regs[AG_MAX_REGS];
    uint8_t ag_nregs, ag_dst, ag_changes, ag_drop;
    uint8_t ag_class[GF_OPCODE_MAX];
    /* Each opcode's control-flow class (ksim_decode.c control_class: PC_*) and the
     * current instruction's predicate role (0 none, 2 writes, 3 reads PRED_ANY). */
    uint8_t pred_class[GF_OPCODE_MAX];
    uint8_t pred_cur;
    /* Each opcode's use of the shared-memory data pipe beyond its accesses (ksim_decode.c
     * mio_wavefronts: MIO_*), filled as opcodes are first decoded under count_mio. */
    uint8_t mio_class[GF_OPCODE_MAX];
    /* Opcodes already looked up in this kernel (the ISA table's own cache takes a lock
     * per call); entries point into the ISA table, which outlives the kernel. */
    const gf_isa_entry *isa_seen[GF_OPCODE_MAX];
    shmem_memo *shmem_memo; /* SHMEM_MEMO entries, allocated at the first shared access */
    coal_memo *coal_memo;   /* COAL_MEMO entries, allocated at the first patterned access */
    coal_memo *local_memo;  /* COAL_MEMO entries for local accesses, likewise */
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
    /* Where warps left the list to go on along another recorded path (replay_branch):
     * from entry `from`'s place to the segment starting at `start`; chained (next: index
     * + 1, 0 ends) from rpb_head[from % RP_BUCKETS]. rp_fork: the place the warp being
     * recorded left the list at (UINT32_MAX: none), made a branch at its first entry. */
    struct rp_branch {
        uint32_t from, start, next;
    } rpb[RP_BRANCHES];
    uint32_t rpb_len, rpb_head[RP_BUCKETS], rp_fork;
    /* Entries recorded on branches, and instructions replayed by warps that took one
     * (ksim_decode.c replay_may_fork); whether the warp being decoded records a branch,
     * or took one. */
    uint64_t rpb_recorded, rpb_replayed;
    int rpb_recording, rpb_on;
    uint32_t rpb_from; /* the warp's instructions when it took the branch */
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
    /* The mbarrier / TMA decoding state (ksim_mbar.c), made at the first SYNCS or TMA
     * instruction of the kernel; mb_keep: the current instruction is one it must see
     * (not to be replayed as text); mb_mov: it is a MOV of an immediate, which it records
     * (replayed as text with ksim_mb_replay_mov). */
    struct mb_dec *mb;
    int mb_keep, mb_mov;
} sim;

/* ---------------------------------------------------------------- shared helpers */

/* The shape with id `id` (not SHAPE_INLINE) in a shape table. */
static inline const shape *shape_at(uint32_t *const *chunks, uint32_t id)
{
    return (const shape *)(chunks[id >> SHAPE_CHUNK_BITS] + (id & (SHAPE_CHUNK_WORDS - 1)));
}

/* Writes shape (hd, regs) to dst (bytes of SHAPE_WORDS / SHAPE_POOL_BYTES). */
static inline void shape_put(void *dst, const shape *hd, const uint16_t *regs)
{
    memcpy(dst, hd, sizeof(shape));
    memcpy((uint8_t *)dst + sizeof(shape), regs, 2u * ((size_t)hd->ndst + hd->nsrc));
}

/* Bytes of w's pool data for an instruction of shape sh at p (its inline shape, if any,
 * already skipped): its memory record, if any. */
static inline size_t pool_rec_bytes(const shape *sh, const uint8_t *p)
{
    if (sh->kind != K_MEM)
        return 0;
    memrec m;
    memcpy(&m, p, sizeof m);
    return memrec_bytes(m.nsectors, m.bypass & 2);
}

/* w's next instruction changed (an L2 outcome, a barrier release): its sub-core's wake
 * bound must not exceed the cycle its operands are ready, the other warps' are as
 * before. */
static inline void wake_lower(ssm *sm, const swarp *w)
{
    if (w->opready < sm->wake[w->subcore])
        sm->wake[w->subcore] = w->opready;
}

/* ---------------------------------------------------------------- across files */

/* ksim_decode.c */
gf_status ksim_produce_block(sim *s, sblock *b, gf_error *err);
gf_status ksim_read_block(sim *s, sblock **out, gf_error *err);
/* ksim_shape.c: the shape table. */
uint32_t ksim_shape_intern(sim *s, const shape *hd, const uint16_t *regs);
/* ksim_addr.c: a memory instruction's addresses, through decoding's memos. */
gf_mem_space ksim_resolve_generic(const sim *s, uint64_t a);
uint32_t ksim_shared_aux(sim *s, const gf_isa_entry *e, const gf_inst *in, unsigned width);
void ksim_mem_sectors(sim *s, const gf_inst *in, gf_mem_space space, unsigned width,
                      gf_coalesced *c);
int ksim_atomic_passes(sim *s, const gf_inst *in, const gf_coalesced *c, uint8_t *passes);
static inline unsigned ksim_first_lane(uint32_t mask)
{
    return (unsigned)__builtin_ctz(mask);
}

/* ksim_operands.c: operands the trace's lines do not list (see there). An opcode's
 * class byte (control flow, and KSIM_PC_ADU for the ADU's LDC and S2R): one of KSIM_PC_*,
 * with KSIM_REG_AFTER_PRED for the opcodes
 * whose written register the tracer lists as a source. Inline: the cached byte is read
 * several times per decoded instruction (an outlined lookup was 3 % of predict's
 * instructions, callgrind, torch_layernorm). */
enum { KSIM_PC_UNSEEN = 0, KSIM_PC_NONE, KSIM_PC_WRITER, KSIM_PC_EXIT, KSIM_PC_BRANCH,
       KSIM_PC_BSYNC, KSIM_PC_ADU };
#define KSIM_REG_AFTER_PRED 0x10u
unsigned ksim_pred_class_slow(sim *s, const gf_inst *in);
static inline unsigned ksim_pred_class(sim *s, const gf_inst *in)
{
    unsigned c = in->opcode < GF_OPCODE_MAX ? s->pred_class[in->opcode] : KSIM_PC_NONE;
    return c ? c : ksim_pred_class_slow(s, in);
}
static inline unsigned ksim_control_class(sim *s, const gf_inst *in)
{
    return ksim_pred_class(s, in) & ~KSIM_REG_AFTER_PRED;
}
/* 1 when in's first listed source is the register it writes (SHFL, LOP3 with a
 * predicate result, as the tracer lists them). */
static inline int ksim_reg_after_pred(sim *s, const gf_inst *in)
{
    return !in->ndst && in->nsrc && (ksim_pred_class(s, in) & KSIM_REG_AFTER_PRED);
}
/* Under sm.pred_dependence, in's role for the predicate pseudo register PRED_ANY: 2 when
 * it writes a predicate, 3 when it is a BRA or EXIT, which the compiler guards with the
 * predicate a comparison just set (ISETP; @P0 BRA), else 0. */
static inline unsigned ksim_pred_role(sim *s, const gf_inst *in)
{
    if (!s->gpu->pred_dependence)
        return 0;
    unsigned c = ksim_control_class(s, in);
    if (c == KSIM_PC_WRITER)
        return in->ndst == 0 ? 2u : 0u;
    return c == KSIM_PC_EXIT || c == KSIM_PC_BRANCH ? 3u : 0u;
}
void ksim_async_note_slow(sim *s, const gf_inst *in);
/* ksim_async_note_slow for the instructions that are not asynchronous copies, commits,
 * waits or MMAs, almost all, without the call. */
static inline void ksim_async_note(sim *s, const gf_inst *in)
{
    if (in->opcode < GF_OPCODE_MAX && s->ag_class[in->opcode] == AG_NONE) {
        s->ag_nregs = s->ag_dst = s->ag_changes = s->ag_drop = 0;
        return;
    }
    ksim_async_note_slow(s, in);
}

/* ksim_block.c */
void ksim_block_reset(sblock *b);
sblock *ksim_take_spare(sim *s);
gf_status ksim_warp_reserve_slow(swarp *w, const sim *s, uint32_t more, gf_error *err);
gf_status ksim_warp_unshare(sim *s, swarp *w, gf_error *err);
void ksim_block_free(sblock *b);
void ksim_put_spare(sim *s, sblock *b);
size_t ksim_block_bytes(const sblock *b);
gf_status ksim_spill_flush_warp(sim *s, sblock *b, swarp *w, gf_error *err);
gf_status ksim_spill_finish_warp(sim *s, sblock *b, swarp *w, gf_error *err);
void ksim_block_release(sim *s, sblock *b);
int ksim_warp_load_window(swarp *w);

/* ksim_issue.c */
void ksim_place_block(sim *s, unsigned smi, unsigned slot, sblock *b, uint64_t t);
void ksim_warp_prepare(swarp *w);
void ksim_prefetch_sm(const sim *s, unsigned smi, int deep, uint64_t end);
void ksim_run_sm(sim *s, unsigned smi, uint64_t end);

/* ksim_mbar.c: mbarriers and TMA copies (docs/model.md, "Warp-specialised kernels") */
gf_status ksim_mb_note_inst(sim *s, sblock *b, swarp *w, unsigned wid, const gf_inst *in,
                            gf_error *err);
/* What ksim_mb_note_inst records for a MOV of immediate imm to trace register reg (one
 * it set sim.mb_mov for), for such a MOV a text run of ksim_decode.c took. */
void ksim_mb_replay_mov(sim *s, uint16_t reg, int32_t imm);
int ksim_mb_sectors(sim *s, gf_coalesced *c);
gf_status ksim_mb_block_start(sim *s, const unsigned tb[3], gf_error *err);
void ksim_mb_warp_start(sim *s);
gf_status ksim_mb_warp_end(sim *s, sblock *b, swarp *w, gf_error *err);
/* 1 when the warp being read has polls tied to phases (ksim_mb_warp_end then reads
 * their registers' numbering from sim.regslot). */
int ksim_mb_warp_waits(const sim *s);
gf_status ksim_mb_block_end(sim *s, sblock *b, gf_error *err);
void ksim_mb_free(sim *s);
static inline int ksim_mb_is_copy(const swarp *w, const ssm *sm, const pend *pq)
{
    return w->mbcur < w->nmbq && pq->nsect && sm->psect[pq->sect0] >= MB_TMA_SECTOR;
}

/* ksim_epochs.c */
gf_status ksim_run_epochs(sim *s, uint64_t t0, gf_error *err);

#endif
