//go:build goabt_c_engine
/*
 * context_amd64.S: context switch primitives for x86-64 System V (interface and frame layout in
 * context.h). Saved frame, from the saved stack pointer up:
 *    0  MXCSR (4 bytes), x87 control word (2 bytes), 2 bytes unused
 *    8  r15   16  r14   24  r13   32  r12   40  rbx   48  rbp
 *   56  return address (the resume point)
 * The saved stack pointer is 16-byte aligned (a call left rsp = 8 mod 16, 7 pushes of 8 bytes
 * follow). The CFI states where the caller's registers are at every instruction; after the stack
 * pointer is swapped the same rules describe the resumed context, whose frame has the same shape.
 */

#define FRAME 64            /* saved frame size, return address included */
#define MXCSR_FLAGS 0x3f    /* MXCSR sticky exception flags, cleared in fresh contexts */

/* Push the callee-saved registers and the FP control state; rsp ends at the frame. */
.macro SAVE_FRAME
    pushq   %rbp
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %rbp, 0
    pushq   %rbx
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %rbx, 0
    pushq   %r12
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %r12, 0
    pushq   %r13
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %r13, 0
    pushq   %r14
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %r14, 0
    pushq   %r15
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %r15, 0
    subq    $8, %rsp
    .cfi_adjust_cfa_offset 8
    stmxcsr (%rsp)
    fnstcw  4(%rsp)
.endm

/* Restore a frame at rsp (same CFI state as after SAVE_FRAME) and return into it. */
.macro RESTORE_FRAME_AND_RETURN
    ldmxcsr (%rsp)
    fldcw   4(%rsp)
    addq    $8, %rsp
    .cfi_adjust_cfa_offset -8
    popq    %r15
    .cfi_adjust_cfa_offset -8
    .cfi_restore %r15
    popq    %r14
    .cfi_adjust_cfa_offset -8
    .cfi_restore %r14
    popq    %r13
    .cfi_adjust_cfa_offset -8
    .cfi_restore %r13
    popq    %r12
    .cfi_adjust_cfa_offset -8
    .cfi_restore %r12
    popq    %rbx
    .cfi_adjust_cfa_offset -8
    .cfi_restore %rbx
    popq    %rbp
    .cfi_adjust_cfa_offset -8
    .cfi_restore %rbp
    ret
.endm

    .text

/* void goabt_ctx_switch(goabt_ctx *save, goabt_ctx load) */
    .globl  goabt_ctx_switch
    .hidden goabt_ctx_switch
    .type   goabt_ctx_switch, @function
    .p2align 4
goabt_ctx_switch:
    .cfi_startproc
    SAVE_FRAME
    movq    %rsp, (%rdi)
    movq    %rsi, %rsp
    RESTORE_FRAME_AND_RETURN
    .cfi_endproc
    .size   goabt_ctx_switch, .-goabt_ctx_switch

/* void goabt_ctx_jump(goabt_ctx load): never returns */
    .globl  goabt_ctx_jump
    .hidden goabt_ctx_jump
    .type   goabt_ctx_jump, @function
    .p2align 4
goabt_ctx_jump:
    .cfi_startproc
    movq    %rdi, %rsp
    /* From here on rsp is a saved frame: describe it so, the caller is gone. */
    .cfi_def_cfa_offset FRAME
    .cfi_offset %rbp, -16
    .cfi_offset %rbx, -24
    .cfi_offset %r12, -32
    .cfi_offset %r13, -40
    .cfi_offset %r14, -48
    .cfi_offset %r15, -56
    RESTORE_FRAME_AND_RETURN
    .cfi_endproc
    .size   goabt_ctx_jump, .-goabt_ctx_jump

/* goabt_ctx goabt_ctx_make(void *stack_hi, void (*fn)(void *), void *arg)
 * Builds a frame whose return address is in goabt_ctx_start, with r12 = fn, r13 = arg, rbp = 0.
 * The frame sits 16 bytes below the rounded top, so that once it is popped rsp is 16-aligned
 * at goabt_ctx_start's call. */
    .globl  goabt_ctx_make
    .hidden goabt_ctx_make
    .type   goabt_ctx_make, @function
    .p2align 4
goabt_ctx_make:
    .cfi_startproc
    movq    %rdi, %rax
    andq    $-16, %rax
    subq    $(FRAME + 16), %rax
    stmxcsr (%rax)
    andl    $~MXCSR_FLAGS, (%rax)
    fnstcw  4(%rax)
    movw    $0, 6(%rax)
    xorl    %ecx, %ecx
    movq    %rcx, 8(%rax)           /* r15 */
    movq    %rcx, 16(%rax)          /* r14 */
    movq    %rdx, 24(%rax)          /* r13 = arg */
    movq    %rsi, 32(%rax)          /* r12 = fn */
    movq    %rcx, 40(%rax)          /* rbx */
    movq    %rcx, 48(%rax)          /* rbp = 0: end of the frame-pointer chain */
    leaq    .Lctx_start_resume(%rip), %rcx
    movq    %rcx, 56(%rax)          /* resume point */
    movq    $0, 64(%rax)
    movq    $0, 72(%rax)
    ret
    .cfi_endproc
    .size   goabt_ctx_make, .-goabt_ctx_make

/* First code of a fresh context: rsp is 16-aligned, r12 = fn, r13 = arg. The return address is
 * undefined here, which ends unwinding. fn must not return. */
    .type   goabt_ctx_start, @function
    .p2align 4
goabt_ctx_start:
    .cfi_startproc
    .cfi_undefined %rip
    nop     /* fresh frames resume past it: an unwinder's pc - 1 lookup still lands in here */
.Lctx_start_resume:
    movq    %r13, %rdi
    call    *%r12
    ud2
    .cfi_endproc
    .size   goabt_ctx_start, .-goabt_ctx_start

/* void goabt_ctx_switch_below(goabt_ctx *save, void (*fn)(void *), void *arg)
 * Saves like goabt_ctx_switch, then calls fn(arg) 128 bytes (the red zone) below the frame. */
    .globl  goabt_ctx_switch_below
    .hidden goabt_ctx_switch_below
    .type   goabt_ctx_switch_below, @function
    .p2align 4
goabt_ctx_switch_below:
    .cfi_startproc
    SAVE_FRAME
    movq    %rsp, (%rdi)
    subq    $128, %rsp              /* still 16-aligned: fn starts at rsp = 8 mod 16 */
    .cfi_adjust_cfa_offset 128
    movq    %rdx, %rdi
    call    *%rsi
    ud2
    .cfi_endproc
    .size   goabt_ctx_switch_below, .-goabt_ctx_switch_below

/* void goabt_gate_call(void (*fn)(void *), void *arg, void *stack_top)
 * rbp (callee-saved, so fn keeps it) holds the caller's stack pointer meanwhile. */
    .globl  goabt_gate_call
    .hidden goabt_gate_call
    .type   goabt_gate_call, @function
    .p2align 4
goabt_gate_call:
    .cfi_startproc
    pushq   %rbp
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %rbp, 0
    movq    %rsp, %rbp
    .cfi_def_cfa_register %rbp
    andq    $-16, %rdx
    movq    %rdx, %rsp
    movq    %rdi, %rax
    movq    %rsi, %rdi
    call    *%rax
    movq    %rbp, %rsp
    .cfi_def_cfa_register %rsp
    popq    %rbp
    .cfi_adjust_cfa_offset -8
    .cfi_restore %rbp
    ret
    .cfi_endproc
    .size   goabt_gate_call, .-goabt_gate_call

    .section .note.GNU-stack,"",@progbits
