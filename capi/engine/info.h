/* info.h: what the rest of the engine calls of info.c and info_print.c (configuration at init,
 * the stack dump ABT_info_trigger_print_all_thread_stacks asks for). Internal. */
#ifndef GOABT_INFO_H
#define GOABT_INFO_H

#include "common.h"

/* Reads what info.c shows of the Go core's configuration; 1 if ABT_PRINT_CONFIG asks for the
 * configuration at ABT_init. Called by goabt_engine_init, on the main thread, no ULT running. */
int goabt_info_at_init(void) GOABT_HIDDEN;

/* Prints the configuration on stdout if ABT_PRINT_CONFIG asked for it (ABT_init, once
 * initialized). */
void goabt_info_print_at_init(void) GOABT_HIDDEN;

/* The stack dump requested by ABT_info_trigger_print_all_thread_stacks (info_print.c). A request
 * makes goabt_timers_earliest look due (wait.c keeps it so while one is pending), so that every
 * scheduler, which tests that word each round anyway, calls goabt_timers_fire, which calls
 * goabt_info_stacks_at_sched_point: nothing is added to the schedulers' loops. */
extern int goabt_info_stacks_state GOABT_HIDDEN; /* info_print.c: 2 while a request waits */
static inline int goabt_info_stacks_pending(void)
{
    return __atomic_load_n(&goabt_info_stacks_state, __ATOMIC_SEQ_CST) == 2;
}
void goabt_info_stacks_at_sched_point(void) GOABT_HIDDEN;

#endif /* GOABT_INFO_H */
