/*
 * Which hardware launch measures which predicted launch (docs/validation.md, "Pairing").
 *
 *  1. Selection: the predicted launches the hardware run profiled. Options mean what
 *     Nsight Compute's own filters mean (Nsight Compute CLI, "Filter Options"):
 *     kernel_name keeps the launches whose function name (ncu's default
 *     --kernel-name-base function) is NAME, or, as "regex:EXPR", contains a match of the
 *     POSIX extended expression; of those, launch_skip are skipped and launch_count taken.
 *  2. Names: every name is reduced to its canonical full name (kname.h: demangled,
 *     namespaces, template arguments and parameters). Launches of one canonical name form
 *     a group, in launch (file) order. A hardware group pairs with the predicted group of
 *     the same canonical name, else with the one predicted group compatible with it
 *     (gf_kname_compatible); none: its launches are unmatched; several: ambiguous.
 *     Two hardware groups of one file pairing with one predicted group are ambiguous too.
 *  3. Launches: within a paired group, the j-th measured launch is the j-th predicted
 *     one; a file with k times as many (k whole repeated runs of the program) gives
 *     launch j to the (j mod n)-th of the n predicted. Any other count is partial.
 *  Ambiguous and partial pairings are issues: an error unless loose, where they are
 *  warnings, an ambiguous group stays unmatched and a partial one pairs its first
 *  launches in order (the rest unmatched). Launch ids are not used: Nsight numbers the
 *  launches it profiled, not the program's.
 * Time: O(L log L) in the number of launches (sorts), names compared only within one
 * function name.
 *
 * Prefix: gf_pairing_, gf_validate_options.
 */
#ifndef GF_VALIDATE_PAIRING_H
#define GF_VALIDATE_PAIRING_H

#include "gpuforecast/gpuforecast.h"
#include "counters/counters.h"
#include "validate/hardware.h"

typedef struct gf_validate_options {
    long launch_skip;        /* selected predicted launches to skip first (ncu -s); 0 */
    long launch_count;       /* then how many to take (ncu -c); < 0: all */
    const char *kernel_name; /* NULL: every kernel; "NAME" or "regex:EXPR" (ncu -k) */
    int loose;               /* ambiguous or partial pairings are warnings, not an error */
} gf_validate_options;

typedef struct gf_vpairing {
    long **owner;            /* owner[f][i]: predicted row measured by row i of file f, -1 */
    unsigned char *selected; /* selected[k]: predicted row k is in the selection */
    size_t nselected;
    char **issues;           /* what could not be paired, one sentence each */
    size_t nissues;
} gf_vpairing;

/* Pairs pred's rows with the rows of the nhw files; *out is initialised here and freed
 * with gf_pairing_free (also after an error). Issues are returned in out, not as an
 * error. Errors: GF_ERR_NOMEM; GF_ERR_INVALID for a bad kernel_name expression or a
 * selection holding no predicted launch. */
gf_status gf_pairing_run(const gf_report *pred, const gf_hw_file *hw, size_t nhw,
                         const gf_validate_options *opt, gf_vpairing *out, gf_error *err);
void gf_pairing_free(gf_vpairing *p, size_t nhw);

#endif
