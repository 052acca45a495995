//go:build goabt_c_engine
/* info_hang.c: goabt_info_print_units (goabt.h), the hang report on the program's FILE*, from the
 * caller (the report: engine/hang.c). */
#include <stdio.h>
#include <stdlib.h>
#include "args.h"
#include "engine/info.h"
#include "engine/runtime.h"
#include "goabt.h"

int goabt_info_print_units(FILE *fp)
{
    GOABT_CHECK_INIT();
    GOABT_CHECK_ARG(fp != NULL);
    char *text = goabt_hang_units_text();
    if (text == NULL) return ABT_ERR_MEM;
    fputs(text, fp);
    fflush(fp);
    free(text);
    return ABT_SUCCESS;
}
