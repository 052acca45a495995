/* Address space running out under ulimit -v (#36, item 6). With a limit of 1,700,000 KiB and
 * 100,000 ULTs that each need a stack, goabt used to print its out-of-memory line and then die
 * in the Go runtime ("fatal error: out of memory": the Go core's bookkeeping could not grow).
 * Now the Go core's own mappings (stacks, descriptor slabs) give way first and leave the Go
 * runtime its headroom (core/addrspace.go): ABT_thread_create returns ABT_ERR_MEM when no
 * descriptor can be had, a ULT that gets no stack ends without running and its free returns
 * ABT_ERR_MEM (capi/engine/unit_stack.c), and the process lives on.
 *
 *   A. The case, a limit from the start: 1,800,000 KiB, a little above the least ABT_init
 *      accepts (about 1,720,000 KiB: README, "ABT_init under ulimit -v"; the 1,700,000
 *      is now below it). The Go runtime takes about 1.6 GiB as it starts, more or less from run
 *      to run, so ABT_init either succeeds or returns ABT_ERR_MEM; after a success, 100,000
 *      ULTs get ABT_SUCCESS or ABT_ERR_MEM only.
 *   B. A limit 192 MiB above what the started runtime uses, so that it surely bites: the
 *      calls say ABT_ERR_MEM, and only that; once the program has freed its ULTs, ULTs run
 *      again (their memory is kept for them); a call that needs memory of another kind (a key,
 *      a mutex) succeeds or says ABT_ERR_MEM: it gets what the ULTs' memory left
 *      (core.BulkHeadroom) unless the Go runtime's heap took that meanwhile (it grows by 64 MiB
 *      at a time); ABT_finalize succeeds, and after another ABT_init without the limit
 *      everything works. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <abt.h>
#include "check.h"
// ctest-timeout: 120

#define ULTS 100000

static int ran; /* ULTs that ran (atomic) */

static void yield_once(void *arg)
{
    (void)arg;
    ABT_thread_yield();
    __atomic_add_fetch(&ran, 1, __ATOMIC_RELAXED);
}

static void set_flag(void *arg) { *(int *)arg = 1; }

static ABT_thread t[ULTS];

/* Creates and frees ULTS ULTs on the primary's pool; returns how many calls said ABT_ERR_MEM,
 * and counts answers that are neither that nor ABT_SUCCESS in *other. */
static int many_ults(int *other)
{
    ABT_xstream self;
    ABT_pool pool;
    ABT_xstream_self(&self);
    ABT_xstream_get_main_pools(self, 1, &pool);
    int made = 0, create_mem = 0, freed = 0, free_mem = 0;
    __atomic_store_n(&ran, 0, __ATOMIC_RELAXED);
    for (int i = 0; i < ULTS; i++) {
        int rc = ABT_thread_create(pool, yield_once, NULL, ABT_THREAD_ATTR_NULL, &t[i]);
        if (rc == ABT_SUCCESS) {
            made++;
            continue;
        }
        t[i] = ABT_THREAD_NULL;
        if (rc == ABT_ERR_MEM) {
            create_mem++;
        } else {
            (*other)++;
        }
    }
    for (int i = 0; i < ULTS; i++) {
        if (t[i] == ABT_THREAD_NULL) continue;
        int rc = ABT_thread_free(&t[i]);
        if (rc == ABT_SUCCESS) {
            freed++;
        } else if (rc == ABT_ERR_MEM) {
            free_mem++;
        } else {
            (*other)++;
        }
    }
    printf("created %d (ABT_ERR_MEM %d), freed %d (ABT_ERR_MEM %d), ran %d\n", made, create_mem,
           freed, free_mem, ran);
    CHECK_INT(freed, ran); /* a ULT that ran was freed without error, one that did not was not */
    CHECK_INT(freed + free_mem, made);
    return create_mem + free_mem;
}

static long used_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "re");
    long pages = 0;
    if (f == NULL || fscanf(f, "%ld", &pages) != 1) pages = 0;
    if (f != NULL) fclose(f);
    return pages * 4096;
}

static void set_limit(rlim_t soft)
{
    struct rlimit rl;
    getrlimit(RLIMIT_AS, &rl);
    rl.rlim_cur = soft;
    CHECK_INT(setrlimit(RLIMIT_AS, &rl), 0);
}

int main(void)
{
    int other = 0;

    /* A. */
    set_limit(1800000UL * 1024);
    int rc = ABT_init(0, NULL);
    CHECK(rc == ABT_SUCCESS || rc == ABT_ERR_MEM);
    if (rc == ABT_SUCCESS) {
        many_ults(&other);
        CHECK_INT(other, 0);
        CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    } else {
        printf("A: ABT_init said ABT_ERR_MEM\n");
    }
    set_limit(RLIM_INFINITY);

    /* B. */
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    set_limit((rlim_t)used_bytes() + (192L << 20));
    CHECK(many_ults(&other) > 0); /* the limit bit: ULTs got no stack, or no descriptor */
    CHECK_INT(other, 0);
    ABT_xstream self;
    ABT_pool pool;
    ABT_xstream_self(&self);
    ABT_xstream_get_main_pools(self, 1, &pool);
    for (int round = 0; round < 3; round++) {
        int flag = 0;
        ABT_thread u;
        CHECK_INT(ABT_thread_create(pool, set_flag, &flag, ABT_THREAD_ATTR_NULL, &u), ABT_SUCCESS);
        CHECK_INT(ABT_thread_free(&u), ABT_SUCCESS);
        CHECK_INT(flag, 1);
    }
    ABT_key key;
    rc = ABT_key_create(NULL, &key);
    CHECK(rc == ABT_SUCCESS || rc == ABT_ERR_MEM);
    if (rc == ABT_SUCCESS) {
        rc = ABT_key_set(key, &other);
        CHECK(rc == ABT_SUCCESS || rc == ABT_ERR_MEM);
        CHECK_INT(ABT_key_free(&key), ABT_SUCCESS);
    }
    ABT_mutex m;
    rc = ABT_mutex_create(&m);
    CHECK(rc == ABT_SUCCESS || rc == ABT_ERR_MEM);
    if (rc == ABT_SUCCESS) CHECK_INT(ABT_mutex_free(&m), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    set_limit(RLIM_INFINITY);

    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream_self(&self);
    ABT_xstream_get_main_pools(self, 1, &pool);
    CHECK_INT(ABT_key_create(NULL, &key), ABT_SUCCESS);
    CHECK_INT(ABT_key_free(&key), ABT_SUCCESS);
    ABT_xstream x;
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &x), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_free(&x), ABT_SUCCESS);
    CHECK(many_ults(&other) == 0);
    CHECK_INT(other, 0);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
