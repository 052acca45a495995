/* abt_wait.h: what several engine tests need on top of check.h. */
#ifndef GOABT_ABT_WAIT_H
#define GOABT_ABT_WAIT_H

#include <abt.h>

/* Waits, yielding, until *flag reaches want or 10 s pass; 1 if it did. */
static inline int wait_for(int *flag, int want)
{
    double end = ABT_get_wtime() + 10.0;
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != want) {
        if (ABT_get_wtime() > end) return 0;
        ABT_thread_yield();
    }
    return 1;
}

#endif
