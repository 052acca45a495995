/* goabt.h: goabt's own C entry points, beside the Argobots API of abt.h (which stays exactly
 * Argobots 1.2's). Include it after, or instead of, abt.h; link libgoabt.so as for abt.h.
 *
 * Pools and schedulers written in Go. A runtime author writes a pool (the Go interface
 * core.Pool: Push, Pop, Len) or a scheduling policy (core.Policy: Pick, which pool a stream pops
 * next) in Go and registers it under a name (core.RegisterPool, core.RegisterPolicy; docs/go-extensions.md,
 * "Writing a pool or scheduler in Go"). goabt ships two:
 *   "ws"        a work-stealing pool: one FIFO queue per execution stream; a push goes to the
 *               pushing stream's queue, a pop takes from the caller's own queue first and else
 *               steals half (at most 32 units) of another's, oldest first (every 16th pop of a
 *               stream steals first, so that a ULT yielding in a loop does not keep its stream
 *               from units other streams pushed);
 *   "deadline"  a priority scheduler under which no pool starves: pools in priority order
 *               (pool 0 first), except that a pool whose units have waited longer than its
 *               budget (100 us << its index) is served first, the earliest deadline first.
 *
 * A C program gets them two ways:
 *   - unchanged, through the environment, read at the first ABT_init:
 *       GOABT_POOL=<name>   every pool goabt would make predefined is this Go pool instead:
 *                           those of ABT_pool_create_basic (any kind), of the predefined and
 *                           default schedulers (ABT_sched_create_basic, ABT_xstream_create with
 *                           ABT_SCHED_NULL, the primary stream's) and of user schedulers given
 *                           ABT_POOL_NULL;
 *       GOABT_SCHED=<name>  every predefined scheduler (ABT_sched_create_basic of any kind, the
 *                           default scheduler of new streams and of the primary stream) picks
 *                           its next pool with this Go policy instead of "first non-empty";
 *     ABT_init returns ABT_ERR_INV_ARG, and says why on stderr, when a name is not registered;
 *   - by name, through the two functions below.
 *
 * What they cost: every call from C into Go crosses the gate (about 80 ns on the 2-core machine
 * goabt is measured on, less from a secondary stream, whose thread runs inside a call from Go:
 * docs/go-extensions.md), so a Go pool costs a crossing per pop that finds a unit (its pushes
 * are kept in C, up to 64, and handed over in that crossing), or per batch of up to 64 units
 * when the pool gives several per pop (core.Batcher: "ws" does; the others wait in C for the
 * pool's next pops, still counted, removable and listed as its units); the engine counts a Go pool's
 * units in C, so that checking a pool for work (what idle streams do) never crosses. A Go scheduler costs one crossing per unit it runs, when it has two pools or
 * more (with one there is nothing to choose, and it is not asked), or per lease when its
 * policy leases its choices (core.Leaser: "deadline" does). `make bench` prints ULT
 * create + join + free on each Go pool and scheduler next to goabt's C FIFO.
 *
 * A Go pool is a user-defined pool to the rest of the API: ABT_pool_get_size, is_empty,
 * push/pop (the thread and unit functions), pop_wait, ABT_pool_free and the scheduler functions
 * work on it; ABT_pool_remove works when the Go pool can remove units (core.Remover: "ws" can),
 * else returns ABT_ERR_POOL; ABT_pool_print_all returns ABT_ERR_POOL. Its pool units
 * (ABT_unit) are the work units' handles. A Go scheduler is a predefined one to the rest of
 * the API (finish, exit, sizes, ABT_sched_free, a stream's main scheduler). */
#ifndef GOABT_H
#define GOABT_H

#include <stdio.h>
#include <abt.h>

/* goabt's own version: of the runtime and of the entry points below. The Argobots API it
 * implements has a version of its own, abt.h's ABT_VERSION and ABT_NUMVERSION (docs/install.md,
 * "Versions"). The Makefile reads GOABT_VERSION from this line for goabt.pc, and the CMake
 * package reads it from the installed header. */
