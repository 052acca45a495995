//go:build goabt_c_engine
/*
 * sched_config_vars.c: the predefined configuration variables that abt.h declares extern.
 *
 * Programs pass these by value (ABT_sched_config_create takes them as variadic arguments) and
 * compare their idx/key fields, so the values are those of Argobots 1.2: the runtime reserves the
 * negative indices, all four scheduler variables and the pool variable carry an int.
 */
#include "abt.h"

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
