/* ABT_finalize while another OS thread creates and frees execution streams (#36, item 8). Before,
 * the other thread's ABT_xstream_free could join a stream finalize had already joined and freed
 * (a second pthread_join: a hang or a crash), and a stream it created after finalize's sweep
 * left finalize with a stream it did not expect. Now the calls that lose the race to finalize
 * return ABT_ERR_UNINITIALIZED (or ABT_ERR_INV_XSTREAM for a handle finalize freed), and every
 * round ends with the runtime down and the program alive. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <abt.h>
#include "check.h"

#define ROUNDS 200

struct churner {
    int started; /* atomic: the thread made its first call */
    int stop;    /* atomic: the round is over */
    int bad;     /* an answer none of the expected ones */
    int made;    /* streams created */
};

static int expected(int rc)
{
    return rc == ABT_SUCCESS || rc == ABT_ERR_UNINITIALIZED || rc == ABT_ERR_INV_XSTREAM;
}

/* Creates and frees streams from a thread that is not a stream of goabt's until a call says the
 * runtime is gone. */
static void *churn(void *arg)
{
    struct churner *c = arg;
    for (;;) {
        ABT_xstream x = ABT_XSTREAM_NULL;
        int rc = ABT_xstream_create(ABT_SCHED_NULL, &x);
        __atomic_store_n(&c->started, 1, __ATOMIC_RELEASE);
        if (!expected(rc)) c->bad = rc;
        if (rc != ABT_SUCCESS) break;
        c->made++;
        rc = ABT_xstream_free(&x);
        if (!expected(rc)) c->bad = rc;
        if (rc != ABT_SUCCESS) break;
    }
    return NULL;
}

int main(void)
{
    int bad_init = 0, bad_final = 0, bad_answer = 0, made = 0;
    for (int round = 0; round < ROUNDS; round++) {
        if (ABT_init(0, NULL) != ABT_SUCCESS) {
            bad_init++;
            break;
        }
        struct churner c = {0};
        pthread_t t;
        if (pthread_create(&t, NULL, churn, &c) != 0) break;
        while (!__atomic_load_n(&c.started, __ATOMIC_ACQUIRE)) sched_yield();
        /* Let it go a few rounds of its own, a different number each time. */
        for (int i = 0; i < round % 7; i++) sched_yield();
        if (ABT_finalize() != ABT_SUCCESS) bad_final++;
        pthread_join(t, NULL);
        if (c.bad != 0) {
            bad_answer++;
            printf("round %d: the other thread got %d\n", round, c.bad);
        }
        made += c.made;
    }
    CHECK_INT(bad_init, 0);
    CHECK_INT(bad_final, 0);
    CHECK_INT(bad_answer, 0);
    CHECK(made > 0);
    CHECK_INT(ABT_initialized(), ABT_ERR_UNINITIALIZED);
    return check_summary();
}
