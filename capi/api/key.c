//go:build goabt_c_engine
/* Work-unit-specific data keys (ABT_key_*): create and free in the Go core's registry
 * (core.Keys), set and get over keys.h (the slow paths in engine/keys.c). */
#include "args.h"
#include "gocalls.h"
#include "engine/handles.h"
#include "engine/keys.h"
#include "engine/leaks.h"
#include "engine/unit.h"

int ABT_key_create(void (*destructor)(void *), ABT_key *newkey)
{
    GOABT_CHECK_NOT_FORKED(); /* keys need no ABT_init, but the Go core */
    GOABT_CHECK_OUT(newkey);
    goabt_key *k = goabt_key_create(destructor);
    if (k == NULL) return ABT_ERR_MEM;
    GOABT_LEAK_NOTE(GOABT_LEAK_KEY, k);
    *newkey = k;
    return ABT_SUCCESS;
}

int ABT_key_free(ABT_key *key)
{
    GOABT_CHECK_NOT_FORKED(); /* goabt_key_of does not (keys.h) */
    GOABT_CHECK_OUT(key);
    goabt_key *k = goabt_key_of(*key);
    GOABT_CHECK_TRUE(k != NULL && goabt_key_free(k) == 0, ABT_ERR_INV_KEY);
    GOABT_LEAK_FORGET(k);
    *key = ABT_KEY_NULL;
    return ABT_SUCCESS;
}

int ABT_key_set(ABT_key key, void *value)
{
    GOABT_KEY(k, key);
    GOABT_SELF_OR_SCHED(s, u);
    (void)s;
    return goabt_keys_set(u, k, value);
}

int ABT_key_get(ABT_key key, void **value)
{
    GOABT_KEY(k, key);
    GOABT_CHECK_OUT(value);
    GOABT_SELF_OR_SCHED(s, u);
    (void)s;
    *value = goabt_keys_get(u, k);
    return ABT_SUCCESS;
}
