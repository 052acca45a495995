/* info.h: info printing's engine (info.c: configuration at init, the facts of objects and
 * stacks, the stack dump ABT_info_trigger_print_all_thread_stacks asks for, and the text from
 * the Go core) and the hang report (hang.c). The entries: api/info.c, api/info_print.c,
 * api/info_hang.c. Internal. */
#ifndef GOABT_INFO_H
#define GOABT_INFO_H

#include <stdio.h>
#include "common.h"
#include "info_facts.h"
#include "pool.h"
#include "scheduler.h"

/* A pool's and a scheduler's kind as the facts of info printing and of the leak report name
 * them (GOABT_INFO_POOL_*, GOABT_INFO_SCHED_*): each kind says its own (its ops). */
static inline int goabt_info_pool_kind(const goabt_pool *p) { return p->ops->info_kind(p); }
static inline int goabt_info_sched_kind(const goabt_sched *sc) { return sc->ops->info_kind(sc); }

/* The texts the Go core makes from facts (info_facts.h, core/info.go): which one. */
enum {
    GOABT_INFO_TEXT_CONFIG,      /* facts: struct goabt_info_config */
    GOABT_INFO_TEXT_STREAMS,     /* struct goabt_info_stream[a]; b: the number of streams, or -1 */
    GOABT_INFO_TEXT_SCHED,       /* struct goabt_info_sched */
    GOABT_INFO_TEXT_POOL,        /* struct goabt_info_pool */
    GOABT_INFO_TEXT_UNIT,        /* struct goabt_info_unit; a: 1 for its stack */
    GOABT_INFO_TEXT_ATTR,        /* struct goabt_info_attr */
    GOABT_INFO_TEXT_POOL_STACKS, /* struct goabt_info_pool_units */
    GOABT_INFO_TEXT_DUMP,        /* struct goabt_info_dump */
};

/* Asks the Go core for the text of facts (through the gate) and writes it to fp; flushes fp. */
void goabt_info_write(FILE *fp, int what, const void *facts, int a, int b) GOABT_HIDDEN;

/* What the Go core's configuration adds, read at every outermost ABT_init (goabt_info_at_init:
 * 1 if ABT_PRINT_CONFIG asks for the configuration then; called by goabt_engine_init, on the
 * main thread, no ULT running): the names of the Go pool and policy replacing the predefined
 * ones ("" for none). */
struct goabt_info_go_config {
    int print_config; /* ABT_PRINT_CONFIG */
    int check_leaks;  /* GOABT_CHECK_LEAKS: 0 off, 1 on, 2 fatal */
    char go_pool[64];
    char go_sched[64];
};
extern struct goabt_info_go_config goabt_info_go_config GOABT_HIDDEN;
int goabt_info_at_init(void) GOABT_HIDDEN;

/* Prints the configuration on stdout if ABT_PRINT_CONFIG asked for it (ABT_init, once
 * initialized). */
void goabt_info_print_at_init(void) GOABT_HIDDEN;

/* The stack dump requested by ABT_info_trigger_print_all_thread_stacks (info_print.c). A request
 * makes goabt_timers_earliest look due (wait.c keeps it so while one is pending), so that every
 * scheduler, which tests that word each round anyway, calls goabt_timers_fire, which calls
 * goabt_info_stacks_at_sched_point: nothing is added to the schedulers' loops. */
extern int goabt_info_stacks_state GOABT_HIDDEN; /* info.c: 2 while a request waits */
static inline int goabt_info_stacks_pending(void)
{
    return __atomic_load_n(&goabt_info_stacks_state, __ATOMIC_SEQ_CST) == 2;
}
void goabt_info_stacks_at_sched_point(void) GOABT_HIDDEN;
/* Asks for that dump (async-signal-safe); a request already pending prints instead. */
void goabt_info_stacks_request(FILE *fp, double timeout, void (*cb)(ABT_bool, void *), void *arg)
    GOABT_HIDDEN;

/* Facts as the info prints show them (info.c): u's, without its stack or with it; a pool's; a
 * stream's (its pool_ids malloc'd); a scheduler's pool ids (malloc'd, *n of them); a pool's
 * units with their stacks (freed by goabt_info_pool_units_free; 0 when memory ran out). */
void goabt_info_unit_facts(goabt_unit *u, struct goabt_info_unit *f) GOABT_HIDDEN;
void goabt_info_unit_facts_with(goabt_unit *u, struct goabt_info_unit *f, int with_stack)
    GOABT_HIDDEN;
void goabt_info_pool_facts(goabt_pool *p, struct goabt_info_pool *f) GOABT_HIDDEN;
void goabt_info_stream_facts(goabt_stream *s, struct goabt_info_stream *f) GOABT_HIDDEN;
int *goabt_info_pool_ids(const goabt_sched *sc, int *n) GOABT_HIDDEN;
int goabt_info_pool_units_facts(goabt_pool *p, struct goabt_info_pool_units *f) GOABT_HIDDEN;
void goabt_info_pool_units_free(struct goabt_info_pool_units *f) GOABT_HIDDEN;

/* The hang report (hang.c): GOABT_WATCHDOG's watchdog and GOABT_DUMP_SIGNAL's handler,
 * started at the end of ABT_init when either is set, stopped in ABT_finalize once the secondary
 * streams are joined (its thread reads unit descriptors, which finalize then gives back). */
void goabt_hang_start(void) GOABT_HIDDEN;
void goabt_hang_stop(void) GOABT_HIDDEN;
/* The report's text for every unit not finished (malloc'd), or NULL when memory ran out or the
 * Go core is not there: goabt_info_print_units. */
char *goabt_hang_units_text(void) GOABT_HIDDEN;

#endif /* GOABT_INFO_H */
