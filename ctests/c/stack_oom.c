/* Out of memory for ULT stacks gives an error, never an abort (the process used to die with
 * "out of memory for a ULT stack"). The address-space limit (RLIMIT_AS) is lowered to a little
 * above what the process uses, so that a new stack mapping fails, then put back:
 *  - a ULT whose stack (512 KiB, a size no cache holds) is mapped at its first run cannot get
 *    one: it ends without running, its joiner is woken, ABT_thread_join and ABT_thread_free
 *    return ABT_ERR_MEM, and stderr says so once;
 *  - the same for the target of ABT_thread_yield_to: the yielder goes on through the scheduler;
 *  - a large stack (64 MiB) is mapped at create, which returns ABT_ERR_MEM;
 *  - with the limit back, the same ULTs run;
 *  - a stack size no address space holds (2^62, 2^44 bytes) is refused at create with
 *    ABT_ERR_MEM (2^62 used to panic the Go core, 2^44 to abort at the first run).
 * The limit is lowered only around calls that map stacks: the Go runtime needs room too. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"
#include "abt_wait.h"

#define SMALL_BIG (512 * 1024) /* mapped at first run */
#define LARGE (64 * 1024 * 1024) /* mapped at create */

static int ran;
static void mark(void *arg)
{
    (void)arg;
    __atomic_add_fetch(&ran, 1, __ATOMIC_RELAXED);
}

static struct rlimit saved;

static void limit_address_space(void)
{
    struct rlimit r = saved;
    r.rlim_cur = address_space_used() + 4 * 1024 * 1024;
    CHECK_INT(setrlimit(RLIMIT_AS, &r), 0);
}

static void restore_address_space(void) { CHECK_INT(setrlimit(RLIMIT_AS, &saved), 0); }

static ABT_thread attr_thread(ABT_pool pool, size_t size, int *rc)
{
    ABT_thread_attr attr;
    ABT_thread t = ABT_THREAD_NULL;
    ABT_thread_attr_create(&attr);
    ABT_thread_attr_set_stacksize(attr, size);
    *rc = ABT_thread_create(pool, mark, NULL, attr, &t);
    ABT_thread_attr_free(&attr);
    return t;
}

/* B yields to C (a ULT that never ran, whose stack cannot be mapped), then marks. */
static ABT_thread target_c;
static int yield_rc = -1;
static void yielder(void *arg)
{
    (void)arg;
    yield_rc = ABT_thread_yield_to(target_c);
    mark(NULL);
}

int main(void)
{
    CHECK_INT(getrlimit(RLIMIT_AS, &saved), 0);
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream self;
    ABT_pool pool;
    CHECK_INT(ABT_self_get_xstream(&self), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_get_main_pools(self, 1, &pool), ABT_SUCCESS);
    /* A default stack in the caches first, for the yielder. */
    ABT_thread warm;
    CHECK_INT(ABT_thread_create(pool, mark, NULL, ABT_THREAD_ATTR_NULL, &warm), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&warm), ABT_SUCCESS);
    ran = 0;

    /* Keep what goabt says on stderr. */
    int fds[2];
    CHECK_INT(pipe(fds), 0);
    int saved_err = dup(2);
    dup2(fds[1], 2);

    int rc;
    ABT_thread a = attr_thread(pool, SMALL_BIG, &rc);
    CHECK_INT(rc, ABT_SUCCESS);
    target_c = attr_thread(pool, SMALL_BIG, &rc);
    CHECK_INT(rc, ABT_SUCCESS);
    ABT_thread b;
    CHECK_INT(ABT_thread_create(pool, yielder, NULL, ABT_THREAD_ATTR_NULL, &b), ABT_SUCCESS);

    limit_address_space();
    int join_a = ABT_thread_join(a);
    int join_b = ABT_thread_join(b);
    int join_c = ABT_thread_join(target_c);
    ABT_thread large = attr_thread(pool, LARGE, &rc);
    restore_address_space();

    fflush(stderr);
    dup2(saved_err, 2);
    close(saved_err);
    close(fds[1]);
    char err[4096];
    ssize_t n = read(fds[0], err, sizeof err - 1);
    err[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    printf("stderr: %s", err);

    CHECK_INT(join_a, ABT_ERR_MEM);
    CHECK_INT(join_c, ABT_ERR_MEM);
    CHECK_INT(join_b, ABT_SUCCESS);
    CHECK_INT(ran, 1); /* the yielder alone */
    CHECK_INT(yield_rc, ABT_SUCCESS);
    CHECK_INT(rc, ABT_ERR_MEM);
    CHECK(large == ABT_THREAD_NULL);
    ABT_thread_state st;
    CHECK_INT(ABT_thread_get_state(a, &st), ABT_SUCCESS);
    CHECK_INT(st, ABT_THREAD_STATE_TERMINATED);
    CHECK_INT(ABT_thread_free(&a), ABT_ERR_MEM);
    CHECK(a == ABT_THREAD_NULL); /* freed all the same */
    CHECK_INT(ABT_thread_free(&target_c), ABT_ERR_MEM);
    CHECK_INT(ABT_thread_free(&b), ABT_SUCCESS);
    CHECK(strstr(err, "goabt: out of memory for a 524288-byte ULT stack") != NULL);
    int lines = 0;
    for (char *p = err; *p; p++) lines += *p == '\n';
    CHECK_INT(lines, 1); /* said once */

    /* With the limit back, the same sizes run. */
    ran = 0;
    a = attr_thread(pool, SMALL_BIG, &rc);
    CHECK_INT(rc, ABT_SUCCESS);
    large = attr_thread(pool, LARGE, &rc);
    CHECK_INT(rc, ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&a), ABT_SUCCESS);
    CHECK_INT(ABT_thread_free(&large), ABT_SUCCESS);
    CHECK_INT(ran, 2);

    /* Sizes nothing can hold: 2^44 bytes only where the kernel refuses mappings larger than
     * memory (overcommit heuristic, the default). */
    FILE *oc = fopen("/proc/sys/vm/overcommit_memory", "r");
    int overcommit = -1;
    if (oc != NULL) {
        if (fscanf(oc, "%d", &overcommit) != 1) overcommit = -1;
        fclose(oc);
    }
    const size_t huge[] = {(size_t)1 << 62, (size_t)1 << 44};
    for (int i = 0; i < (overcommit == 0 ? 2 : 1); i++) {
        ABT_thread h = attr_thread(pool, huge[i], &rc);
        CHECK_INT(rc, ABT_ERR_MEM);
        CHECK(h == ABT_THREAD_NULL);
    }
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    return check_summary();
}
