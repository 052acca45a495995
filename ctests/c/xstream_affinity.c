/* CPU binding of execution streams. Variant "off" (ABT_SET_AFFINITY unset): as in a default
 * native build, ABT_INFO_QUERY_KIND_ENABLED_AFFINITY is false, the four binding functions
 * return ABT_ERR_FEATURE_NA for a valid stream (after their handle and argument checks) and
 * nothing is bound. Variant "api" (ABT_SET_AFFINITY=yes, each binding undone first): 4 secondary
 * streams and the primary bound with ABT_xstream_set_cpubind and _set_affinity, by a ULT on
 * the stream itself, from the main ULT, and from a ULT on another stream; each binding checked
 * from inside the stream (a ULT pushed there reads its own thread's mask) and with
 * get_cpubind and get_affinity (the lowest CPU of several; a short cpuids array; duplicates;
 * 0 CPUs undoing the binding); refused CPUs (negative, CPU_SETSIZE, outside the CPUs allowed,
 * alone and next to a good one) leave the binding as it was; bad arguments; a binding set on a
 * joined stream is reported; the main thread's CPUs given back at finalize. The other
 * variants set ABT_SET_AFFINITY to a boolean or a CPU list and check that each stream of rank
 * r (the primary included) runs on list entry r mod n, ids indexing the allowed CPUs modulo
 * their number as in Argobots, that set_rank rebinds by rank over an explicit binding, and what
 * ABT_info_query_config and _print_config say; "invalid" checks the one-line warning (once),
 * that nothing is bound and that the functions are not available, as in "off". Checks adapt to
 * the CPUs the process may use (2 here); every wait for a ULT is bounded. */
// ctest-variant: off AFFINITY_CASE=off
// ctest-variant: api AFFINITY_CASE=api
// ctest-variant: yes ABT_SET_AFFINITY=yes AFFINITY_CASE=yes
// ctest-variant: zero ABT_SET_AFFINITY=0 AFFINITY_CASE=zero
// ctest-variant: pairs ABT_SET_AFFINITY={0,1},{1} AFFINITY_CASE=pairs
// ctest-variant: repeat ABT_SET_AFFINITY={1}:2:-1,{0:2} AFFINITY_CASE=repeat
// ctest-variant: wrap ABT_ENV_SET_AFFINITY=3:2:-5,-2 AFFINITY_CASE=wrap
// ctest-variant: invalid ABT_SET_AFFINITY={0,1 AFFINITY_CASE=invalid
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <abt.h>
#include "check.h"

#define NUM_XS 4

static cpu_set_t initial;      /* the main thread's CPUs before ABT_init */
static int allowed[CPU_SETSIZE]; /* ... in increasing order */
static int num_allowed;
static int cpu_a, cpu_b;       /* two allowed CPUs (the same one when only one is allowed) */
static int cpu_bad = -1;       /* a CPU below CPU_SETSIZE the process may not use, if any */

static cpu_set_t one(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return s;
}

static cpu_set_t two(int c1, int c2)
{
    cpu_set_t s = one(c1);
    CPU_SET(c2, &s);
    return s;
}

static cpu_set_t main_mask(void)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    pthread_getaffinity_np(pthread_self(), sizeof s, &s);
    return s;
}

/* ---- Running a function on a stream, with a bounded wait ---------------------------------- */

struct job {
    void (*fn)(void *);
    void *arg;
    int done;
};

static void job_run(void *p)
{
    struct job *j = p;
    j->fn(j->arg);
    __atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
}

/* Runs fn(arg) in a ULT on xs and waits for it at most 10 s (50 under valgrind); a hang fails
 * the test and ends it. */
static void run_on(ABT_xstream xs, void (*fn)(void *), void *arg)
{
    struct job j = {fn, arg, 0};
    ABT_thread t = ABT_THREAD_NULL;
    if (!CHECK(ABT_thread_create_on_xstream(xs, job_run, &j, ABT_THREAD_ATTR_NULL, &t) == ABT_SUCCESS)) return;
    double deadline = ABT_get_wtime() + 10.0 * CTEST_SLOW;
    while (!__atomic_load_n(&j.done, __ATOMIC_ACQUIRE) && ABT_get_wtime() < deadline) ABT_thread_yield();
    if (!CHECK(__atomic_load_n(&j.done, __ATOMIC_ACQUIRE))) _exit(check_summary());
    ABT_thread_free(&t);
}

