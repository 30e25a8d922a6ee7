/* Placeholder until this command lands; replaced by its module's owner. */
#include <stdio.h>

#include "cli/cli.h"

int gf_cmd_gen(int argc, char **argv)
{
    (void)argc;
    fprintf(stderr, "gpuforecast: error: '%s' is not implemented yet\n", argv[0]);
    return 1;
}
