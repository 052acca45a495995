/* goabt with MPI: ULTs that exchange messages between ranks.
 *
 * Every rank runs two execution streams (the primary and one more) and NULTS ULTs, half on each.
 * Ranks are paired (0 with 1, 2 with 3 ...): ULT i of a rank exchanges NMSGS messages with ULT i
 * of its partner, with tag i, and checks every word of each message it receives. A ULT never
 * blocks its stream in MPI: it posts MPI_Irecv and MPI_Isend, then waits for them one of two
 * ways:
 *  - even ULTs poll: MPI_Test, and ABT_thread_yield while the request is not complete, so the
 *    other ULTs of the stream run meanwhile;
 *  - odd ULTs hand the request to a poller ULT and wait on an ABT_eventual: the poller tests
 *    every pending request in turn and, when MPI_Test reports one complete, sets its eventual
 *    with the request's MPI_Status, which hands the completed request back to the waiting ULT.
 * ULTs of both streams call MPI at once, so the program asks for MPI_THREAD_MULTIPLE and stops
 * if the MPI library does not provide it.
 *
 * Build and run (README, "MPI"):
 *     mpicc -Wall -Wextra -Werror -Ibuild/include demo/mpi_ults.c -Lbuild/lib -lgoabt \
 *         -Wl,-rpath,$PWD/build/lib -lpthread -o mpi_ults
 *     mpirun -np 2 ./mpi_ults
 * Each rank prints one line per check ("rank R: ok ..." or "rank R: FAIL ...") and ends with
 * "rank R: N passed, N failed"; its exit status is 0 only when every check passed. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <abt.h>

#define NULTS 8
#define NMSGS 4
#define MSG_WORDS 256
/* Open MPI's calls need more stack than goabt's default ULT stack (24 KiB) is sure to give. */
#define ULT_STACK (256 * 1024)
/* A request not complete after this many seconds means a hang: report it and abort the job
 * rather than wait for the launcher's timeout. */
#define HANG_SECONDS 60.0

static int my_rank, partner;
static int passed, failed;

static void check(int ok, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    __atomic_add_fetch(ok ? &passed : &failed, 1, __ATOMIC_RELAXED);
    /* One printf per line: mpirun forwards each rank's lines whole. */
    printf("rank %d: %s %s\n", my_rank, ok ? "ok  " : "FAIL", what);
    fflush(stdout);
}

