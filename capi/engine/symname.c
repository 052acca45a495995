//go:build goabt_c_engine
/* symname.c: a function's name by its address, for the stack-overflow line (stackcheck.c),
 * which a SIGSEGV handler writes on an alternate signal stack, maybe while the faulting thread
 * holds malloc's lock or the dynamic loader's. So the symbol tables are read here, in C, with
 * open, pread and close only: no malloc, no stdio, about 1 KiB of the caller's stack (headers and
 * a chunk of symbols), nothing kept between calls. The Go core reads ELF too (core/tracesym.go,
 * for the trace) but cannot be called from that handler (the Go runtime takes no cgo call on a
 * foreign signal stack), and naming every ULT's function ahead, at its creation, would cost
 * every create what only an overflow needs.
 *
 * Which file, and where it is loaded: the executable's load bias and the range its segments
 * span are noted at ABT_init from its program headers (the auxiliary vector's AT_PHDR); a
 * function in that range is looked up in /proc/self/exe (the file the process runs, even if its
 * path names another file since), without dladdr. A function elsewhere (a library's), or the
 * executable's when that file cannot be read (no /proc), is found through dladdr1, which gives
 * its file and bias (the link map) and its dynamic symbol; dladdr takes the loader's lock, so
 * such a ULT that overflows inside the loader (in dlopen) could hang there instead of aborting. A file is read only if it is the one loaded: its dynamic
 * section lies where the loaded object's does (a file replaced on disk, or a tool's own binary
 * behind /proc/self/exe, names nothing).
 *
 * In a file, .symtab comes first (it lists static functions), then .dynsym (all a stripped file
 * keeps): a function symbol whose value is the address less the bias. */
#define _GNU_SOURCE
#include "symname.h"
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

/* The executable as loaded: its bias (a symbol's value plus it is its address), the range its
 * segments span, and where its dynamic section is (0: not known, so not looked up). */
static struct {
    uintptr_t bias, lo, hi;
    uintptr_t dynamic; /* atomic, written last and once */
} exe;

void goabt_symname_init(void)
{
    if (__atomic_load_n(&exe.dynamic, __ATOMIC_ACQUIRE) != 0) return;
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)getauxval(AT_PHDR);
    size_t n = getauxval(AT_PHNUM);
    if (ph == NULL) return;
    size_t i;
    for (i = 0; i < n && ph[i].p_type != PT_PHDR; i++) {
    }
    if (i == n) return; /* no PT_PHDR: the bias is not known */
    uintptr_t bias = (uintptr_t)ph - ph[i].p_vaddr, lo = UINTPTR_MAX, hi = 0, dynamic = 0;
    for (i = 0; i < n; i++) {
        uintptr_t start = bias + ph[i].p_vaddr;
        if (ph[i].p_type == PT_DYNAMIC) dynamic = start;
        if (ph[i].p_type != PT_LOAD) continue;
        if (start < lo) lo = start;
        if (start + ph[i].p_memsz > hi) hi = start + ph[i].p_memsz;
    }
    if (dynamic == 0 || lo >= hi) return;
    exe.bias = bias;
    exe.lo = lo;
    exe.hi = hi;
    __atomic_store_n(&exe.dynamic, dynamic, __ATOMIC_RELEASE);
}

/* Reads n bytes at off; 0 if it cannot. */
static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return 0;
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 1;
}

/* An ELF file of this process's class, with headers of the sizes this code reads. */
static int elf_native(const ElfW(Ehdr) *eh)
{
    return memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
           eh->e_ident[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) &&
           eh->e_phentsize == sizeof(ElfW(Phdr)) && eh->e_shentsize == sizeof(ElfW(Shdr));
}

/* Whether the file is the object loaded with this bias: its dynamic section is at dynamic. */
static int loaded_as(int fd, const ElfW(Ehdr) *eh, uintptr_t bias, uintptr_t dynamic)
{
    for (size_t i = 0; i < eh->e_phnum && eh->e_phnum != PN_XNUM; i++) {
        ElfW(Phdr) ph;
        if (!read_at(fd, &ph, sizeof ph, eh->e_phoff + i * sizeof ph)) return 0;
        if (ph.p_type == PT_DYNAMIC) return bias + ph.p_vaddr == dynamic;
    }
    return 0;
}

