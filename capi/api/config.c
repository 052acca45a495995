//go:build goabt_c_engine
/* config.c: pool and scheduler configurations (ABT_pool_config_*, ABT_sched_config_*) and the
 * predefined configuration variables abt.h declares extern.
 *
 * Both kinds are one map from an integer key to a typed value, kept by the Go core
 * (core.Configs, capi/config.go; engine/configs.h). Here: the handles, C objects with their
 * magic that carry the map's id, and the variadic argument walking of ABT_sched_config_create
 * and _read; every other step is a gated call, which loads the Go core if need be, so
 * configurations work before ABT_init as they always did. Negative keys are the runtime's
 * variables (below); a user scheduler keeps its own at 0, 1, 2 … and reads them back with
 * ABT_sched_config_read. */
#include <stdarg.h>
#include <string.h>
#include "args.h"
#include "engine/handles.h"
#include "engine/leaks.h"
#include "engine/object.h"
#include "gocalls.h"

/* ---- The predefined variables ------------------------------------------------------------------ */

/* Programs pass these by value (ABT_sched_config_create takes them as variadic arguments) and
 * compare their idx/key fields, so the values are those of Argobots 1.2: the runtime reserves
 * the negative indices, all four scheduler variables and the pool variable carry an int. */

/* Ends the variable list of ABT_sched_config_create. */
ABT_sched_config_var ABT_sched_config_var_end = { -1, ABT_SCHED_CONFIG_INT };

/* Pool access mode for the pools a predefined scheduler creates (ignored, as in Argobots 1.2). */
ABT_sched_config_var ABT_sched_config_access = { -2, ABT_SCHED_CONFIG_INT };

/* Non-zero: the scheduler is freed automatically with the last object that uses it. */
ABT_sched_config_var ABT_sched_config_automatic = { -3, ABT_SCHED_CONFIG_INT };

/* How many work units the predefined schedulers run between two event checks. */
ABT_sched_config_var ABT_sched_basic_freq = { -4, ABT_SCHED_CONFIG_INT };

/* Non-zero: the pool is freed automatically with the last scheduler that uses it. */
const ABT_pool_config_var ABT_pool_config_automatic = { -2, ABT_POOL_CONFIG_INT };

/* ---- Values as they cross --------------------------------------------------------------------- */

/* The 64 bits the Go core keeps for the value of type type at val (0 for an unknown type, which
 * the Go core refuses). */
static uint64_t value_bits(int type, const void *val)
{
    uint64_t bits = 0;
    if (type == ABT_SCHED_CONFIG_INT) {
        int i;
        memcpy(&i, val, sizeof i);
        bits = (uint64_t)(int64_t)i;
    } else if (type == ABT_SCHED_CONFIG_DOUBLE) {
        double d;
        memcpy(&d, val, sizeof d);
        memcpy(&bits, &d, sizeof bits);
    } else if (type == ABT_SCHED_CONFIG_PTR) {
        void *p;
        memcpy(&p, val, sizeof p);
        bits = (uint64_t)(uintptr_t)p;
    }
    return bits;
}

/* Writes the value of type type the Go core kept as bits to val. */
static void value_store(int type, uint64_t bits, void *val)
{
    if (type == ABT_SCHED_CONFIG_INT) {
        int i = (int)(int64_t)bits;
        memcpy(val, &i, sizeof i);
    } else if (type == ABT_SCHED_CONFIG_DOUBLE) {
        double d;
        memcpy(&d, &bits, sizeof d);
        memcpy(val, &d, sizeof d);
    } else if (type == ABT_SCHED_CONFIG_PTR) {
        void *p = (void *)(uintptr_t)bits;
        memcpy(val, &p, sizeof p);
    }
}

/* Sets (val not NULL) or removes key. */
static int config_set(int kind, int id, int key, int type, const void *val)
{
    if (val == NULL) return goabt_config_set(kind, id, key, type, 0, 1);
    return goabt_config_set(kind, id, key, type, value_bits(type, val), 0);
}

/* Reads key: its type into *p_type, its value into val (either may be NULL). */
static int config_get(int kind, int id, int key, int *p_type, void *val)
{
    int type;
    uint64_t bits;
    int rc = goabt_config_get(kind, id, key, &type, &bits);
    if (rc != ABT_SUCCESS) return rc;
    if (p_type != NULL) *p_type = type;
    if (val != NULL) value_store(type, bits, val);
    return ABT_SUCCESS;
}

/* The int stored at key, or def if there is none (absent, or of another type). */
static int config_int(int kind, int id, int key, int def)
{
    int type;
    uint64_t bits;
    if (goabt_config_get(kind, id, key, &type, &bits) != ABT_SUCCESS) return def;
    return type == ABT_SCHED_CONFIG_INT ? (int)(int64_t)bits : def;
}

/* ---- Scheduler configurations ----------------------------------------------------------------- */

