//go:build goabt_c_engine
/*
 * context_arm64.S: context switch primitives for AAPCS64 (interface and frame layout in
 * context.h). Saved frame, 176 bytes from the saved stack pointer up (sp stays 16-aligned):
 *     0  x19 x20   16  x21 x22   32  x23 x24   48  x25 x26   64  x27 x28
 *    80  x29 x30 (x30 = the resume point)
 *    96  d8 d9    112  d10 d11  128  d12 d13  144  d14 d15
 *   160  FPCR     168  unused
 * The CFI states where the caller's registers are at every instruction; after the stack pointer
 * is swapped the same rules describe the resumed context, whose frame has the same shape.
 */

#define FRAME 176

/* Rules for a frame at sp (CFA = sp + FRAME). */
.macro FRAME_CFI
    .cfi_def_cfa sp, FRAME
    .cfi_offset x19, -176
    .cfi_offset x20, -168
    .cfi_offset x21, -160
    .cfi_offset x22, -152
    .cfi_offset x23, -144
    .cfi_offset x24, -136
    .cfi_offset x25, -128
    .cfi_offset x26, -120
    .cfi_offset x27, -112
    .cfi_offset x28, -104
    .cfi_offset x29, -96
    .cfi_offset x30, -88
    .cfi_offset d8, -80
    .cfi_offset d9, -72
    .cfi_offset d10, -64
    .cfi_offset d11, -56
    .cfi_offset d12, -48
    .cfi_offset d13, -40
    .cfi_offset d14, -32
    .cfi_offset d15, -24
.endm

