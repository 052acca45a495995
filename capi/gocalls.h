/* gocalls.h: how the C engine calls the Go core (the exports of capi/ in Go, over core/). The exports and how C
 * calls each are listed once, in capi/gocalls.list; make writes from it (capi/gocalls) the
 * table goabt_go and the gated wrappers, in gocalls_gen.h, included below, and the names
 * golib.c looks up. A gated wrapper (goabt_unit_get, goabt_key_create ...) is safe from any
 * stack: it goes through the gate (docs/design.md rule 3) and loads the Go core if need be.
 * A direct entry is called as goabt_go.FIELD(...) by code that is on the system stack already
 * and has checked goabt_go_available. C memory crosses as uintptr_t, never as a pointer type:
 * Go then never stores a pointer into C memory (core.Addr, docs/design.md rule 11). */
#ifndef GOABT_GOCALLS_H
#define GOABT_GOCALLS_H

#include <stddef.h>
#include <stdint.h>
#include "engine/runtime.h"
#include "goconfig.h"
#include "engine/leaks.h"
#include "info_facts.h"

/* Loads the Go core on first use (call it on the system stack: inside a gated function);
 * 0 if it cannot be used: not found, or this process was forked after it started (golib.c),
 * which it then says once on stderr. */
int goabt_go_available(void) GOABT_HIDDEN;
/* Why goabt_go_available said no: ABT_ERR_MEM when the address-space limit leaves the Go
 * runtime no room to start, ABT_ERR_SYS when the threads it needs cannot be started (each said
 * on stderr; a later call tries again), else ABT_ERR_OTHER. */
int goabt_go_unavailable_error(void) GOABT_HIDDEN;
/* Whether addr is code of the loaded Go core's (a signal handler the Go runtime installed). */
int goabt_go_owns_code(const void *addr) GOABT_HIDDEN;
/* Whether this process was forked after the Go core started (then says so once on stderr). */
int goabt_go_forked(void) GOABT_HIDDEN;
/* GOABT_OPAL_RACE_ABORT: nonzero when the OPAL race check aborts after its report. Set by
 * golib.c when it loads the Go core, read by api/opal.c's report. */
extern int goabt_opal_race_abort GOABT_HIDDEN;

/* The program's signal handlers beside the Go runtime (golib_signals.c): golib.c calls the
 * first three around the load; the outermost ABT_init takes the signals goabt needs while it
 * runs (goabt_signals_take, once the Go core is loaded), the outermost ABT_finalize gives the
 * program back its own actions, exactly (goabt_signals_give_back). */
void goabt_signals_before_load(void) GOABT_HIDDEN;
void goabt_signals_after_load(void) GOABT_HIDDEN;
void goabt_signals_load_failed(void) GOABT_HIDDEN;
void goabt_signals_take(void) GOABT_HIDDEN;
void goabt_signals_give_back(void) GOABT_HIDDEN;
/* Takes action a for signal sig (si, ctx: the handler's arguments) as the kernel would have: a
 * handler is called (and reset to SIG_DFL first if a has SA_RESETHAND); SIG_IGN ignores a sent
 * signal; otherwise the default action is restored, so that a fault happens again when the
 * instruction is retried and kills the process, and a sent signal is sent again.
 * Async-signal-safe: for handlers that chain to another (golib_signals.c, stackcheck.c). */
void goabt_signal_take_action(struct sigaction *a, int sig, siginfo_t *si, void *ctx) GOABT_HIDDEN;

#include "gocalls_gen.h"

#endif
