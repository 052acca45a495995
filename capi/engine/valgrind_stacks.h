/*
 * valgrind_stacks.h: telling valgrind's memcheck about the stacks goabt switches between.
 * Internal.
 *
 * Memcheck follows the stack pointer: when it moves down by a few bytes, the memory it uncovers
 * becomes addressable (undefined); when it moves up, the memory it leaves becomes inaccessible,
 * and so does everything below it on that stack until the pointer comes down again. A move of
 * the stack pointer into another registered stack is taken for a switch and changes nothing.
 * Without registration, a context switch between two ULT stacks mapped near each other would
 * read as a huge frame pushed or popped and mark whatever lies between them. So:
 *   - ULT stacks are registered (unit_stack.c, unit_internal.h): a goabt stack from the moment
 *     its mapping is attached to a descriptor until it goes back to the Go core, a user stack
 *     (ABT_thread_attr_set_stack) from create until the descriptor is released. Valgrind
 *     registers every thread's own stack itself (the main stack at start, the others at clone),
 *     streams' system stacks included.
 *   - A stack handed to a unit is made undefined: its contents are garbage to the new ULT, and
 *     parts of it may be inaccessible to memcheck since a previous user's frames popped there
 *     (a stack the Go core kept for reuse, or a user stack used again).
 *   - The gate (runtime.c) hops from a ULT stack to the system stack, below the scheduler's
 *     saved registers, memory that memcheck marked inaccessible when the scheduler's frames
 *     popped. A switch changes no marking, so the first push there (the call's return address,
 *     in the red zone memcheck assumes addressable below the stack pointer) would be an invalid
 *     write: the red zone under the new stack pointer is made addressable first. Deeper frames
 *     are pushed as usual and memcheck follows them.
 *
 * Only the valgrind build of the library (`make lib-valgrind`, build/valgrind/, which defines
 * GOABT_VALGRIND and needs valgrind's headers) makes these client requests; in every other
 * build the functions are empty, so the library programs normally link has none, on any path.
 */
#ifndef GOABT_VALGRIND_STACKS_H
#define GOABT_VALGRIND_STACKS_H

#include <stddef.h>

#ifdef GOABT_VALGRIND
#include <valgrind/memcheck.h>
#include <valgrind/valgrind.h>

/* What memcheck takes to be addressable below the stack pointer (the x86-64 ABI's red zone),
 * plus the 16 bytes goabt_gate_call may round the stack top down by. */
#define GOABT_VG_HOP_ZONE (128 + 16)

/* Registers [lo, hi) as a stack whose contents are undefined; returns valgrind's id for it
 * (never 0, which is the main thread's stack). */
static inline unsigned goabt_vg_stack_register(void *lo, void *hi)
{
    VALGRIND_MAKE_MEM_UNDEFINED(lo, (char *)hi - (char *)lo);
    return VALGRIND_STACK_REGISTER(lo, hi);
}

/* Forgets a stack registered with goabt_vg_stack_register; id 0 (none) is ignored. */
static inline void goabt_vg_stack_deregister(unsigned id)
{
    if (id != 0) VALGRIND_STACK_DEREGISTER(id);
}

/* The gate is about to move the stack pointer to top, on another stack. */
static inline void goabt_vg_stack_hop(void *top)
{
    VALGRIND_MAKE_MEM_UNDEFINED((char *)top - GOABT_VG_HOP_ZONE, GOABT_VG_HOP_ZONE);
}
#else
static inline unsigned goabt_vg_stack_register(void *lo, void *hi)
{
    (void)lo;
    (void)hi;
    return 0;
}

static inline void goabt_vg_stack_deregister(unsigned id) { (void)id; }

static inline void goabt_vg_stack_hop(void *top) { (void)top; }
#endif

#endif /* GOABT_VALGRIND_STACKS_H */