int ABT_sched_config_create(ABT_sched_config *config, ...)
{
    GOABT_CHECK_NOT_FORKED();
    GOABT_CHECK_OUT(config);
    *config = ABT_SCHED_CONFIG_NULL;
    int id = goabt_config_create(GOABT_CONFIG_SCHED);
    if (id == 0) return ABT_ERR_MEM;
    struct ABT_sched_config_opaque *c = goabt_mem_new(sizeof *c);
    if (c == NULL) {
        goabt_config_free(GOABT_CONFIG_SCHED, id);
        return ABT_ERR_MEM;
    }
    c->id = id;
    va_list ap;
    va_start(ap, config);
    int rc = ABT_SUCCESS;
    for (;;) {
        ABT_sched_config_var var = va_arg(ap, ABT_sched_config_var);
        if (var.idx == ABT_sched_config_var_end.idx) break;
        if (var.type == ABT_SCHED_CONFIG_INT) {
            int v = va_arg(ap, int);
            rc = config_set(GOABT_CONFIG_SCHED, id, var.idx, var.type, &v);
        } else if (var.type == ABT_SCHED_CONFIG_DOUBLE) {
            double v = va_arg(ap, double);
            rc = config_set(GOABT_CONFIG_SCHED, id, var.idx, var.type, &v);
        } else if (var.type == ABT_SCHED_CONFIG_PTR) {
            void *v = va_arg(ap, void *);
            rc = config_set(GOABT_CONFIG_SCHED, id, var.idx, var.type, &v);
        } else {
            rc = ABT_ERR_INV_ARG; /* the rest of the list cannot be read safely */
        }
        if (rc != ABT_SUCCESS) break;
    }
    va_end(ap);
    if (rc != ABT_SUCCESS) {
        goabt_config_free(GOABT_CONFIG_SCHED, id);
        goabt_mem_delete(c, sizeof *c);
        return rc;
    }
    __atomic_store_n(&c->magic, GOABT_MAGIC_SCHED_CONFIG, __ATOMIC_RELEASE);
    GOABT_LEAK_NOTE(GOABT_LEAK_SCHED_CONFIG, c);
    *config = c;
    return ABT_SUCCESS;
}

int ABT_sched_config_read(ABT_sched_config config, int num_vars, ...)
{
    GOABT_SCHED_CONFIG(c, config);
    GOABT_CHECK_ARG(num_vars >= 0);
    va_list ap;
    va_start(ap, num_vars);
    for (int i = 0; i < num_vars; i++) {
        void *dst = va_arg(ap, void *);
        if (dst != NULL) (void)config_get(GOABT_CONFIG_SCHED, c->id, i, NULL, dst);
    }
    va_end(ap);
    return ABT_SUCCESS;
}

int ABT_sched_config_free(ABT_sched_config *config)
{
    GOABT_CHECK_TRUE(config != NULL, ABT_ERR_INV_SCHED_CONFIG);
    GOABT_SCHED_CONFIG(c, *config);
    GOABT_LEAK_FORGET(c);
    goabt_config_free(GOABT_CONFIG_SCHED, c->id);
    goabt_mem_delete(c, sizeof *c);
    *config = ABT_SCHED_CONFIG_NULL;
    return ABT_SUCCESS;
}

int ABT_sched_config_set(ABT_sched_config config, int idx, ABT_sched_config_type type,
                         const void *val)
{
    GOABT_SCHED_CONFIG(c, config);
    return config_set(GOABT_CONFIG_SCHED, c->id, idx, (int)type, val);
}

int ABT_sched_config_get(ABT_sched_config config, int idx, ABT_sched_config_type *p_type,
                         void *val)
{
    GOABT_SCHED_CONFIG(c, config);
    int type;
    int rc = config_get(GOABT_CONFIG_SCHED, c->id, idx, &type, val);
    if (rc == ABT_SUCCESS && p_type != NULL) *p_type = (ABT_sched_config_type)type;
    return rc;
}

int goabt_sched_config_int(ABT_sched_config config, int key, int def)
{
    struct ABT_sched_config_opaque *c = goabt_sched_config_of(config);
    return c != NULL ? config_int(GOABT_CONFIG_SCHED, c->id, key, def) : def;
}

/* ---- Pool configurations ---------------------------------------------------------------------- */

int ABT_pool_config_create(ABT_pool_config *config)
{
    if (config != NULL) *config = ABT_POOL_CONFIG_NULL;
    GOABT_CHECK_NOT_FORKED();
    GOABT_CHECK_OUT(config);
    int id = goabt_config_create(GOABT_CONFIG_POOL);
    if (id == 0) return ABT_ERR_MEM;
    struct ABT_pool_config_opaque *c = goabt_mem_new(sizeof *c);
    if (c == NULL) {
        goabt_config_free(GOABT_CONFIG_POOL, id);
        return ABT_ERR_MEM;
    }
    c->id = id;
    __atomic_store_n(&c->magic, GOABT_MAGIC_POOL_CONFIG, __ATOMIC_RELEASE);
    GOABT_LEAK_NOTE(GOABT_LEAK_POOL_CONFIG, c);
    *config = c;
    return ABT_SUCCESS;
}

int ABT_pool_config_free(ABT_pool_config *config)
{
    GOABT_CHECK_OUT(config);
    GOABT_POOL_CONFIG(c, *config);
    GOABT_LEAK_FORGET(c);
    goabt_config_free(GOABT_CONFIG_POOL, c->id);
    goabt_mem_delete(c, sizeof *c);
    *config = ABT_POOL_CONFIG_NULL;
    return ABT_SUCCESS;
}

int ABT_pool_config_set(ABT_pool_config config, int key, ABT_pool_config_type type,
                        const void *val)
{
    GOABT_POOL_CONFIG(c, config);
    return config_set(GOABT_CONFIG_POOL, c->id, key, (int)type, val);
}

int ABT_pool_config_get(ABT_pool_config config, int key, ABT_pool_config_type *p_type, void *val)
{
    GOABT_POOL_CONFIG(c, config);
    int type;
    int rc = config_get(GOABT_CONFIG_POOL, c->id, key, &type, val);
    if (rc == ABT_SUCCESS && p_type != NULL) *p_type = (ABT_pool_config_type)type;
    return rc;
}

int goabt_pool_config_int(ABT_pool_config config, int key, int def)
{
    struct ABT_pool_config_opaque *c = goabt_pool_config_of(config);
    return c != NULL ? config_int(GOABT_CONFIG_POOL, c->id, key, def) : def;
}
