/* Stress: 20 rounds of init, 4 streams (primary + 3), about 10k units in a random forest
 * (1000 root ULTs in waves of 250; each ULT yields a random number of times, creates 0-5
 * children in random pools, and joins or frees them in a random order; a third of the leaves
 * are tasklets), then finalize. Every decision comes from a per-unit seeded RNG, so the forest's shape and checksum
 * do not depend on scheduling: the program replays the same RNG sequentially to get the
 * expected unit count and checksum for each round. Run as it is, and again with every pool and
 * scheduler goabt makes replaced by the Go work-stealing pool and deadline policy. */
// ctest-variant: default
// ctest-variant: in_go GOABT_POOL=ws GOABT_SCHED=deadline
#include <stdint.h>
#include <abt.h>
#include "check.h"

#define ROUNDS 20
#define NSTREAMS 4
#define ROOTS 1000
#define WAVE 250
#define MAXD 2
#define MAXK 5

static ABT_pool pools[NSTREAMS];
static long units_run;

static uint64_t rnd(uint64_t *s)
{
    /* xorshift64* */
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static uint64_t child_seed(uint64_t s, int k) { return (s ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(k + 1))) | 1; }

struct job {
    uint64_t seed;
    int depth;
    long result;
    int errors;
};

static void node(void *arg)
{
    struct job *j = arg;
    uint64_t s = j->seed;
    long acc = (long)(rnd(&s) % 1000) + 1;
    int nkids = j->depth < MAXD ? (int)(rnd(&s) % (MAXK + 1)) : 0;
    struct job kids[MAXK];
    ABT_thread t[MAXK];
    for (int k = 0; k < nkids; k++) {
        kids[k] = (struct job){child_seed(s, k), j->depth + 1, 0, 0};
        ABT_pool p = pools[rnd(&s) % NSTREAMS];
        int rc;
        if (kids[k].depth == MAXD && rnd(&s) % 3 == 0) {
            rc = ABT_task_create(p, node, &kids[k], &t[k]);
        } else {
            rc = ABT_thread_create(p, node, &kids[k], ABT_THREAD_ATTR_NULL, &t[k]);
        }
        if (rc != ABT_SUCCESS) j->errors++;
    }
    int yields = (int)(rnd(&s) % 4);
    for (int y = 0; y < yields; y++) ABT_thread_yield(); /* a no-op in a tasklet */
    /* Join in a random order (a Fisher-Yates shuffle of the indices). */
    int order[MAXK];
    for (int k = 0; k < nkids; k++) order[k] = k;
    for (int k = nkids - 1; k > 0; k--) {
        int o = (int)(rnd(&s) % (uint64_t)(k + 1));
        int tmp = order[k];
        order[k] = order[o];
        order[o] = tmp;
    }
    for (int n = 0; n < nkids; n++) {
        int k = order[n];
        if (rnd(&s) % 2 == 0 && ABT_thread_join(t[k]) != ABT_SUCCESS) j->errors++;
        if (ABT_thread_free(&t[k]) != ABT_SUCCESS) j->errors++;
        acc = acc * 31 + kids[k].result;
        j->errors += kids[k].errors;
    }
    j->result = acc;
    __atomic_add_fetch(&units_run, 1, __ATOMIC_RELAXED);
}

/* The same decisions, sequentially: the expected result and unit count. */
static long replay(uint64_t seed, int depth, long *units)
{
    uint64_t s = seed;
    long acc = (long)(rnd(&s) % 1000) + 1;
    int nkids = depth < MAXD ? (int)(rnd(&s) % (MAXK + 1)) : 0;
    uint64_t seeds[MAXK];
    for (int k = 0; k < nkids; k++) {
        seeds[k] = child_seed(s, k);
        rnd(&s); /* the pool */
        if (depth + 1 == MAXD) rnd(&s); /* tasklet or ULT */
    }
    int yields = (int)(rnd(&s) % 4);
    (void)yields;
    int order[MAXK];
    for (int k = 0; k < nkids; k++) order[k] = k;
    for (int k = nkids - 1; k > 0; k--) {
        int o = (int)(rnd(&s) % (uint64_t)(k + 1));
        int tmp = order[k];
        order[k] = order[o];
        order[o] = tmp;
    }
    long results[MAXK];
    for (int k = 0; k < nkids; k++) results[k] = replay(seeds[k], depth + 1, units);
    for (int n = 0; n < nkids; n++) {
        rnd(&s); /* join or not */
        acc = acc * 31 + results[order[n]];
    }
    (*units)++;
    return acc;
}

/* One init..finalize round; returns the number of mismatches. */
static int round_once(int round, long *units_out)
{
    int bad = 0;
    bad += ABT_init(0, NULL) != ABT_SUCCESS;
    ABT_xstream xs[NSTREAMS];
    bad += ABT_xstream_self(&xs[0]) != ABT_SUCCESS;
    for (int i = 1; i < NSTREAMS; i++) bad += ABT_xstream_create(ABT_SCHED_NULL, &xs[i]) != ABT_SUCCESS;
    for (int i = 0; i < NSTREAMS; i++) bad += ABT_xstream_get_main_pools(xs[i], 1, &pools[i]) != ABT_SUCCESS;

    static struct job roots[ROOTS];
    static ABT_thread t[ROOTS];
    units_run = 0;
    /* In waves, so that about 2500 units live at once and stacks get reused. */
    for (int w = 0; w < ROOTS; w += WAVE) {
        for (int r = w; r < w + WAVE; r++) {
            roots[r] = (struct job){((uint64_t)round << 32 | (uint64_t)r) * 0x100000001B3ULL | 1, 0, 0, 0};
            bad += ABT_thread_create(pools[r % NSTREAMS], node, &roots[r], ABT_THREAD_ATTR_NULL, &t[r]) != ABT_SUCCESS;
        }
        for (int r = w + WAVE - 1; r >= w; r--) bad += ABT_thread_free(&t[r]) != ABT_SUCCESS;
    }

    long want_units = 0, errors = 0, wrong = 0;
    for (int r = 0; r < ROOTS; r++) {
        long want = replay(roots[r].seed, 0, &want_units);
        wrong += roots[r].result != want;
        errors += roots[r].errors;
    }
    if (bad) printf("round %d: %d failed calls in main\n", round, bad);
    if (wrong) printf("round %d: %ld of %d root results wrong\n", round, wrong, ROOTS);
    if (errors) printf("round %d: %ld failed calls in units\n", round, errors);
    bad += (int)wrong + (errors != 0);
    bad += units_run != want_units;
    *units_out = units_run;
    for (int i = 1; i < NSTREAMS; i++) bad += ABT_xstream_free(&xs[i]) != ABT_SUCCESS;
    bad += ABT_finalize() != ABT_SUCCESS;
    if (bad) printf("round %d: %d mismatches (units %ld, expected %ld)\n", round, bad, units_run, want_units);
    return bad;
}

int main(void)
{
    int bad_rounds = 0;
    long total = 0;
    double t0 = ABT_get_wtime();
    for (int round = 0; round < ROUNDS; round++) {
        long units = 0;
        bad_rounds += round_once(round, &units) != 0;
        total += units;
    }
    printf("%d rounds, %ld units in %.2f s\n", ROUNDS, total, ABT_get_wtime() - t0);
    CHECK_INT(bad_rounds, 0);
    CHECK(total >= ROUNDS * 5000L); /* the forests are about 10k units each */
    CHECK_INT(ABT_initialized(), ABT_ERR_UNINITIALIZED);
    return check_summary();
}
