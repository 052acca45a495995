//go:build goabt_c_engine
/* one_runtime.c: one Argobots runtime per process.
 *
 * A process can come to hold two: a program linked against native Argobots (its libabt.so.1)
 * loads a library linked -lgoabt, or a program on goabt dlopens a library that pulls native
 * Argobots in, or something dlopens a second copy of libgoabt.so by its path. The loader binds
 * each ABT_ name to the first definition in its search order, so the two would share the work:
 * units made by one, run or joined by the other. goabt does not take part: when libgoabt.so
 * loads, and again at the outermost ABT_init, it looks at the objects loaded in the process
 * (dl_iterate_phdr) for
 *   - another Argobots: an object whose soname is libabt.so.N that is not goabt's filter library
 *     (the filter, Makefile, has DT_FILTER libgoabt.so.MAJOR: it is this library under
 *     Argobots' soname), or
 *   - another copy of libgoabt.so: an object other than this one whose soname is libgoabt.so or
 *     libgoabt.so.<version> (any version: two goabts would share the ABT_ names as well).
 * If it finds one it says so in one line on stderr, once, and ABT_init returns ABT_ERR_OTHER; a
 * runtime that is already running is left alone. Found at load, the line comes even if goabt's
 * ABT_init is never called (the program's ABT_init may be the other runtime's), so the program
 * learns why goabt's own entry points answer ABT_ERR_UNINITIALIZED.
 *
 * Not seen: an Argobots linked statically into the program (no soname), and one loaded after
 * goabt's ABT_init.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "runtime.h"

/* Whether name is a soname of goabt's engine: libgoabt.so, or libgoabt.so.<version>. */
static int is_goabt_soname(const char *name)
{
    static const char base[] = "libgoabt.so";
    return strncmp(name, base, sizeof base - 1) == 0 &&
           (name[sizeof base - 1] == '\0' || name[sizeof base - 1] == '.');
}

/* Whether [addr, addr + len) lies within one of the object's loaded segments. */
static int loaded_range(const struct dl_phdr_info *info, uintptr_t addr, size_t len)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (addr >= start && len <= ph->p_memsz && addr - start <= ph->p_memsz - len) return 1;
    }
    return 0;
}

/* The object's dynamic string table. The loader has usually relocated the address in place; a
 * read-only dynamic section (the vDSO's) still holds the offset. */
struct strtab {
    const char *base;
    size_t size;
};

static const char *dyn_string(const struct strtab *t, ElfW(Xword) offset)
{
    if (t->base == NULL || offset >= t->size) return NULL;
    const char *s = t->base + offset;
    return memchr(s, '\0', t->size - offset) != NULL ? s : NULL;
}

struct scan {
    uintptr_t self; /* an address inside this libgoabt.so */
    const char *other_kind;
    char other[1024];
};

static int scan_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct scan *s = arg;
    if (loaded_range(info, s->self, 1)) return 0;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        }
    }
    if (dyn == NULL) return 0;
    uintptr_t strtab = 0;
    struct strtab t = {NULL, 0};
    ElfW(Xword) soname = 0, filters[8];
    int has_soname = 0, nfilters = 0;
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_STRTAB: strtab = d->d_un.d_ptr; break;
        case DT_STRSZ: t.size = d->d_un.d_val; break;
        case DT_SONAME:
            soname = d->d_un.d_val;
            has_soname = 1;
            break;
        case DT_FILTER:
            if (nfilters < (int)(sizeof filters / sizeof filters[0])) filters[nfilters++] = d->d_un.d_val;
            break;
        }
    }
    if (!has_soname || strtab == 0 || t.size == 0) return 0;
    if (strtab < info->dlpi_addr) strtab += info->dlpi_addr;
    if (!loaded_range(info, strtab, t.size)) return 0;
    t.base = (const char *)strtab;
    const char *name = dyn_string(&t, soname);
    if (name == NULL) return 0;
    if (is_goabt_soname(name)) {
        s->other_kind = "another copy of libgoabt.so";
    } else if (strncmp(name, "libabt.so", 9) == 0) {
        for (int i = 0; i < nfilters; i++) {
            const char *filtee = dyn_string(&t, filters[i]);
            if (filtee != NULL && is_goabt_soname(filtee)) return 0; /* goabt's filter */
        }
        s->other_kind = "another Argobots runtime";
    } else {
        return 0;
    }
    snprintf(s->other, sizeof s->other, "%s", info->dlpi_name[0] != '\0' ? info->dlpi_name : name);
    return 1;
}

static int said; /* atomic */

int goabt_other_runtime(void)
{
    struct scan s = {.self = (uintptr_t)goabt_other_runtime, .other_kind = NULL};
    if (dl_iterate_phdr(scan_object, &s) == 0) return 0;
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_ACQ_REL)) {
        Dl_info self;
        const char *path = dladdr((void *)goabt_other_runtime, &self) != 0 && self.dli_fname != NULL
                               ? self.dli_fname
                               : "libgoabt.so";
        fprintf(stderr,
                "goabt: %s is loaded in this process (%s) beside goabt's %s: goabt will not run "
                "a second runtime, its ABT_init returns ABT_ERR_OTHER; load one of the two\n",
                s.other_kind, s.other, path);
    }
    return 1;
}

__attribute__((constructor)) static void check_at_load(void) { (void)goabt_other_runtime(); }