#define GOABT_VERSION "0.1.0"
#define GOABT_VERSION_MAJOR 0
#define GOABT_VERSION_MINOR 1
#define GOABT_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

/* Create a pool from the Go pool registered as name, as ABT_pool_create_basic creates a
 * predefined one: access is a hint (every pool takes any producer and consumer), automatic
 * ABT_TRUE frees it with the last scheduler that uses it. ABT_ERR_UNINITIALIZED outside
 * ABT_init ... ABT_finalize, ABT_ERR_INV_POOL_ACCESS for an unknown access, ABT_ERR_INV_ARG when
 * name or newpool is NULL or no Go pool is registered as name (*newpool is then
 * ABT_POOL_NULL), ABT_ERR_MEM when out of memory. */
int goabt_pool_create_go(const char *name, ABT_pool_access access, ABT_bool automatic,
                         ABT_pool *newpool);

/* Create a scheduler over num_pools pools (1 to 64), in priority order, that the Go policy
 * registered as name runs: pools NULL, or ABT_POOL_NULL entries, give new pools (GOABT_POOL's Go
 * pool, or goabt's FIFO), freed with the scheduler. It is used as a predefined one: the main
 * scheduler of a stream (ABT_xstream_create, ABT_xstream_set_main_sched), freed with that stream
 * unless config's ABT_sched_config_automatic says 0. ABT_ERR_UNINITIALIZED outside ABT_init ...
 * ABT_finalize, ABT_ERR_INV_ARG when name or newsched is NULL, num_pools is out of range or no
 * Go policy is registered as name (*newsched is then ABT_SCHED_NULL), ABT_ERR_INV_POOL for an
 * invalid pool handle, ABT_ERR_MEM when out of memory. */
int goabt_sched_create_go(const char *name, int num_pools, ABT_pool *pools,
                          ABT_sched_config config, ABT_sched *newsched);

/* ---- What waits where: for tests and diagnostics ------------------------------------------
 * States Argobots has no query for, so that a program (goabt's own tests first) can wait until
 * one is reached instead of sleeping and hoping. Each answer is a snapshot: it may have changed
 * by the time the caller reads it. */

/* Write into *num how many execution streams sleep idle on pool, waiting for a push into it to
 * wake them (a stream whose scheduler found no work in any of its pools lists itself in each),
 * and callers blocked in ABT_pool_pop_wait on it (ULTs parked, other callers asleep; where a
 * BASIC_WAIT scheduler's stream waits). A user-defined pool's own pop_wait is not seen. ABT_ERR_INV_POOL for an invalid
 * handle, ABT_ERR_INV_ARG when num is NULL. */
int goabt_pool_get_num_idle_streams(ABT_pool pool, int *num);

/* Write into *num how many callers wait in line for mutex (ULTs parked, external threads and
 * tasklets asleep; not those still yielding before they queue). ABT_ERR_INV_MUTEX for an
 * invalid handle, ABT_ERR_INV_ARG when num is NULL. */
int goabt_mutex_get_num_waiters(ABT_mutex mutex, int *num);

/* Write into *num how many callers are blocked in ABT_eventual_wait or ABT_eventual_timedwait
 * on eventual (ULTs parked, external threads asleep). Static memory works before ABT_init, as the
 * eventual does. ABT_ERR_INV_EVENTUAL for an invalid handle, ABT_ERR_INV_ARG when num is NULL. */
int goabt_eventual_get_num_waiters(ABT_eventual eventual, int *num);

/* Print to fp every work unit that is not finished, as GOABT_WATCHDOG and GOABT_DUMP_SIGNAL
 * print it on stderr (docs/hangs.md): what each waits on, with the object's address,
 * the function it was created with, its pool and stream, and for a parked ULT the code addresses
 * on its stack; each line starts with "goabt: ". Callable from any ULT, tasklet or external
 * thread. ABT_ERR_UNINITIALIZED outside ABT_init ... ABT_finalize, ABT_ERR_INV_ARG when fp is
 * NULL, ABT_ERR_MEM when out of memory. */
int goabt_info_print_units(FILE *fp);

#ifdef __cplusplus
}
#endif

#endif /* GOABT_H */
