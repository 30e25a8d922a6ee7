/*
 * Operands the trace does not list as such: the registers an instruction reads and writes
 * beyond its line's lists, for decoding (ksim_decode.c decode_inst).
 *
 * - asynchronous copies and warpgroup MMAs: groups of pseudo registers that their waits
 *   read (ksim_async_note: sets sim's ag_* fields for the instruction being decoded);
 * - predicates: the tracer drops predicate operands, so a comparison writes one pseudo
 *   register that branches and exits read (ksim_pred_role, under sm.pred_dependence);
 * - a register written after a predicate, listed by the tracer as a source
 *   (ksim_reg_after_pred).
 *
 * Invariant: every rule is a function of the opcode (cached per opcode in sim's ag_class
 * and pred_class) and the warp's own earlier instructions (its open groups), never of
 * another warp or of timing, so replayed decoding (ksim_decode.c) sees the same operands.
 *
 * Touches: sim's decoding state only (ag_*, wg_*, pred_class); runs on the calling
 * thread.
 */
#include <string.h>

#include "sass/opcode.h"
#include "timing/ksim_internal.h"

/* Asynchronous copies (cp.async, sm_80+): LDGSTS copies global to shared memory with no
 * register result; LDGDEPBAR (cp.async.commit_group) closes the warp's open group; DEPBAR.LE
 * SB0, N (cp.async.wait_group N) stalls the warp until at most N closed groups are still
 * in flight. The trace names no register for that wait, so decoding gives the copies
 * one: the j-th LDGSTS of a group writes its own pseudo register (group mod AG_GROUPS,
 * j capped at AG_MEMBERS - 1) and a DEPBAR.LE reads those of every closed group it waits
 * for; the scoreboard then holds it until the last of their data has arrived, as a load's
 * consumer waits (separate registers, so the copies themselves do not wait for each
 * other). N is tracer v5's immediate (gf_inst.imm; 0, wait for all, in older traces).
 * What is approximated: a group of more than AG_MEMBERS copies shares the last register
 * (those copies then wait for each other), and more than AG_GROUPS groups in flight
 * reuse the oldest group's registers. refdata h100-gfbench cublas_sgemm512 kernel 1:
 * each warp commits 18 groups of 8 LDGSTS and waits with 17 DEPBAR.LE SB0, 0x1 and one
 * 0x0 (a 3-stage pipeline); no other case uses them. Sets s->ag_regs for decode_inst and
 * updates the warp's groups; ag_changes marks lines that may not be replayed as text. */
static enum ag_class async_class(sim *s, uint16_t opcode)
{
    if (opcode >= GF_OPCODE_MAX)
        return AG_NONE;
    if (s->ag_class[opcode] == AG_UNSEEN) {
        const char *n = gf_opcode_name(opcode);
        enum ag_class c = AG_NONE;
        if (n && strncmp(n, "LDGSTS", 6) == 0)
            c = AG_COPY;
        else if (n && strncmp(n, "LDGDEPBAR", 9) == 0)
            c = AG_COMMIT;
        else if (n && strncmp(n, "DEPBAR.LE", 9) == 0)
            c = AG_WAIT;
        else if (n && (strncmp(n, "HGMMA", 5) == 0 || strncmp(n, "QGMMA", 5) == 0 ||
                       strncmp(n, "IGMMA", 5) == 0 || strncmp(n, "BGMMA", 5) == 0))
            c = AG_MMA;
        else if (n && strcmp(n, "WARPGROUP.ARRIVE") == 0)
            c = AG_MMA_FENCE;
        else if (n && (strncmp(n, "WARPGROUP.DEPBAR", 16) == 0 ||
                       strncmp(n, "WARPGROUP.WAIT", 14) == 0))
            c = AG_MMA_WAIT;
        s->ag_class[opcode] = (uint8_t)c;
    }
    return (enum ag_class)s->ag_class[opcode];
}

/* The group bookkeeping both kinds share (copies above, MMAs below): a warp's last
 * `ngroups` groups (numbered from 0 in order, the open one `open`) each with up to
 * `nmembers` pseudo registers from `base`. group_member gives the next member of the
 * open group its register (the last one is shared past nmembers); group_wait names the
 * registers of every group before the latest `keep` not yet waited for. */
