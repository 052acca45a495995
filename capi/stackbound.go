package main

// The main thread's and the streams' stack bounds as the Go runtime sees them.
//
// A C thread entering Go for the first time gets a g0 whose bounds the Go runtime takes from
// pthread_getattr_np. For the process's main thread glibc finds them in /proc/self/maps: the
// mapping that holds the top of the stack, down to the stack size limit or to the end of the
// mapping below it, whichever is higher. That assumes the main stack is one mapping. It is not
// always: valgrind grows a client's main stack by mapping new pages below it, and in a forked
// child the kernel does not merge them with the inherited mapping (their anonymous memory is
// shared with the parent differently), so the stack becomes two or more adjacent mappings.
// glibc then reports only the top one, the Go runtime believes the stack ends there, and a
// first call into Go made a few hundred bytes above that false end dies at once: "morestack on
// g0" in runtime.minit. Whether it happens depends on where the call's frame falls, so on the
// size of the environment and the arguments (seen under valgrind in ctests' stack_overflow).
//
// libgoabt-go.so is linked with --wrap=pthread_getattr_np (the cgo directive below), so the
// Go runtime's own query, and nothing else in the process, comes here. For the main thread,
// when glibc's answer stops at the start of the very mapping that holds the stack's top,
// capped by a mapping right below it, the adjacent private anonymous writable mappings below
// are stack too: the answer is recomputed over all of them, with glibc's rule (the size limit,
// the next mapping below). A stack that the kernel grows itself is one mapping with a gap below
// it, so elsewhere the answer is glibc's, unchanged. ctests/c/main_stack_split.c makes such a
// stack without valgrind and enters Go near the false end.
//
// For a stream's thread, the answer is the stack goabt mapped for it (engine/stream.c,
// goabt_stream_thread_stack), and glibc is not asked: its pthread_getattr_np allocates, and a
// thread's first malloc or free gives it a malloc arena of its own, 64 MiB of address space,
// which made every stream cost 72 MiB of it instead of its 8 MiB stack
// (ctests/c/stream_address_space.c).

/*
#cgo LDFLAGS: -Wl,--wrap=pthread_getattr_np
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

int __real_pthread_getattr_np(pthread_t thread, pthread_attr_t *attr);

// One line of /proc/self/maps: its range, and whether it is private anonymous writable memory.
typedef struct {
	uintptr_t from, to;
	int anon_rw;
} goabt_mapping;

static int goabt_read_mapping(FILE *f, goabt_mapping *m)
{
	char line[512], perms[8] = "";
	unsigned long from, to, inode;
	if (fgets(line, sizeof line, f) == NULL) return 0;
	// A line longer than the buffer: skip its rest.
	if (strchr(line, '\n') == NULL) {
		int c;
		while ((c = fgetc(f)) != EOF && c != '\n') {
		}
	}
	char path[2] = "";
	int n = sscanf(line, "%lx-%lx %7s %*s %*s %lu %1s", &from, &to, perms, &inode, path);
	if (n < 4) return -1;
	m->from = from;
	m->to = to;
	m->anon_rw = inode == 0 && perms[0] == 'r' && perms[1] == 'w' && perms[3] == 'p' &&
		(n < 5 || path[0] == '[');
	return 1;
}

// goabt_main_stack_low gives the low bound of the main stack whose glibc answer is [lo, hi),
// counting adjacent mappings below the one holding the top; 0 to keep glibc's answer.
static uintptr_t goabt_main_stack_low(uintptr_t lo, uintptr_t hi)
{
	FILE *f = fopen("/proc/self/maps", "rce");
	if (f == NULL) return 0;
	uintptr_t below_end = 0; // the end of the last mapping not part of the run
	uintptr_t run_from = 0, run_to = 0; // the run of adjacent anonymous writable mappings
	uintptr_t result = 0;
	goabt_mapping m;
	int r;
	while ((r = goabt_read_mapping(f, &m)) != 0) {
		if (r < 0) break;
		if (m.anon_rw && run_to != 0 && m.from == run_to) {
			run_to = m.to;
		} else {
			if (run_to != 0) below_end = run_to;
			if (m.anon_rw) {
				run_from = m.from;
				run_to = m.to;
			} else {
				below_end = m.to;
				run_from = run_to = 0;
			}
		}
		if (m.from <= hi - 1 && hi - 1 < m.to) {
			// The mapping holding the stack's top. Only when glibc stopped at its start,
			// with more stack below it, is there anything to add.
			if (m.anon_rw && lo == m.from && run_from < m.from) {
				struct rlimit rl;
				uintptr_t low = below_end;
				if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
				    rl.rlim_cur < hi && hi - rl.rlim_cur > low) {
					low = (hi - rl.rlim_cur + 4095) & ~(uintptr_t)4095;
				}
				if (low < lo) result = low;
			}
			break;
		}
	}
	fclose(f);
	return result;
}

// goabt_stream_thread_stack of the C engine (engine/stream.h), set at load
// (goabt_go_thread_stacks).
static int (*goabt_thread_stack_lookup)(void **addr, size_t *size);
__attribute__((visibility("hidden"))) void goabt_set_thread_stack_lookup(uintptr_t lookup)
{
	__atomic_store_n(&goabt_thread_stack_lookup, (int (*)(void **, size_t *))lookup, __ATOMIC_RELEASE);
}
int __wrap_pthread_getattr_np(pthread_t thread, pthread_attr_t *attr)
{
	int (*lookup)(void **, size_t *) = __atomic_load_n(&goabt_thread_stack_lookup, __ATOMIC_ACQUIRE);
	void *stack;
	size_t stack_size;
	if (lookup != NULL && pthread_equal(thread, pthread_self()) && lookup(&stack, &stack_size)) {
		pthread_attr_init(attr);
		return pthread_attr_setstack(attr, stack, stack_size);
	}
	int err = __real_pthread_getattr_np(thread, attr);
	if (err != 0 || !pthread_equal(thread, pthread_self()) || syscall(SYS_gettid) != getpid()) {
		return err;
	}
	void *addr;
	size_t size;
	if (pthread_attr_getstack(attr, &addr, &size) != 0) return err;
	uintptr_t lo = (uintptr_t)addr, hi = lo + size;
	uintptr_t low = goabt_main_stack_low(lo, hi);
	if (low != 0) pthread_attr_setstack(attr, (void *)low, hi - low);
	return err;
}
*/
import "C"
