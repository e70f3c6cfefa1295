/* nb: the pipeline, and the only place that exits. (skeleton) */
#include <stdio.h>
#include "status.h"

int main(void)
{
    puts("nb (skeleton)");
    return NB_EXIT_OK;
}
