/*
 * context.h: the context-switch primitives user-level threads are built on (context_amd64.S,
 * context_arm64.S). Internal to libgoabt.so: the symbols are hidden, never exported.
 *
 * A context is saved by pushing, on its own stack, exactly the registers the platform ABI says a
 * called function must preserve, so C code may switch in the middle of any function (the call to
 * goabt_ctx_switch is an ordinary call: the compiler has already spilled everything else):
 *   - x86-64 SysV: rbx, rbp, r12-r15, the MXCSR (SSE rounding mode, exception masks and flags)
 *     and the x87 FPU control word; the return address is the resume point.
 *     Frame: 64 bytes, [sp] MXCSR, [sp+4] x87 CW, [sp+8] r15 r14 r13 r12 rbx rbp, [sp+56] rip.
 *   - AAPCS64: x19-x28, x29 (frame pointer), x30 (link register, the resume point), d8-d15 and
 *     FPCR (written back only when it differs: writing FPCR is slow on some cores).
 *     Frame: 176 bytes, [sp] x19..x28 x29 x30, [sp+96] d8..d15, [sp+160] FPCR.
 * Every other register is caller-saved by the ABI and is not preserved. x86-64 shadow stacks
 * (CET) and arm64 pointer authentication of the saved link register are not supported: the
 * objects carry no GNU property note claiming them, so the linker leaves them off.
 *
 * The functions touch no memory but the two stacks involved and *save; they do not synchronize.
 * A context must be resumed at most once per save, and never while it runs.
 */
#ifndef GOABT_CONTEXT_H
#define GOABT_CONTEXT_H

#include <stddef.h>

/* A suspended execution context is its stack pointer: the callee-saved registers sit on that
 * stack, so the context stays valid exactly as long as the stack memory does. */
typedef void *goabt_ctx;

/* Bytes goabt_ctx_make writes at the top of a fresh stack, alignment slack included, on every
 * supported architecture (x86-64 uses at most 95, arm64 at most 207); fn gets the rest. */
#define GOABT_CTX_MAKE_RESERVE 256

/* The smallest ULT stack goabt uses (docs/design.md, rule 2): below a guard page, a
 * C function, the gate's frame and first-call symbol binding fit in 8 KiB with room to spare. */
#define GOABT_CTX_MIN_STACK 8192

/* Whether a stack of `size` bytes is large enough to hand to goabt_ctx_make. */
static inline int goabt_ctx_stack_size_ok(size_t size)
{
    return size >= GOABT_CTX_MIN_STACK;
}

/* Save the caller's callee-saved registers (and the FP control state: MXCSR and x87 control word
 * on x86-64, FPCR on arm64) on its stack, store the stack pointer in *save, then resume `load`.
 * Returns when something later resumes *save. `save` may be read by another thread only after
 * this thread has left the saved stack (the store to *save happens before the stack switch). */
void goabt_ctx_switch(goabt_ctx *save, goabt_ctx load);

/* Resume `load` without saving the caller: the caller's stack is abandoned as it is (nothing on
 * it is unwound, no destructor runs) and may be freed or reused once this call is made. */
__attribute__((noreturn)) void goabt_ctx_jump(goabt_ctx load);

/* Prepare a fresh context on a stack whose highest address is stack_hi (any alignment: it is
 * rounded down to 16). Resuming it calls fn(arg) on that stack with the alignment the ABI
 * requires at a function entry, with the creator's FP control modes (on x86-64 MXCSR's sticky
 * exception flags are cleared) and a zero frame pointer ending backtraces. fn must never return: it leaves by switching or
 * jumping away; if it returns anyway the program traps (ud2 / brk). Writes at most
 * GOABT_CTX_MAKE_RESERVE bytes below stack_hi and returns the context for switch/jump. */
goabt_ctx goabt_ctx_make(void *stack_hi, void (*fn)(void *), void *arg);

/* Save the caller exactly like goabt_ctx_switch into *save, then call fn(arg) on the same stack,
 * just below the saved registers (128 bytes lower on x86-64, past any red zone; the ABI's
 * alignment at fn's entry). fn never returns (trap if it does): it leaves by switching or jumping
 * elsewhere, and a later resume of *save returns from this call, abandoning fn's frames. Used to
 * start a scheduler activation on the main thread's stack below the suspended main ULT: whatever
 * the activation keeps must live elsewhere, since the resumed main ULT reuses that stack. */
void goabt_ctx_switch_below(goabt_ctx *save, void (*fn)(void *), void *arg);

/* The gate: call fn(arg) with the stack pointer moved to stack_top (rounded down to 16; fn's
 * frames sit entirely below it), then restore the caller's stack pointer and return. A ULT uses
 * it to run Go code on its execution stream's system stack; fn may itself switch contexts as
 * long as it is resumed on the same stack before it returns. */
void goabt_gate_call(void (*fn)(void *), void *arg, void *stack_top);

#endif /* GOABT_CONTEXT_H */