/* Push the callee-saved registers and FPCR; sp ends at the frame. Clobbers x9. */
.macro SAVE_FRAME
    sub     sp, sp, #FRAME
    .cfi_def_cfa_offset FRAME
    stp     x19, x20, [sp, #0]
    stp     x21, x22, [sp, #16]
    stp     x23, x24, [sp, #32]
    stp     x25, x26, [sp, #48]
    stp     x27, x28, [sp, #64]
    stp     x29, x30, [sp, #80]
    stp     d8, d9, [sp, #96]
    stp     d10, d11, [sp, #112]
    stp     d12, d13, [sp, #128]
    stp     d14, d15, [sp, #144]
    FRAME_CFI
    mrs     x9, fpcr
    str     x9, [sp, #160]
.endm

/* Restore the frame at sp and return into it. FPCR is written only when it changes: the write
 * can stall the pipeline on some cores, the read is cheap. Clobbers x9, x10. */
.macro RESTORE_FRAME_AND_RETURN
    ldr     x9, [sp, #160]
    mrs     x10, fpcr
    cmp     x9, x10
    b.eq    1f
    msr     fpcr, x9
1:
    ldp     x19, x20, [sp, #0]
    ldp     x21, x22, [sp, #16]
    ldp     x23, x24, [sp, #32]
    ldp     x25, x26, [sp, #48]
    ldp     x27, x28, [sp, #64]
    ldp     x29, x30, [sp, #80]
    ldp     d8, d9, [sp, #96]
    ldp     d10, d11, [sp, #112]
    ldp     d12, d13, [sp, #128]
    ldp     d14, d15, [sp, #144]
    add     sp, sp, #FRAME
    .cfi_def_cfa_offset 0
    .cfi_restore x19
    .cfi_restore x20
    .cfi_restore x21
    .cfi_restore x22
    .cfi_restore x23
    .cfi_restore x24
    .cfi_restore x25
    .cfi_restore x26
    .cfi_restore x27
    .cfi_restore x28
    .cfi_restore x29
    .cfi_restore x30
    .cfi_restore d8
    .cfi_restore d9
    .cfi_restore d10
    .cfi_restore d11
    .cfi_restore d12
    .cfi_restore d13
    .cfi_restore d14
    .cfi_restore d15
    ret
.endm

    .text

/* void goabt_ctx_switch(goabt_ctx *save, goabt_ctx load) */
    .globl  goabt_ctx_switch
    .hidden goabt_ctx_switch
    .type   goabt_ctx_switch, %function
    .p2align 4
goabt_ctx_switch:
    .cfi_startproc
    SAVE_FRAME
    mov     x9, sp
    str     x9, [x0]
    mov     sp, x1
    RESTORE_FRAME_AND_RETURN
    .cfi_endproc
    .size   goabt_ctx_switch, .-goabt_ctx_switch

/* void goabt_ctx_jump(goabt_ctx load): never returns */
    .globl  goabt_ctx_jump
    .hidden goabt_ctx_jump
    .type   goabt_ctx_jump, %function
    .p2align 4
goabt_ctx_jump:
    .cfi_startproc
    mov     sp, x0
    /* From here on sp is a saved frame: describe it so, the caller is gone. */
    FRAME_CFI
    RESTORE_FRAME_AND_RETURN
    .cfi_endproc
    .size   goabt_ctx_jump, .-goabt_ctx_jump

/* goabt_ctx goabt_ctx_make(void *stack_hi, void (*fn)(void *), void *arg)
 * Builds a frame whose resume point (x30) is in goabt_ctx_start, with x19 = fn, x20 = arg,
 * x29 = 0, 16 bytes below the rounded top (kept zero). */
    .globl  goabt_ctx_make
    .hidden goabt_ctx_make
    .type   goabt_ctx_make, %function
    .p2align 4
goabt_ctx_make:
    .cfi_startproc
    and     x9, x0, #~15
    sub     x9, x9, #(FRAME + 16)
    stp     x1, x2, [x9, #0]        /* x19 = fn, x20 = arg */
    stp     xzr, xzr, [x9, #16]
    stp     xzr, xzr, [x9, #32]
    stp     xzr, xzr, [x9, #48]
    stp     xzr, xzr, [x9, #64]
    adr     x10, .Lctx_start_resume
    stp     xzr, x10, [x9, #80]     /* x29 = 0 ends the frame chain; x30 = resume point */
    stp     xzr, xzr, [x9, #96]
    stp     xzr, xzr, [x9, #112]
    stp     xzr, xzr, [x9, #128]
    stp     xzr, xzr, [x9, #144]
    mrs     x10, fpcr
    stp     x10, xzr, [x9, #160]
    stp     xzr, xzr, [x9, #176]
    mov     x0, x9
    ret
    .cfi_endproc
    .size   goabt_ctx_make, .-goabt_ctx_make

/* First code of a fresh context: sp is 16-aligned, x19 = fn, x20 = arg. The return address is
 * undefined here, which ends unwinding. fn must not return. */
    .type   goabt_ctx_start, %function
    .p2align 4
goabt_ctx_start:
    .cfi_startproc
    .cfi_undefined x30
    nop     /* fresh frames resume past it: an unwinder's pc - 1 lookup still lands in here */
.Lctx_start_resume:
    mov     x0, x20
    blr     x19
    brk     #0x1
    .cfi_endproc
    .size   goabt_ctx_start, .-goabt_ctx_start

/* void goabt_ctx_switch_below(goabt_ctx *save, void (*fn)(void *), void *arg)
 * Saves like goabt_ctx_switch, then calls fn(arg) right below the frame (AAPCS64 has no red
 * zone; sp is already 16-aligned). */
    .globl  goabt_ctx_switch_below
    .hidden goabt_ctx_switch_below
    .type   goabt_ctx_switch_below, %function
    .p2align 4
goabt_ctx_switch_below:
    .cfi_startproc
    SAVE_FRAME
    mov     x9, sp
    str     x9, [x0]
    mov     x0, x2
    blr     x1
    brk     #0x1
    .cfi_endproc
    .size   goabt_ctx_switch_below, .-goabt_ctx_switch_below

/* void goabt_gate_call(void (*fn)(void *), void *arg, void *stack_top)
 * x29 (callee-saved, so fn keeps it) holds the caller's stack pointer meanwhile. */
    .globl  goabt_gate_call
    .hidden goabt_gate_call
    .type   goabt_gate_call, %function
    .p2align 4
goabt_gate_call:
    .cfi_startproc
    stp     x29, x30, [sp, #-16]!
    .cfi_def_cfa_offset 16
    .cfi_offset x29, -16
    .cfi_offset x30, -8
    mov     x29, sp
    .cfi_def_cfa_register x29
    and     x2, x2, #~15
    mov     sp, x2
    mov     x9, x0
    mov     x0, x1
    blr     x9
    mov     sp, x29
    .cfi_def_cfa_register sp
    ldp     x29, x30, [sp], #16
    .cfi_def_cfa_offset 0
    .cfi_restore x29
    .cfi_restore x30
    ret
    .cfi_endproc
    .size   goabt_gate_call, .-goabt_gate_call

    .section .note.GNU-stack,"",%progbits