static void group_member(sim *s, uint32_t open, uint8_t *members, unsigned ngroups,
                         unsigned nmembers, unsigned base)
{
    unsigned g = open % ngroups, j = members[g];
    if (j < nmembers)
        members[g] = (uint8_t)(j + 1);
    else
        j = nmembers - 1;
    s->ag_regs[s->ag_nregs++] = (uint16_t)(base + g * nmembers + j);
    s->ag_dst = 1;
}

static void group_wait(sim *s, uint32_t open, uint32_t *waited, const uint8_t *members,
                       unsigned ngroups, unsigned nmembers, unsigned base, uint32_t keep)
{
    uint32_t upto = open > keep ? open - keep : 0; /* groups < upto */
    uint32_t from = *waited;
    if (upto > ngroups && from < upto - ngroups)
        from = upto - ngroups; /* (older ones' registers are reused) */
    for (uint32_t q = from; q < upto; q++) {
        unsigned g = q % ngroups;
        for (unsigned j = 0; j < members[g]; j++)
            s->ag_regs[s->ag_nregs++] = (uint16_t)(base + g * nmembers + j);
    }
    if (upto > *waited)
        *waited = upto;
}

/* Warpgroup MMAs (Hopper wgmma, sm_90): HGMMA (FP16/BF16/TF32), QGMMA (FP8), IGMMA
 * (INT8), BGMMA (binary) run asynchronously on the tensor cores (PTX ISA 8.x,
 * "Asynchronous Warpgroup Level Matrix Multiply-Accumulate": wgmma.fence,
 * wgmma.mma_async, wgmma.commit_group, wgmma.wait_group N). In SASS the fence is
 * WARPGROUP.ARRIVE, the commit rides on a group's last MMA and the wait is
 * WARPGROUP.DEPBAR.LE gsb0, N (WARPGROUP.WAIT: all). Successive MMAs accumulating into
 * the same registers are chained inside the tensor pipe, so an MMA's traced registers
 * (accumulator in and out) leave the scoreboard (ag_drop): each MMA writes a pseudo
 * register of its group instead (as LDGSTS do above) and waits only for the tensor
 * pipe's issue interval (the unit's own occupancy, per shape: gpu/isa.c gmma_shape);
 * the wait reads the pseudo registers of every group older than its latest N, so the
 * warp stalls there until their last MMA's latency has run out. A group closes at the
 * next fence or wait after its MMAs (what cuBLAS's and CUTLASS's sm90 main loops do: fence, MMAs, commit, wait). N is
 * tracer v5's immediate (0, wait for all, in older traces). Approximated: more than
 * WG_MEMBERS MMAs in a group share the last pseudo register, more than WG_GROUPS groups
 * in flight reuse the oldest group's; an MMA that reads registers a non-MMA instruction
 * wrote (register-sourced A operand, wgmma's .RS form) no longer waits for them. Checked
 * on refdata h100-gfbench cublas_hgemm1024 (docs/model.md, "Warp-specialised kernels"). */
static void mma_note(sim *s, enum ag_class c, const gf_inst *in)
{
    if (c == AG_MMA) {
        group_member(s, s->wg_open, s->wg_members, WG_GROUPS, WG_MEMBERS, WG_REG_BASE);
        s->ag_drop = 1;
        return;
    }
    /* a fence or a wait closes the open group, if it has MMAs */
    if (s->wg_members[s->wg_open % WG_GROUPS]) {
        s->wg_open++;
        s->wg_members[s->wg_open % WG_GROUPS] = 0;
    }
    if (c != AG_MMA_WAIT)
        return;
    const char *n = gf_opcode_name(in->opcode);
    uint32_t keep = n && strncmp(n, "WARPGROUP.DEPBAR", 16) == 0 && in->imm > 0
                        ? (uint32_t)in->imm : 0;
    group_wait(s, s->wg_open, &s->wg_waited, s->wg_members, WG_GROUPS, WG_MEMBERS,
               WG_REG_BASE, keep);
}