static int section(int fd, const ElfW(Ehdr) *eh, size_t i, ElfW(Shdr) *sh)
{
    return eh->e_shoff != 0 && read_at(fd, sh, sizeof *sh, eh->e_shoff + i * sizeof *sh);
}

/* How many sections: past 0xff00 the count is in section 0's size. */
static size_t section_count(int fd, const ElfW(Ehdr) *eh)
{
    if (eh->e_shnum != 0) return eh->e_shnum;
    ElfW(Shdr) first;
    return section(fd, eh, 0, &first) ? (size_t)first.sh_size : 0;
}

/* Looks for a function whose value is value in the file's table of this type (SHT_SYMTAB,
 * SHT_DYNSYM); its name into name as goabt_symname does. */
static int name_in_table(int fd, const ElfW(Ehdr) *eh, uint32_t type, uintptr_t value, char *name,
                         size_t size)
{
    size_t count = section_count(fd, eh);
    ElfW(Shdr) table, strings;
    size_t i;
    for (i = 0; i < count; i++) {
        if (!section(fd, eh, i, &table)) return 0;
        if (table.sh_type == type) break;
    }
    if (i == count || table.sh_entsize != sizeof(ElfW(Sym)) || table.sh_link >= count ||
        !section(fd, eh, table.sh_link, &strings)) {
        return 0;
    }
    enum { CHUNK = 32 };
    ElfW(Sym) syms[CHUNK];
    size_t n = table.sh_size / sizeof syms[0];
    for (size_t first = 0; first < n; first += CHUNK) {
        size_t k = n - first < CHUNK ? n - first : CHUNK;
        if (!read_at(fd, syms, k * sizeof syms[0], table.sh_offset + first * sizeof syms[0])) return 0;
        for (size_t j = 0; j < k; j++) {
            const ElfW(Sym) *s = &syms[j];
            if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_value != value || s->st_name == 0 ||
                s->st_name >= strings.sh_size) {
                continue;
            }
            size_t len = strings.sh_size - s->st_name;
            if (len > size - 1) len = size - 1;
            if (!read_at(fd, name, len, strings.sh_offset + s->st_name)) return 0;
            name[len] = '\0';
            if (name[0] != '\0') return 1;
        }
    }
    return 0;
}

/* Names addr from the file at path, loaded with this bias and its dynamic section at dynamic. */
static int name_in_file(const char *path, uintptr_t bias, uintptr_t dynamic, uintptr_t addr,
                        char *name, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ElfW(Ehdr) eh;
    int found = read_at(fd, &eh, sizeof eh, 0) && elf_native(&eh) &&
                loaded_as(fd, &eh, bias, dynamic) &&
                (name_in_table(fd, &eh, SHT_SYMTAB, addr - bias, name, size) ||
                 name_in_table(fd, &eh, SHT_DYNSYM, addr - bias, name, size));
    close(fd);
    if (!found) name[0] = '\0';
    return found;
}

int goabt_symname(uintptr_t addr, char *name, size_t size)
{
    if (size == 0) return 0;
    name[0] = '\0';
    if (addr == 0) return 0;
    uintptr_t exe_dynamic = __atomic_load_n(&exe.dynamic, __ATOMIC_ACQUIRE);
    if (exe_dynamic != 0 && addr >= exe.lo && addr < exe.hi &&
        name_in_file("/proc/self/exe", exe.bias, exe_dynamic, addr, name, size)) {
        return 1;
    }
    /* A library's function, or the executable's when its file could not be read. */
    Dl_info info;
    struct link_map *map = NULL;
    if (dladdr1((void *)addr, &info, (void **)&map, RTLD_DL_LINKMAP) == 0) return 0;
    if (map != NULL && map->l_name != NULL && map->l_name[0] != '\0' &&
        name_in_file(map->l_name, map->l_addr, (uintptr_t)map->l_ld, addr, name, size)) {
        return 1;
    }
    if (info.dli_sname == NULL || info.dli_sname[0] == '\0') return 0;
    size_t len = strlen(info.dli_sname);
    if (len > size - 1) len = size - 1;
    memcpy(name, info.dli_sname, len);
    name[len] = '\0';
    return 1;
}
