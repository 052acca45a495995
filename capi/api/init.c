//go:build goabt_c_engine
/* ABT_init, ABT_finalize, ABT_initialized. */
#include "gocalls.h"
#include "engine/info.h"
#include "engine/runtime.h"
#include "engine/stream.h"

/* Serializes init and finalize; nested calls only count. */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

int ABT_init(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    /* A child forked after the parent started goabt inherits its state but none of its threads
     * (streams, the Go runtime's): nothing of it can run here (golib.c; runtime.h,
     * goabt_forked). Said once on stderr. */
    if (goabt_go_forked()) return ABT_ERR_OTHER;
    int rc = ABT_SUCCESS;
    pthread_mutex_lock(&init_lock);
    if (goabt_rt.init_depth > 0) {
        __atomic_add_fetch(&goabt_rt.init_depth, 1, __ATOMIC_ACQ_REL);
    } else if (goabt_other_runtime()) {
        /* Another Argobots, or another copy of goabt, is loaded: not two runtimes at once. */
        rc = ABT_ERR_OTHER;
    } else {
        rc = goabt_engine_init();
        if (rc == ABT_SUCCESS) {
            __atomic_store_n(&goabt_rt.init_depth, 1, __ATOMIC_RELEASE);
            goabt_info_print_at_init(); /* ABT_PRINT_CONFIG */
        }
    }
    pthread_mutex_unlock(&init_lock);
    return rc;
}

int ABT_finalize(void)
{
    /* A forked child: never initialized here (runtime.h, goabt_forked); and init_lock may be
     * held by a thread that did not come along. */
    if (goabt_forked()) return ABT_ERR_UNINITIALIZED;
    int rc = ABT_SUCCESS;
    pthread_mutex_lock(&init_lock);
    int depth = goabt_rt.init_depth;
    if (depth == 0) {
        rc = ABT_ERR_UNINITIALIZED;
    } else if (depth > 1) {
        __atomic_sub_fetch(&goabt_rt.init_depth, 1, __ATOMIC_ACQ_REL);
    } else {
        /* The outermost finalize must come from the main ULT; checked before anything changes. */
        goabt_stream *s = goabt_self_stream();
        if (s == NULL || !s->is_primary) {
            rc = ABT_ERR_INV_XSTREAM;
        } else if (s->current != goabt_rt.main_unit) {
            rc = ABT_ERR_INV_THREAD;
        } else {
            goabt_engine_finalize();
            __atomic_store_n(&goabt_rt.init_depth, 0, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&init_lock);
    return rc;
}

int ABT_initialized(void)
{
    return goabt_initialized() ? ABT_SUCCESS : ABT_ERR_UNINITIALIZED;
}