void ksim_async_note_slow(sim *s, const gf_inst *in)
{
    enum ag_class c = async_class(s, in->opcode);
    s->ag_nregs = 0;
    s->ag_dst = 0;
    s->ag_drop = 0;
    s->ag_changes = c != AG_NONE;
    if (c >= AG_MMA) {
        mma_note(s, c, in);
        return;
    }
    if (c == AG_COPY) {
        group_member(s, s->ag_open, s->ag_members, AG_GROUPS, AG_MEMBERS, AG_REG_BASE);
    } else if (c == AG_COMMIT) {
        s->ag_open++;
        s->ag_members[s->ag_open % AG_GROUPS] = 0;
    } else if (c == AG_WAIT) {
        group_wait(s, s->ag_open, &s->ag_waited, s->ag_members, AG_GROUPS, AG_MEMBERS,
                   AG_REG_BASE, in->imm > 0 ? (uint32_t)in->imm : 0);
    }
}

/* The control-flow class byte of an opcode (sim.pred_class; the inline accessors in
 * ksim_internal.h read the cache, this fills it).
 *
 * Predicate writers (KSIM_PC_WRITER) are the SASS instructions whose only result can be
 * a predicate: the comparisons and predicate logic (ISETP, FSETP, DSETP, HSETP2, PSETP,
 * PLOP3, LOP3 with a predicate output, FCHK, R2P, VOTE), and they write one only when
 * they name no destination register (the tracer drops predicate operands). By name, not
 * by pipe: NOP, DEPBAR, WARPGROUP.*, CCTL, ERRBAR name no register either and write no
 * predicate (found in review: cuBLAS's NOP; BRA waited for it). Under sm.pred_dependence
 * a writer writes one pseudo register (PRED_ANY) that BRA and EXIT read
 * (ksim_pred_role). What is approximated: every predicate is one register (an
 * instruction guarded by an older predicate waits for the newest), a branch on a uniform
 * predicate (@UP0 BRA.U, set by UISETP: not a writer here) waits for the last vector
 * predicate instead, and predicated ALU instructions do not wait.
 *
 * A register written after a predicate (KSIM_REG_AFTER_PRED, ksim_reg_after_pred): the
 * Accel-Sim tracer (util/tracer_nvbit/tracer_tool/tracer_tool.cu,
 * instrument_function_if_needed) takes a register as the destination only when it is
 * SASS operand 0 and lists every later register as a source; SHFL (`SHFL.DOWN PT, R11,
 * R30, 0x1, 0x1f`) and a LOP3 with a predicate result (`LOP3.LUT P0, R12, R0, 0x3, RZ,
 * 0xc0, !PT`) put a predicate first, so their line lists no destination and the written
 * register first among the sources (refdata h100-gfbench torch_layernorm: 61,440 `0
 * SHFL.DOWN 2 R11 R30`, whose R11 the next FSETP reads; 4,096 LOP3 with a register after
 * the predicate). Until session 27 such a result was ready at once and the instruction
 * waited for its own destination's last writer. The trace is kept as the tracer wrote
 * it (`info`, the readers); the timing model reads it so. Other opcodes of that form
 * (ATOMG with a result) are in no reference trace and are read as listed. */
unsigned ksim_pred_class_slow(sim *s, const gf_inst *in)
{
    if (in->opcode >= GF_OPCODE_MAX)
        return KSIM_PC_NONE;
    static const char *const writers[] = {"ISETP", "FSETP", "DSETP", "HSETP2", "PSETP",
                                          "PLOP3", "LOP3",  "FCHK",  "R2P",    "VOTE"};
    const char *n = gf_opcode_name(in->base_opcode);
    unsigned c = KSIM_PC_NONE;
    for (size_t i = 0; n && i < sizeof writers / sizeof writers[0]; i++)
        if (strcmp(n, writers[i]) == 0)
            c = KSIM_PC_WRITER;
    if (n && strcmp(n, "EXIT") == 0)
        c = KSIM_PC_EXIT;
    else if (n && strcmp(n, "BRA") == 0) /* (BRA.U too: the base name) */
        c = KSIM_PC_BRANCH;
    else if (n && strcmp(n, "BSYNC") == 0)
        c = KSIM_PC_BSYNC;
    else if (n && (strcmp(n, "LDC") == 0 || strcmp(n, "S2R") == 0)) /* (LDC.64 too) */
        c = KSIM_PC_ADU;
    if (n && (strcmp(n, "SHFL") == 0 || strcmp(n, "LOP3") == 0))
        c |= KSIM_REG_AFTER_PRED;
    s->pred_class[in->opcode] = (uint8_t)c;
    return c;
}