static void hang(const char *what, int ult)
{
    check(0, "ULT %d: %s not complete after %.0f s", ult, what, HANG_SECONDS);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* The word k of message m from ULT ult of rank `from`: each word differs from every other word
 * of every message of the run, so a message delivered to the wrong ULT, out of order or
 * partly is caught. */
static int word(int from, int ult, int m, int k)
{
    return ((from * NULTS + ult) * NMSGS + m) * MSG_WORDS + k;
}

/* The poller's table: one slot per ULT that waits on an eventual. A ULT fills in req and ev,
 * then sets pending; the poller, once it has seen the request complete, clears pending and sets
 * ev with the request's status. */
struct slot {
    MPI_Request req;
    ABT_eventual ev;
    int pending; /* atomic */
};
static struct slot slots[NULTS];
static int ults_done; /* atomic: workers that have finished, so the poller can stop */

static void poller(void *arg)
{
    (void)arg;
    double start = MPI_Wtime();
    while (__atomic_load_n(&ults_done, __ATOMIC_ACQUIRE) < NULTS) {
        for (int i = 0; i < NULTS; i++) {
            struct slot *s = &slots[i];
            if (!__atomic_load_n(&s->pending, __ATOMIC_ACQUIRE))
                continue;
            int flag = 0;
            MPI_Status st;
            MPI_Test(&s->req, &flag, &st);
            if (flag) {
                __atomic_store_n(&s->pending, 0, __ATOMIC_RELAXED);
                ABT_eventual_set(s->ev, &st, sizeof st);
            } else if (MPI_Wtime() - start > HANG_SECONDS) {
                hang("request handed to the poller", i);
            }
        }
        ABT_thread_yield();
    }
}

/* wait_polling waits for *req by testing it and yielding between tests. */
static void wait_polling(MPI_Request *req, MPI_Status *st, int ult, const char *what)
{
    double start = MPI_Wtime();
    for (;;) {
        int flag = 0;
        MPI_Test(req, &flag, st);
        if (flag)
            return;
        if (MPI_Wtime() - start > HANG_SECONDS)
            hang(what, ult);
        ABT_thread_yield();
    }
}

/* wait_eventual hands *req to the poller and blocks on the ULT's eventual until the poller
 * sets it with the completed request's status. */
static void wait_eventual(MPI_Request *req, MPI_Status *st, int ult)
{
    struct slot *s = &slots[ult];
    s->req = *req;
    __atomic_store_n(&s->pending, 1, __ATOMIC_RELEASE);
    void *value = NULL;
    ABT_eventual_wait(s->ev, &value);
    memcpy(st, value, sizeof *st);
    ABT_eventual_reset(s->ev);
    *req = MPI_REQUEST_NULL; /* MPI_Test freed it when it completed */
}

static void exchange(void *arg)
{
    int ult = (int)(size_t)arg;
    int by_eventual = ult % 2;
    int xrank = -1;
    ABT_self_get_xstream_rank(&xrank);
    check(xrank == ult % 2, "ULT %d runs on stream %d (on %d)", ult, ult % 2, xrank);
    int out[MSG_WORDS], in[MSG_WORDS];
    for (int m = 0; m < NMSGS; m++) {
        for (int k = 0; k < MSG_WORDS; k++)
            out[k] = word(my_rank, ult, m, k);
        memset(in, 0xff, sizeof in);
        MPI_Request rreq, sreq;
        MPI_Status rst, sst;
        MPI_Irecv(in, MSG_WORDS, MPI_INT, partner, ult, MPI_COMM_WORLD, &rreq);
        MPI_Isend(out, MSG_WORDS, MPI_INT, partner, ult, MPI_COMM_WORLD, &sreq);
        if (by_eventual) {
            wait_eventual(&rreq, &rst, ult);
            wait_eventual(&sreq, &sst, ult);
        } else {
            wait_polling(&rreq, &rst, ult, "receive");
            wait_polling(&sreq, &sst, ult, "send");
        }
        int count = -1, bad = -1;
        MPI_Get_count(&rst, MPI_INT, &count);
        for (int k = 0; k < MSG_WORDS && bad < 0; k++)
            if (in[k] != word(partner, ult, m, k))
                bad = k;
        check(rst.MPI_SOURCE == partner && rst.MPI_TAG == ult && count == MSG_WORDS && bad < 0,
              "ULT %d message %d (%s): from rank %d tag %d, %d words, %s", ult, m,
              by_eventual ? "eventual" : "polling", rst.MPI_SOURCE, rst.MPI_TAG, count,
              bad < 0 ? "content right" : "content WRONG");
    }
    __atomic_add_fetch(&ults_done, 1, __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE, size = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(provided == MPI_THREAD_MULTIPLE, "MPI provides MPI_THREAD_MULTIPLE (level %d)", provided);
    check(size % 2 == 0, "an even number of ranks (%d)", size);
    if (provided != MPI_THREAD_MULTIPLE || size % 2 != 0) {
        printf("rank %d: %d passed, %d failed\n", my_rank, passed, failed);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    partner = my_rank ^ 1;

    check(ABT_init(argc, argv) == ABT_SUCCESS, "ABT_init");
    ABT_xstream streams[2];
    ABT_xstream_self(&streams[0]);
    check(ABT_xstream_create(ABT_SCHED_NULL, &streams[1]) == ABT_SUCCESS, "second stream");

    ABT_thread_attr attr;
    ABT_thread_attr_create(&attr);
    ABT_thread_attr_set_stacksize(attr, ULT_STACK);
    for (int i = 0; i < NULTS; i++)
        ABT_eventual_create(sizeof(MPI_Status), &slots[i].ev);
    ABT_thread ults[NULTS], poll;
    /* The poller runs on the second stream, beside half of the ULTs. */
    ABT_thread_create_on_xstream(streams[1], poller, NULL, attr, &poll);
    for (int i = 0; i < NULTS; i++)
        ABT_thread_create_on_xstream(streams[i % 2], exchange, (void *)(size_t)i, attr, &ults[i]);
    for (int i = 0; i < NULTS; i++)
        ABT_thread_free(&ults[i]); /* joins it */
    ABT_thread_free(&poll);
    for (int i = 0; i < NULTS; i++)
        ABT_eventual_free(&slots[i].ev);
    ABT_thread_attr_free(&attr);
    ABT_xstream_join(streams[1]);
    ABT_xstream_free(&streams[1]);
    check(ABT_finalize() == ABT_SUCCESS, "ABT_finalize");

    MPI_Finalize();
    printf("rank %d: %d passed, %d failed\n", my_rank, passed, failed);
    fflush(stdout);
    return failed == 0 && passed > 0 ? 0 : 1;
}
