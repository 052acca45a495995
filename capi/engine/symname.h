/* symname.h: the name of a function, by its address, from the symbol table of the ELF file it
 * was loaded from, found with async-signal-safe calls only (symname.c): for the stack-overflow
 * line, which a SIGSEGV handler writes (stackcheck.c). */
#ifndef GOABT_SYMNAME_H
#define GOABT_SYMNAME_H

#include <stddef.h>
#include <stdint.h>
#include "common.h"

/* Notes where the executable is loaded (from the auxiliary vector). Not in a signal handler;
 * at ABT_init, before any ULT of that init can overflow. */
void goabt_symname_init(void) GOABT_HIDDEN;

/* Writes into name (size bytes, NUL-terminated, cut if longer) the name of the function that
 * starts at addr, and returns 1; 0 when none is known (name then holds nothing). The
 * executable's own functions, static ones too, from its .symtab (.dynsym when stripped), read
 * through /proc/self/exe; a library's from its file's tables, found through dladdr, or dladdr's
 * own answer. Async-signal-safe but for that dladdr (symname.c says when it is called). */
int goabt_symname(uintptr_t addr, char *name, size_t size) GOABT_HIDDEN;

#endif
