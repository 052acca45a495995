/* C strings read by the Go core, with uninitialized bytes after their NUL.
 *
 * The Go runtime measures a C string 16 or 32 bytes at a time (runtime.findnull), so it reads
 * the bytes after the NUL up to the end of the block it is reading, and ignores them. When those
 * bytes are inside a heap block but were never written, memcheck reports "Conditional jump or
 * move depends on uninitialised value(s)" in indexbytebody; when they are past the block, an
 * invalid read. Which of the two, if any, depends on where the strings lie: on the size of the
 * environment, in the Go runtime's copy of environ at its start. So every string here is put at
 * each offset of a 32-byte window in a heap block otherwise uninitialized, where the Go core
 * reads it:
 *  - the environment, read by the Go runtime when ABT_init loads the Go core and by the core's
 *    configuration (GOABT_POOL): a name nothing is registered under makes ABT_init fail, "ws"
 *    succeed, so each was read to its NUL and no further;
 *  - the name goabt_pool_create_go hands to the Go core: "ws" at every offset makes a pool, a
 *    name nothing is registered under makes none.
 * Under valgrind (ctests/valgrind_test.go) it must run without a memcheck error: valgrind.supp
 * covers those reads, of both kinds, for the Go runtime's findnull only. */
#include <stdlib.h>
#include <string.h>
#include <abt.h>
#include <goabt.h>
#include "check.h"

#define WINDOW 32

/* A copy of s at offset off of a fresh heap block whose other bytes are never written. The
 * blocks stay allocated: the environment points into them. */
static char *uninit_copy(const char *s, int off)
{
    char *block = malloc(2 * WINDOW + strlen(s) + 1);
    if (block == NULL) return NULL;
    memcpy(block + off, s, strlen(s) + 1);
    return block + off;
}

static char *blocks[4 * WINDOW];
static int n_blocks;

static char *kept(const char *s, int off)
{
    char *p = uninit_copy(s, off);
    if (p != NULL && n_blocks < (int)(sizeof blocks / sizeof blocks[0])) blocks[n_blocks++] = p - off;
    return p;
}

int main(void)
{
    /* Padding variables at every offset, then GOABT_POOL last, through putenv: the environment
     * holds these very strings. */
    int ok = 1;
    for (int off = 0; off < WINDOW; off++) {
        char var[32];
        snprintf(var, sizeof var, "GOABT_CTEST_PAD%d=%.*s", off, off % 7, "xxxxxxx");
        char *p = kept(var, off);
        ok &= p != NULL && putenv(p) == 0;
    }
    CHECK(ok);

    int refused = 0, started = 0;
    for (int off = 0; off < WINDOW; off++) {
        char *bad = kept("GOABT_POOL=no-such-pool", off);
        CHECK(bad != NULL && putenv(bad) == 0);
        refused += ABT_init(0, NULL) == ABT_ERR_INV_ARG;
        char *good = kept("GOABT_POOL=ws", off);
        CHECK(good != NULL && putenv(good) == 0);
        if (ABT_init(0, NULL) == ABT_SUCCESS) {
            started++;
            ABT_finalize();
        }
    }
    CHECK_INT(refused, WINDOW);
    CHECK_INT(started, WINDOW);

    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    int made = 0, unknown = 0;
    for (int off = 0; off < WINDOW; off++) {
        char *name = uninit_copy("ws", off);
        char *other = uninit_copy("no-such-pool", off);
        if (name == NULL || other == NULL) break;
        ABT_pool pool = ABT_POOL_NULL;
        if (goabt_pool_create_go(name, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &pool) == ABT_SUCCESS) {
            made++;
            ABT_pool_free(&pool);
        }
        unknown += goabt_pool_create_go(other, ABT_POOL_ACCESS_MPMC, ABT_FALSE, &pool) == ABT_ERR_INV_ARG &&
                   pool == ABT_POOL_NULL;
        free(name - off);
        free(other - off);
    }
    CHECK_INT(made, WINDOW);
    CHECK_INT(unknown, WINDOW);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);

    /* The environment still points into the blocks: unset what points there before freeing. */
    unsetenv("GOABT_POOL");
    for (int off = 0; off < WINDOW; off++) {
        char name[32];
        snprintf(name, sizeof name, "GOABT_CTEST_PAD%d", off);
        unsetenv(name);
    }
    for (int i = 0; i < n_blocks; i++) free(blocks[i]);
    return check_summary();
}
