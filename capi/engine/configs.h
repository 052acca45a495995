/* configs.h: pool and scheduler configurations (ABT_pool_config, ABT_sched_config) on the C
 * side. Both are one idea, a map from an integer key to a typed value, kept by the Go core
 * (core.Configs, capi/config.go); a handle is a C object (its magic: handles.h) that carries
 * the id of its map there. api/config.c holds the entry points: the handle checks and the
 * variadic argument walking of ABT_sched_config_create and _read, the rest is a gated call.
 * capi/config.go includes this header alone and checks its numbers against core's. */
#ifndef GOABT_CONFIGS_H
#define GOABT_CONFIGS_H

#include <stdint.h>

/* The two kinds (core.PoolConfig, core.SchedConfig): which registry an id belongs to. */
#define GOABT_CONFIG_POOL 0
#define GOABT_CONFIG_SCHED 1

/* What an ABT_pool_config and an ABT_sched_config point to: the object header (object.h),
 * then the Go core's id. */
struct ABT_pool_config_opaque {
    uint32_t flags;
    uint32_t magic; /* GOABT_MAGIC_POOL_CONFIG */
    int id;
};
struct ABT_sched_config_opaque {
    uint32_t flags;
    uint32_t magic; /* GOABT_MAGIC_SCHED_CONFIG */
    int id;
};

#endif /* GOABT_CONFIGS_H */
