//go:build goabt_c_engine
/* ABT_error_get_str: the C entry; the names live in the Go core (core/errors.go). Through the
 * gate, because programs ask for error strings from inside ULTs too. */
#include "args.h"
#include "gocalls.h"
#include "engine/runtime.h"

struct error_call {
    int err;
    char *str;
    size_t *len;
    int rc;
};

static void error_get_str_gated(void *p)
{
    struct error_call *c = p;
    if (goabt_go_available()) c->rc = goabt_go.error_get_str(c->err, c->str, c->len);
}

int ABT_error_get_str(int err, char *str, size_t *len)
{
    GOABT_CHECK_NOT_FORKED(); /* the names are the Go core's */
    struct error_call c = {err, str, len, ABT_ERR_OTHER};
    goabt_gate(error_get_str_gated, &c);
    return c.rc;
}