/* The mask of the thread running the calling ULT. */
static void read_mask(void *arg)
{
    cpu_set_t *s = arg;
    CPU_ZERO(s);
    sched_getaffinity(0, sizeof *s, s);
}

/* The CPUs xs's thread may run on, as a ULT running there sees them. */
static cpu_set_t mask_of(ABT_xstream xs)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    run_on(xs, read_mask, &s);
    return s;
}

/* Whether get_affinity and get_cpubind report exactly want for xs. */
static int reports(ABT_xstream xs, cpu_set_t want)
{
    int ids[CPU_SETSIZE], n = -1, cpu = -1;
    if (ABT_xstream_get_affinity(xs, CPU_SETSIZE, ids, &n) != ABT_SUCCESS) return 0;
    if (n != CPU_COUNT(&want)) return 0;
    int lowest = -1;
    for (int i = 0; i < n; i++) {
        if (!CPU_ISSET(ids[i], &want) || (i > 0 && ids[i] <= ids[i - 1])) return 0;
        if (i == 0) lowest = ids[i];
    }
    return ABT_xstream_get_cpubind(xs, &cpu) == ABT_SUCCESS && cpu == lowest;
}

/* ---- Variant api: the four functions ---------------------------------------------------- */

/* What a ULT does to its own stream: bind it, read its own mask at once. */
struct self_bind {
    int num;          /* 1: set_cpubind(cpus[0]); else set_affinity(num, cpus) */
    int cpus[3];
    int rc;
    cpu_set_t after;
};

static void bind_self(void *arg)
{
    struct self_bind *b = arg;
    ABT_xstream self;
    ABT_xstream_self(&self);
    b->rc = b->num == 1 ? ABT_xstream_set_cpubind(self, b->cpus[0])
                        : ABT_xstream_set_affinity(self, b->num, b->cpus);
    CPU_ZERO(&b->after);
    sched_getaffinity(0, sizeof b->after, &b->after);
}

/* A ULT on another stream binds the primary. */
struct other_bind {
    ABT_xstream target;
    int cpu, rc;
};

static void bind_other(void *arg)
{
    struct other_bind *b = arg;
    b->rc = ABT_xstream_set_cpubind(b->target, b->cpu);
}

