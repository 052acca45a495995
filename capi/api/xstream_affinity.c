//go:build goabt_c_engine
/*
 * xstream_affinity.c: ABT_xstream_set_cpubind, _get_cpubind, _set_affinity and _get_affinity,
 * over the engine's CPU binding (engine/stream_affinity.c: design at its top).
 *
 * The four calls work while ABT_SET_AFFINITY binds streams (goabt_rt.affinity, what
 * ABT_INFO_QUERY_KIND_ENABLED_AFFINITY reports); otherwise they answer ABT_ERR_FEATURE_NA, as a
 * default native build, which has no affinity support, does: clients report these answers
 * beside the query's.
 */
#define _GNU_SOURCE
#include "args.h"
#include "engine/handles.h"
#include "engine/runtime.h"
#include "engine/stream.h"

int ABT_xstream_set_cpubind(ABT_xstream xstream, int cpuid)
{
    GOABT_CHECK_INIT();
    GOABT_STREAM(s, xstream);
    if (!goabt_rt.affinity) return ABT_ERR_FEATURE_NA;
    if (cpuid < 0 || cpuid >= CPU_SETSIZE) return ABT_ERR_CPUID;
    cpu_set_t want;
    CPU_ZERO(&want);
    CPU_SET(cpuid, &want);
    return goabt_stream_bind(s, &want);
}

int ABT_xstream_get_cpubind(ABT_xstream xstream, int *cpuid)
{
    GOABT_CHECK_INIT();
    GOABT_STREAM(s, xstream);
    if (!goabt_rt.affinity) return ABT_ERR_FEATURE_NA;
    GOABT_CHECK_OUT(cpuid);
    cpu_set_t set;
    int rc = goabt_stream_cpus(s, &set);
    if (rc != ABT_SUCCESS) return rc;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET(cpu, &set)) {
            *cpuid = cpu; /* bound to several: the lowest */
            return ABT_SUCCESS;
        }
    }
    return ABT_ERR_FEATURE_NA; /* bound to none: Argobots 1.x's answer */
}

int ABT_xstream_set_affinity(ABT_xstream xstream, int num_cpuids, int *cpuids)
{
    GOABT_CHECK_INIT();
    GOABT_STREAM(s, xstream);
    GOABT_CHECK_ARG(num_cpuids >= 0 && (num_cpuids == 0 || cpuids != NULL));
    if (!goabt_rt.affinity) return ABT_ERR_FEATURE_NA;
    cpu_set_t want;
    if (num_cpuids == 0) {
        want = goabt_rt.cpus; /* no binding: the CPUs the process could use at ABT_init */
    } else {
        CPU_ZERO(&want);
        for (int i = 0; i < num_cpuids; i++) {
            if (cpuids[i] < 0 || cpuids[i] >= CPU_SETSIZE) return ABT_ERR_CPUID;
            CPU_SET(cpuids[i], &want);
        }
    }
    return goabt_stream_bind(s, &want);
}

int ABT_xstream_get_affinity(ABT_xstream xstream, int max_cpuids, int *cpuids, int *num_cpuids)
{
    GOABT_CHECK_INIT();
    GOABT_STREAM(s, xstream);
    GOABT_CHECK_ARG(max_cpuids >= 0 && (max_cpuids == 0 || cpuids != NULL));
    if (!goabt_rt.affinity) return ABT_ERR_FEATURE_NA;
    cpu_set_t set;
    int rc = goabt_stream_cpus(s, &set);
    if (rc != ABT_SUCCESS) return rc;
    int n = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &set)) continue;
        if (n < max_cpuids) cpuids[n] = cpu;
        n++;
    }
    if (n == 0) return ABT_ERR_FEATURE_NA; /* bound to none: Argobots 1.x's answer */
    if (num_cpuids != NULL) *num_cpuids = n;
    return ABT_SUCCESS;
}
