/*
 * The trace stage's data: what a kernel reader produces (a kernel's header, a block's
 * cluster, one warp instruction and a TMA line's fields) and the launch list's commands,
 * plus two helpers on them. Types only otherwise: the functions that read them are
 * declared in trace.h. The readers (accelsim*.c, pptgpu*.c) and infer.c include this
 * header rather than trace.h, so that no reader depends on the dispatching layer above
 * it (kreader.c).
 */
#ifndef GF_TRACE_TYPES_H
#define GF_TRACE_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "gpuforecast/gpuforecast.h"

#define GF_WARP_SIZE 32
#define GF_MAX_DST 4
#define GF_MAX_SRC 8
#define GF_REG_ZERO 255 /* RZ / R255: reads zero, writes are dropped; not a dependency */

/* One warp instruction, fully decoded. When mem_width > 0, addr[] holds one address per
 * lane: lanes whose bit is set in mask are meaningful, the others are 0. When mem_width
 * is 0 (no memory access, most instructions) readers may leave addr[] as it was: clearing
 * 256 bytes per instruction was ~15 % of the Accel-Sim reader's time. */
typedef struct gf_inst {
    uint64_t pc;
    uint32_t mask;          /* active lanes */
    uint16_t opcode;        /* interned full opcode string, e.g. "LDG.E.128" */
    uint16_t base_opcode;   /* interned base (text before the first '.'), e.g. "LDG" */
    uint8_t ndst, nsrc;
    uint16_t dst[GF_MAX_DST];  /* register numbers (R7 -> 7); predicates/uniform regs
                                  are kept with an offset, see sass/opcode.h; entries
                                  past ndst (nsrc) are unspecified */
    uint16_t src[GF_MAX_SRC];
    uint32_t mem_width;     /* bytes per lane from the trace; 0 = not a memory access */
    int32_t imm;            /* tracer v5's trailing immediate (clamped to int32), else 0:
                               e.g. DEPBAR.LE SB0, 1's 1 (ksim_decode.c async groups) */
    uint64_t addr[GF_WARP_SIZE];
    /* 0, or an identity of the lanes' address offsets: two instructions with the same
     * nonzero addr_pattern and mask have the same addr[l] - addr[first active lane] in
     * every active lane (only their base may differ), so what depends only on the
     * offsets and the base's low bits can be reused (ksim_decode.c's coalescing memo).
     * Nonzero only when every active lane's address is below 2^63 (none wrapped). Readers
     * that cannot tell set 0. */
    uint64_t addr_pattern;
} gf_inst;

/* Kernel header (-key = value lines). Unknown keys are kept in extra[]. */
typedef struct gf_kernel_info {
    char name[512];
    long id;
    unsigned grid[3], block[3];
    int has_grid;               /* the header gave a grid; its blocks are then checked
                                   against it (gf_kreader_next_block) */
    unsigned long shmem;        /* bytes of dynamic+static shared memory per block */
    unsigned nregs;
    unsigned binary_version;    /* e.g. 61, 70, 80 */
    long stream_id;
    uint64_t shmem_base, local_base; /* 0 when the header lacks them */
    int has_shmem_base, has_local_base;
    int tracer_version;         /* 0 = unversioned (before 3): per-line tb/warp prefix */
    int pc_is_line;             /* 1: gf_inst.pc is a line of the trace (PPT-GPU), not an
                                   address in the kernel's code */
    /* GF_HDR_* bits: header values no real launch can have (the CUDA 13 tracer writes
     * garbage there, refdata/h100-gfbench/README.md). Their fields then hold what the
     * first thread block shows (kreader.c gf_kreader_open, infer.h), and
     * suspect_text[bit] the value the header claimed, for the caller's warning. */
    unsigned suspect;
    char suspect_text[3][32];
    char nvbit_version[32];
    unsigned nextra;
    struct { char key[64]; char value[256]; } extra[32];
} gf_kernel_info;

/* Header fields that can be implausible (gf_kernel_info.suspect, bit = 1 << index). */
enum { GF_HDR_SHMEM = 0, GF_HDR_NREGS = 1, GF_HDR_BINARY_VERSION = 2 };
/* The newest Accel-Sim tracer version this reader knows (5: a trailing immediate; 6: a
 * second immediate and the register values, docs/tracez.md "Tracer version 6"). */
#define GF_TRACER_VERSION_MAX 6
/* CUDA's largest grid, every compute capability since 3.0 (CUDA C++ Programming Guide,
 * "Technical Specifications per Compute Capability"): a header beyond it is no launch. */
#define GF_GRID_X_MAX 2147483647u
#define GF_GRID_YZ_MAX 65535u

typedef enum gf_command_kind { GF_CMD_MEMCPY_HTOD = 1, GF_CMD_KERNEL = 2 } gf_command_kind;

typedef struct gf_command {
    gf_command_kind kind;
    uint64_t addr, bytes;   /* MemcpyHtoD */
    char path[1024];        /* kernel: resolved path of the file on disk */
    long line;              /* line in kernelslist.g (0 for a lone .traceg) */
} gf_command;

/* A thread block's cluster (Hopper thread-block clusters), as Accel-Sim 2.0 writes it
 * after `thread block = x,y,z` (`cluster id = x,y,z`, `cluster cta = x,y,z`, `cluster
 * rank = r`; a .tracez's index holds the same). present is 0 for traces without these
 * lines (tracer 1.x): then every field is 0, as the 2.0 tracer writes for a launch
 * without clusters. id: the cluster within the grid; cta: this block's coordinates
 * within its cluster; rank: its linear rank there. The blocks of one cluster run
 * together on one GPC (CUDA C++ Programming Guide, "Thread Block Clusters"); what the
 * model does with that: docs/model.md, "Thread-block clusters". */
typedef struct gf_block_cluster {
    int present;
    unsigned id[3], cta[3], rank;
} gf_block_cluster;

/* Accel-Sim 2.0's TMA lines (opcodes UTMALDG, UTMASTG, UTMAPF, UTMAREDG, UBLKCP, UBLKPF,
 * UBLKRED): after the memory width come the mbarrier the copy completes on, a multicast
 * flag (then, when 1, a hex mask of the cluster's CTAs it goes to), the bytes in and out
 * of bounds, and an address mode: 3, a count and that many hex addresses, or 4, a hex
 * base, a count and count - 1 decimal deltas (the 2.0 simulator's trace parser and the
 * post-processor's drop_unused_trywaits; docs/tracez.md names the revisions). Older
 * tracers write TMA lines as any memory line (a mode 0-2 address list), told apart by the
 * token after the first one: a 0x address there. */
typedef struct gf_tma_info {
    uint64_t mbar;          /* the mbarrier's address, as the tracer wrote it */
    uint64_t bytes, oob_bytes;
    uint16_t cta_mask;      /* multicast: bit r = cluster rank r gets the tile; else 0 */
    int multicast;
    uint32_t ntransfers;    /* addresses the line lists (mode 3) or encodes (mode 4) */
    uint64_t first;         /* the first of them (0 when none) */
} gf_tma_info;

/* Writes every active lane's address of in from its first active lane's and its odd
 * (stride) addr_pattern into out (inactive lanes 0); in->mask nonzero. */
/* (kreader.c) */
void gf_inst_fill_stride(const gf_inst *in, uint64_t out[GF_WARP_SIZE]);

/* One sentence for a warning: which header fields were implausible, what they claimed,
 * and what is used instead (e.g. "header claims -nregs = 0 ...; using nregs = 16"). */
/* (infer.c) */
void gf_kernel_info_describe_suspect(const gf_kernel_info *k, char *buf, size_t size);

#endif