static void test_api(void)
{
    /* The functions work while ABT_SET_AFFINITY binds streams; each binding by rank is undone
     * first, so that the checks start from nothing bound. */
    setenv("ABT_SET_AFFINITY", "yes", 1);
    unsetenv("ABT_ENV_SET_AFFINITY");
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_xstream primary, xs[NUM_XS];
    CHECK_INT(ABT_xstream_self(&primary), ABT_SUCCESS);
    for (int i = 0; i < NUM_XS; i++) CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &xs[i]), ABT_SUCCESS);
    for (int i = 0; i < NUM_XS; i++) CHECK_INT(ABT_xstream_set_affinity(xs[i], 0, NULL), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_set_affinity(primary, 0, NULL), ABT_SUCCESS);

    /* Nothing bound yet: every stream runs where the main thread could. */
    int all = 1;
    for (int i = 0; i < NUM_XS; i++) {
        cpu_set_t m = mask_of(xs[i]);
        all &= CPU_EQUAL(&m, &initial) && reports(xs[i], initial);
    }
    CHECK(all);
    CHECK(reports(primary, initial));

    /* Another stream's binding, from the main ULT: one CPU each, alternating. */
    all = 1;
    for (int i = 0; i < NUM_XS; i++) {
        int cpu = i % 2 ? cpu_b : cpu_a;
        all &= ABT_xstream_set_cpubind(xs[i], cpu) == ABT_SUCCESS;
    }
    CHECK(all);
    all = 1;
    for (int i = 0; i < NUM_XS; i++) {
        cpu_set_t want = one(i % 2 ? cpu_b : cpu_a), m = mask_of(xs[i]);
        all &= CPU_EQUAL(&m, &want) && reports(xs[i], want);
    }
    CHECK(all);

    /* A stream's own binding, by a ULT on it, seen by that ULT right after the call. */
    struct self_bind sb = {1, {cpu_b}, -1, {{0}}};
    run_on(xs[0], bind_self, &sb);
    CHECK_INT(sb.rc, ABT_SUCCESS);
    cpu_set_t want = one(cpu_b);
    CHECK(CPU_EQUAL(&sb.after, &want));
    CHECK(reports(xs[0], want));
    struct self_bind sb2 = {3, {cpu_b, cpu_a, cpu_b}, -1, {{0}}}; /* a duplicate counts once */
    run_on(xs[1], bind_self, &sb2);
    CHECK_INT(sb2.rc, ABT_SUCCESS);
    want = two(cpu_a, cpu_b);
    CHECK(CPU_EQUAL(&sb2.after, &want));
    cpu_set_t m = mask_of(xs[1]);
    CHECK(CPU_EQUAL(&m, &want));
    CHECK(reports(xs[1], want));

    /* Several CPUs: get_cpubind gives the lowest, get_affinity fills at most max_cpuids. */
    int ids[2] = {cpu_a, cpu_b};
    CHECK_INT(ABT_xstream_set_affinity(xs[2], 2, ids), ABT_SUCCESS);
    m = mask_of(xs[2]);
    CHECK(CPU_EQUAL(&m, &want));
    int cpu = -1, out[2] = {-7, -7}, n = -1;
    CHECK_INT(ABT_xstream_get_cpubind(xs[2], &cpu), ABT_SUCCESS);
    CHECK_INT(cpu, cpu_a < cpu_b ? cpu_a : cpu_b);
    CHECK_INT(ABT_xstream_get_affinity(xs[2], 1, out, &n), ABT_SUCCESS);
    CHECK_INT(n, CPU_COUNT(&want));
    CHECK_INT(out[0], cpu_a < cpu_b ? cpu_a : cpu_b);
    CHECK_INT(out[1], -7); /* past max_cpuids: left alone */
    n = -1;
    CHECK_INT(ABT_xstream_get_affinity(xs[2], 0, NULL, &n), ABT_SUCCESS);
    CHECK_INT(n, CPU_COUNT(&want));
    CHECK_INT(ABT_xstream_get_affinity(xs[2], 2, out, NULL), ABT_SUCCESS);

    /* 0 CPUs undoes the binding. */
    CHECK_INT(ABT_xstream_set_cpubind(xs[3], cpu_a), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_set_affinity(xs[3], 0, NULL), ABT_SUCCESS);
    m = mask_of(xs[3]);
    CHECK(CPU_EQUAL(&m, &initial));
    CHECK(reports(xs[3], initial));

    /* The primary: from the main ULT, then from a ULT on another stream. */
    CHECK_INT(ABT_xstream_set_cpubind(primary, cpu_b), ABT_SUCCESS);
    m = main_mask();
    want = one(cpu_b);
    CHECK(CPU_EQUAL(&m, &want));
    CHECK(reports(primary, want));
    struct other_bind ob = {primary, cpu_a, -1};
    run_on(xs[3], bind_other, &ob);
    CHECK_INT(ob.rc, ABT_SUCCESS);
    m = main_mask();
    want = one(cpu_a);
    CHECK(CPU_EQUAL(&m, &want));
    CHECK(reports(primary, want));

    /* Refused CPUs leave the binding as it was. */
    CHECK_INT(ABT_xstream_set_cpubind(xs[0], cpu_a), ABT_SUCCESS);
    want = one(cpu_a);
    CHECK_INT(ABT_xstream_set_cpubind(xs[0], -1), ABT_ERR_CPUID);
    CHECK_INT(ABT_xstream_set_cpubind(xs[0], CPU_SETSIZE), ABT_ERR_CPUID);
    CHECK_INT(ABT_xstream_set_cpubind(xs[0], 1 << 30), ABT_ERR_CPUID);
    int bad_neg[2] = {cpu_b, -3}, bad_big[2] = {cpu_b, CPU_SETSIZE + 5};
    CHECK_INT(ABT_xstream_set_affinity(xs[0], 2, bad_neg), ABT_ERR_CPUID);
    CHECK_INT(ABT_xstream_set_affinity(xs[0], 2, bad_big), ABT_ERR_CPUID);
    printf("# a CPU the process may not use: %d\n", cpu_bad);
    if (cpu_bad >= 0) {
        CHECK_INT(ABT_xstream_set_cpubind(xs[0], cpu_bad), ABT_ERR_CPUID);
        int mixed[2] = {cpu_b, cpu_bad};
        CHECK_INT(ABT_xstream_set_affinity(xs[0], 2, mixed), ABT_ERR_CPUID);
        CHECK_INT(ABT_xstream_set_cpubind(primary, cpu_bad), ABT_ERR_CPUID);
        m = main_mask();
        cpu_set_t pa = one(cpu_a);
        CHECK(CPU_EQUAL(&m, &pa));
    }
    m = mask_of(xs[0]);
    CHECK(CPU_EQUAL(&m, &want));
    CHECK(reports(xs[0], want));

    /* Bad arguments. */
    CHECK_INT(ABT_xstream_set_cpubind(ABT_XSTREAM_NULL, cpu_a), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_get_cpubind(ABT_XSTREAM_NULL, &cpu), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_set_affinity(ABT_XSTREAM_NULL, 1, &cpu_a), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_get_affinity(ABT_XSTREAM_NULL, 2, out, &n), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_get_cpubind(xs[0], NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_xstream_set_affinity(xs[0], -1, ids), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_xstream_set_affinity(xs[0], 2, NULL), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_xstream_get_affinity(xs[0], -1, out, &n), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_xstream_get_affinity(xs[0], 1, NULL, &n), ABT_ERR_INV_ARG);
    m = mask_of(xs[0]);
    CHECK(CPU_EQUAL(&m, &want));

    /* A joined stream keeps what it was asked for last, and takes a binding for later. */
    CHECK_INT(ABT_xstream_set_cpubind(xs[3], cpu_b), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_join(xs[3]), ABT_SUCCESS);
    CHECK(reports(xs[3], one(cpu_b)));
    CHECK_INT(ABT_xstream_set_cpubind(xs[3], cpu_a), ABT_SUCCESS);
    CHECK(reports(xs[3], one(cpu_a)));
    if (cpu_bad >= 0) CHECK_INT(ABT_xstream_set_cpubind(xs[3], cpu_bad), ABT_ERR_CPUID);
    CHECK(reports(xs[3], one(cpu_a)));

    ABT_bool enabled = ABT_FALSE;
    CHECK_INT(ABT_info_query_config(ABT_INFO_QUERY_KIND_ENABLED_AFFINITY, &enabled), ABT_SUCCESS);
    CHECK_INT(enabled, ABT_TRUE);

    for (int i = 0; i < NUM_XS; i++) CHECK_INT(ABT_xstream_free(&xs[i]), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    m = main_mask();
    CHECK(CPU_EQUAL(&m, &initial)); /* the main thread gets its CPUs back */
    CHECK_INT(ABT_xstream_set_cpubind(primary, cpu_a), ABT_ERR_UNINITIALIZED);
    CHECK_INT(ABT_xstream_get_affinity(primary, 0, NULL, NULL), ABT_ERR_UNINITIALIZED);
}

/* ---- Variant off: no affinity support, as a default native build ------------------------ */

/* Every binding function on xs answers ABT_ERR_FEATURE_NA once its arguments pass their
 * checks; 1 if so. */
static int not_available(ABT_xstream xs)
{
    int cpu = -1, ids[2] = {cpu_a, cpu_b}, n = -1;
    return ABT_xstream_set_cpubind(xs, cpu_a) == ABT_ERR_FEATURE_NA &&
           ABT_xstream_get_cpubind(xs, &cpu) == ABT_ERR_FEATURE_NA && cpu == -1 &&
           ABT_xstream_set_affinity(xs, 2, ids) == ABT_ERR_FEATURE_NA &&
           ABT_xstream_set_affinity(xs, 0, NULL) == ABT_ERR_FEATURE_NA &&
           ABT_xstream_get_affinity(xs, 2, ids, &n) == ABT_ERR_FEATURE_NA && n == -1 &&
           ids[0] == cpu_a && ids[1] == cpu_b;
}

static void test_off(void)
{
    CHECK(getenv("ABT_SET_AFFINITY") == NULL && getenv("ABT_ENV_SET_AFFINITY") == NULL);
    CHECK_INT(ABT_init(0, NULL), ABT_SUCCESS);
    ABT_bool enabled = ABT_TRUE;
    CHECK_INT(ABT_info_query_config(ABT_INFO_QUERY_KIND_ENABLED_AFFINITY, &enabled), ABT_SUCCESS);
    CHECK_INT(enabled, ABT_FALSE);
    ABT_xstream primary, xs;
    CHECK_INT(ABT_xstream_self(&primary), ABT_SUCCESS);
    CHECK_INT(ABT_xstream_create(ABT_SCHED_NULL, &xs), ABT_SUCCESS);
    CHECK(not_available(primary));
    CHECK(not_available(xs));
    struct other_bind ob = {primary, cpu_a, -1};
    run_on(xs, bind_other, &ob); /* from a ULT on another stream too */
    CHECK_INT(ob.rc, ABT_ERR_FEATURE_NA);
    /* Invalid handles and arguments are named first, as native does. */
    int cpu, n, ids[2];
    CHECK_INT(ABT_xstream_set_cpubind(ABT_XSTREAM_NULL, cpu_a), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_get_cpubind(ABT_XSTREAM_NULL, &cpu), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_set_affinity(ABT_XSTREAM_NULL, 1, ids), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_get_affinity(ABT_XSTREAM_NULL, 2, ids, &n), ABT_ERR_INV_XSTREAM);
    CHECK_INT(ABT_xstream_set_affinity(xs, -1, ids), ABT_ERR_INV_ARG);
    CHECK_INT(ABT_xstream_get_affinity(xs, 1, NULL, &n), ABT_ERR_INV_ARG);
    /* Nothing bound: every stream runs where the main thread could. */
    cpu_set_t m = mask_of(xs);
    CHECK(CPU_EQUAL(&m, &initial));
    m = main_mask();
    CHECK(CPU_EQUAL(&m, &initial));
    CHECK_INT(ABT_xstream_free(&xs), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
}

/* ---- Variants with ABT_SET_AFFINITY --------------------------------------------------------- */

/* What a variant sets and what it means: entries of ids, each a list ended by END. */
#define END 1000
struct affinity_case {
    const char *name, *var, *value;
    int bound;          /* streams are bound */
    int num;            /* entries (0 for yes: one per allowed CPU) */
    int ids[3][4];
};

static const struct affinity_case cases[] = {
    {"yes", "ABT_SET_AFFINITY", "yes", 1, 0, {{END}}},
    {"zero", "ABT_SET_AFFINITY", "0", 1, 1, {{0, END}}},
    {"pairs", "ABT_SET_AFFINITY", "{0,1},{1}", 1, 2, {{0, 1, END}, {1, END}}},
    {"repeat", "ABT_SET_AFFINITY", "{1}:2:-1,{0:2}", 1, 3, {{1, END}, {0, END}, {0, 1, END}}},
    {"wrap", "ABT_ENV_SET_AFFINITY", "3:2:-5,-2", 1, 3, {{3, END}, {-2, END}, {-2, END}}},
    {"invalid", "ABT_SET_AFFINITY", "{0,1", 0, 0, {{END}}},
};

/* The CPUs rank r binds to: entry r mod n, id i naming the (i mod allowed)-th allowed CPU. */
static cpu_set_t expected(const struct affinity_case *c, int rank)
{
    if (!c->bound) return initial;
    if (c->num == 0) return one(allowed[rank % num_allowed]);
    cpu_set_t s;
    CPU_ZERO(&s);
    const int *ids = c->ids[rank % c->num];
    for (int i = 0; ids[i] != END; i++) CPU_SET(allowed[((ids[i] % num_allowed) + num_allowed) % num_allowed], &s);
    return s;
}

/* ABT_init with stderr going to a file: what it wrote there. */
static int init_capturing(char *buf, size_t len)
{
    char path[] = "/tmp/xstream_affinity_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return ABT_ERR_SYS;
    unlink(path);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    int rc = ABT_init(0, NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t got = pread(fd, buf, len - 1, 0);
    buf[got > 0 ? got : 0] = '\0';
    close(fd);
    return rc;
}

static int count_lines_with(const char *text, const char *what)
{
    int n = 0;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char copy[1024];
        snprintf(copy, sizeof copy, "%.*s", (int)(len < sizeof copy ? len : sizeof copy - 1), line);
        if (strstr(copy, what) != NULL) n++;
        line += len + (end != NULL);
    }
    return n;
}

static void test_env(const struct affinity_case *c)
{
    const char *value = getenv(c->var);
    CHECK(value != NULL && strcmp(value, c->value) == 0); /* the variant line says what the table says */
    char err[4096];
    CHECK_INT(init_capturing(err, sizeof err), ABT_SUCCESS);
    printf("# stderr at ABT_init: %s\n", err[0] ? err : "(nothing)");
    char var_value[256];
    snprintf(var_value, sizeof var_value, "%s=\"%s\"", c->var, c->value);
    if (c->bound) {
        CHECK_INT(count_lines_with(err, "SET_AFFINITY"), 0);
    } else {
        /* One line: the variable, its value, and what goabt does instead. */
        CHECK_INT(count_lines_with(err, var_value), 1);
        CHECK_INT(count_lines_with(err, "not bound"), 1);
    }

    ABT_xstream primary, xs[NUM_XS];
    CHECK_INT(ABT_xstream_self(&primary), ABT_SUCCESS);
    cpu_set_t m = main_mask(), want = expected(c, 0);
    CHECK(CPU_EQUAL(&m, &want));
    CHECK(c->bound ? reports(primary, want) : not_available(primary));
    for (int i = 0; i < NUM_XS; i++) {
        CHECK_INT(ABT_xstream_create_with_rank(ABT_SCHED_NULL, i + 1, &xs[i]), ABT_SUCCESS);
    }
    int all = 1;
    for (int i = 0; i < NUM_XS; i++) {
        want = expected(c, i + 1);
        m = mask_of(xs[i]);
        all &= CPU_EQUAL(&m, &want) && (c->bound ? reports(xs[i], want) : not_available(xs[i]));
        printf("# rank %d: %d CPUs, want %d\n", i + 1, CPU_COUNT(&m), CPU_COUNT(&want));
    }
    CHECK(all);

    /* A new rank, new CPUs, over an explicit binding; an explicit binding over the rank's. */
    if (c->bound) {
        CHECK_INT(ABT_xstream_set_cpubind(xs[0], cpu_b), ABT_SUCCESS);
        CHECK_INT(ABT_xstream_set_rank(xs[0], 7), ABT_SUCCESS);
        want = expected(c, 7);
        m = mask_of(xs[0]);
        CHECK(CPU_EQUAL(&m, &want));
        CHECK(reports(xs[0], want));
        CHECK_INT(ABT_xstream_set_cpubind(xs[1], cpu_b), ABT_SUCCESS);
        m = mask_of(xs[1]);
        want = one(cpu_b);
        CHECK(CPU_EQUAL(&m, &want));
    } else {
        CHECK_INT(ABT_xstream_set_rank(xs[0], 7), ABT_SUCCESS);
        m = mask_of(xs[0]);
        CHECK(CPU_EQUAL(&m, &initial));
    }

    ABT_bool enabled = !c->bound;
    CHECK_INT(ABT_info_query_config(ABT_INFO_QUERY_KIND_ENABLED_AFFINITY, &enabled), ABT_SUCCESS);
    CHECK_INT(enabled, c->bound ? ABT_TRUE : ABT_FALSE);
    char *text = NULL;
    size_t text_len = 0;
    FILE *f = open_memstream(&text, &text_len);
    CHECK_INT(ABT_info_print_config(f), ABT_SUCCESS);
    fclose(f);
    printf("%s", text);
    CHECK_INT(count_lines_with(text, c->bound ? "CPU binding (ABT_SET_AFFINITY): rank r on set r mod"
                                              : "CPU binding (ABT_SET_AFFINITY): off"),
              1);
    free(text);

    for (int i = 0; i < NUM_XS; i++) CHECK_INT(ABT_xstream_free(&xs[i]), ABT_SUCCESS);
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
    m = main_mask();
    CHECK(CPU_EQUAL(&m, &initial));

    /* A second ABT_init reads the variable again but says nothing more. */
    CHECK_INT(init_capturing(err, sizeof err), ABT_SUCCESS);
    CHECK_INT(count_lines_with(err, "SET_AFFINITY"), 0);
    m = main_mask();
    want = expected(c, 0);
    CHECK(CPU_EQUAL(&m, &want));
    CHECK_INT(ABT_finalize(), ABT_SUCCESS);
}

int main(void)
{
    pthread_getaffinity_np(pthread_self(), sizeof initial, &initial);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET(cpu, &initial)) allowed[num_allowed++] = cpu;
    }
    for (int cpu = 0; cpu < CPU_SETSIZE && cpu_bad < 0; cpu++) {
        if (!CPU_ISSET(cpu, &initial)) cpu_bad = cpu;
    }
    cpu_a = allowed[0];
    cpu_b = allowed[num_allowed > 1 ? 1 : 0];
    printf("# %d CPUs allowed; using %d and %d\n", num_allowed, cpu_a, cpu_b);
    const char *which = getenv("AFFINITY_CASE");
    CHECK(which != NULL);
    if (which != NULL && strcmp(which, "api") == 0) {
        test_api();
    } else if (which != NULL && strcmp(which, "off") == 0) {
        test_off();
    } else if (which != NULL) {
        const struct affinity_case *c = NULL;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            if (strcmp(cases[i].name, which) == 0) c = &cases[i];
        }
        if (CHECK(c != NULL)) test_env(c);
    }
    return check_summary();
}
