//go:build goabt_c_engine
/* Scheduler configurations (ABT_sched_config_*): a small table of (index, type, value) entries.
 * Negative indices are the runtime's own variables (sched_config_vars.c); a user scheduler keeps
 * its own at 0, 1, 2 … and reads them back with ABT_sched_config_read. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "engine/leaks.h"
#include "engine/object.h"
#include "engine/runtime.h"

#define CONFIG_MAGIC 0x53434647 /* "SCFG" */
#define CONFIG_MAX_ENTRIES 64

struct config_entry {
    int idx;
    ABT_sched_config_type type;
    union {
        int i;
        double d;
        void *p;
    } value;
};

struct ABT_sched_config_opaque {
    int n;
    uint32_t magic;
    struct config_entry entries[CONFIG_MAX_ENTRIES];
};

static struct ABT_sched_config_opaque *config_of(ABT_sched_config h)
{
    if (h == NULL || h == ABT_SCHED_CONFIG_NULL || (uintptr_t)h < 4096) return NULL;
    return h->magic == CONFIG_MAGIC && !goabt_forked() ? h : NULL;
}

static struct config_entry *find(struct ABT_sched_config_opaque *c, int idx)
{
    for (int i = 0; i < c->n; i++) {
        if (c->entries[i].idx == idx) return &c->entries[i];
    }
    return NULL;
}

static size_t value_size(ABT_sched_config_type type)
{
    switch (type) {
    case ABT_SCHED_CONFIG_INT:
        return sizeof(int);
    case ABT_SCHED_CONFIG_DOUBLE:
        return sizeof(double);
    case ABT_SCHED_CONFIG_PTR:
        return sizeof(void *);
    }
    return 0;
}

static int put(struct ABT_sched_config_opaque *c, int idx, ABT_sched_config_type type,
               const void *val)
{
    if (value_size(type) == 0) return ABT_ERR_INV_ARG;
    struct config_entry *e = find(c, idx);
    if (e == NULL) {
        if (c->n == CONFIG_MAX_ENTRIES) return ABT_ERR_SCHED_CONFIG;
        e = &c->entries[c->n++];
    }
    e->idx = idx;
    e->type = type;
    memcpy(&e->value, val, value_size(type));
    return ABT_SUCCESS;
}

int ABT_sched_config_create(ABT_sched_config *config, ...)
{
    GOABT_CHECK_NOT_FORKED();
    if (config == NULL) return ABT_ERR_INV_ARG;
    *config = ABT_SCHED_CONFIG_NULL;
    struct ABT_sched_config_opaque *c = goabt_mem_new(sizeof *c);
    if (c == NULL) return ABT_ERR_MEM;
    c->magic = CONFIG_MAGIC;
    va_list ap;
    va_start(ap, config);
    int rc = ABT_SUCCESS;
    for (;;) {
        ABT_sched_config_var var = va_arg(ap, ABT_sched_config_var);
        if (var.idx == ABT_sched_config_var_end.idx) break;
        if (var.type == ABT_SCHED_CONFIG_INT) {
            int v = va_arg(ap, int);
            rc = put(c, var.idx, var.type, &v);
        } else if (var.type == ABT_SCHED_CONFIG_DOUBLE) {
            double v = va_arg(ap, double);
            rc = put(c, var.idx, var.type, &v);
        } else if (var.type == ABT_SCHED_CONFIG_PTR) {
            void *v = va_arg(ap, void *);
            rc = put(c, var.idx, var.type, &v);
        } else {
            rc = ABT_ERR_INV_ARG; /* the rest of the list cannot be read safely */
        }
        if (rc != ABT_SUCCESS) break;
    }
    va_end(ap);
    if (rc != ABT_SUCCESS) {
        goabt_mem_delete(c, sizeof *c);
        return rc;
    }
    GOABT_LEAK_NOTE(GOABT_LEAK_SCHED_CONFIG, c);
    *config = c;
    return ABT_SUCCESS;
}

int ABT_sched_config_read(ABT_sched_config config, int num_vars, ...)
{
    struct ABT_sched_config_opaque *c = config_of(config);
    if (c == NULL) return ABT_ERR_INV_SCHED_CONFIG;
    if (num_vars < 0) return ABT_ERR_INV_ARG;
    va_list ap;
    va_start(ap, num_vars);
    for (int i = 0; i < num_vars; i++) {
        void *dst = va_arg(ap, void *);
        struct config_entry *e = find(c, i);
        if (e != NULL && dst != NULL) memcpy(dst, &e->value, value_size(e->type));
    }
    va_end(ap);
    return ABT_SUCCESS;
}

int ABT_sched_config_free(ABT_sched_config *config)
{
    if (config == NULL) return ABT_ERR_INV_SCHED_CONFIG;
    struct ABT_sched_config_opaque *c = config_of(*config);
    if (c == NULL) return ABT_ERR_INV_SCHED_CONFIG;
    GOABT_LEAK_FORGET(c);
    goabt_mem_delete(c, sizeof *c);
    *config = ABT_SCHED_CONFIG_NULL;
    return ABT_SUCCESS;
}

int ABT_sched_config_set(ABT_sched_config config, int idx, ABT_sched_config_type type,
                         const void *val)
{
    struct ABT_sched_config_opaque *c = config_of(config);
    if (c == NULL) return ABT_ERR_INV_SCHED_CONFIG;
    if (val == NULL) {
        struct config_entry *e = find(c, idx);
        if (e != NULL) *e = c->entries[--c->n];
        return ABT_SUCCESS;
    }
    return put(c, idx, type, val);
}

int ABT_sched_config_get(ABT_sched_config config, int idx, ABT_sched_config_type *p_type,
                         void *val)
{
    struct ABT_sched_config_opaque *c = config_of(config);
    if (c == NULL) return ABT_ERR_INV_SCHED_CONFIG;
    struct config_entry *e = find(c, idx);
    if (e == NULL) return ABT_ERR_INV_ARG;
    if (p_type != NULL) *p_type = e->type;
    if (val != NULL) memcpy(val, &e->value, value_size(e->type));
    return ABT_SUCCESS;
}

/* The int stored at idx, or def. */
int goabt_sched_config_int(ABT_sched_config config, int idx, int def)
{
    struct ABT_sched_config_opaque *c = config_of(config);
    struct config_entry *e = c != NULL ? find(c, idx) : NULL;
    return e != NULL && e->type == ABT_SCHED_CONFIG_INT ? e->value.i : def;
}
