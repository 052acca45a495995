//go:build goabt_c_engine
/* golib_signals.c: the program's signal handlers beside the Go runtime that golib.c loads.
 *
 * A c-shared Go runtime takes some signals for itself as it starts (Go's os/signal, "Non-Go
 * programs that call Go code"): SIGSEGV, SIGBUS and SIGFPE, which it needs to turn faults in
 * its own code into panics and forwards, for a fault in code not its own, to the handler it
 * found there; SIGPIPE; and SIGURG, its preemption signal, which it never forwards. It also adds
 * SA_ONSTACK to every handler it finds. Left so, a program's SIGURG handler (out-of-band data,
 * F_SETOWN) never ran again, and after ABT_finalize the program found Go's handlers where its own
 * had been (SA_RESETHAND and its other flags lost). So goabt keeps a ledger per signal: the
 * program's action (program[]) and the one goabt last put in place (installed[]); an action
 * found installed that is not the one goabt put there is the program's, noted anew.
 *
 *   - Before the load, the program's actions are noted, and for the three fault signals a
 *     forwarder of goabt's is installed, so that the forwarder is what Go saves and forwards to.
 *     It passes a fault on to the program's action as noted at the latest ABT_init (Go's own
 *     copy would be the one of the load, stale once the program changed its handler since).
 *   - While goabt runs (from the load, and from every outermost ABT_init on): Go's handlers for
 *     the fault signals; for every other signal the program's own action, with SA_ONSTACK added
 *     to a handler (Go requires it of any handler that may run on a thread of its). SIGURG is
 *     the program's: the Go core is built with asyncpreemptoff=1 (capi/main.go), so its runtime
 *     never sends SIGURG, and loses only the preemption of a goroutine that loops without a
 *     call, which the Go core has none of.
 *   - The outermost ABT_finalize (after the stack-overflow check has taken its handler off, and
 *     the hang report its own) puts back exactly the program's action where goabt's is still
 *     installed; a handler the program installed meanwhile stays.
 *
 * The cost is at the load (a sigaction read of every signal), and at each outermost ABT_init and
 * ABT_finalize: a read of each signal the ledger tracks, the fault signals, those the Go runtime
 * changed and those the program handled at the load (a system call costs about 1 us on the
 * machines here, so reading all 64 at every init and finalize doubled make bench's
 * init_finalize row), and a write for the few that change. A handler the program installs for
 * another signal later is its own, and goabt never touches it. */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include "gocalls.h"

/* The kernel's flag for the C library's return trampoline (asm/signal.h); glibc sets it on
 * every action and does not name it. */
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

/* The fault signals Go keeps its handler on while goabt runs. */
static int is_fault(int sig) { return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE; }

static struct sigaction program[NSIG];   /* the program's action, as last noted */
static struct sigaction installed[NSIG]; /* the action goabt last put in place (or found) */
static struct sigaction go_fault[NSIG];  /* Go's handler for a fault signal, as it installed it */
static char tracked[NSIG];               /* the signals take and give_back look at (top) */

static int get_action(int sig, struct sigaction *a)
{
    memset(a, 0, sizeof *a); /* glibc fills only the kernel's part of sa_mask */
    return sigaction(sig, NULL, a);
}

/* The same handler, flags and mask (SA_RESTORER is the C library's, not the program's). */
static int same_action(const struct sigaction *a, const struct sigaction *b)
{
    if (a->sa_handler != b->sa_handler) return 0; /* sa_sigaction shares its storage */
    if ((a->sa_flags & ~SA_RESTORER) != (b->sa_flags & ~SA_RESTORER)) return 0;
    for (int s = 1; s < NSIG; s++) {
        if (sigismember(&a->sa_mask, s) != sigismember(&b->sa_mask, s)) return 0;
    }
    return 1;
}

static int is_handler(const struct sigaction *a)
{
    return a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN;
}

static int signal_ours_to_touch(int sig) { return sig != SIGKILL && sig != SIGSTOP; }

void goabt_signal_take_action(struct sigaction *p, int sig, siginfo_t *si, void *ctx)
{
    if (is_handler(p)) {
        struct sigaction h = *p;
        if (p->sa_flags & SA_RESETHAND) { /* once, as the kernel does */
            p->sa_handler = SIG_DFL;
            p->sa_flags &= ~SA_SIGINFO;
        }
        if (h.sa_flags & SA_SIGINFO) {
            h.sa_sigaction(sig, si, ctx);
        } else {
            h.sa_handler(sig);
        }
        return;
    }
    if (p->sa_handler == SIG_IGN && si->si_code <= 0) return; /* sent, and ignored */
    /* The default action: a fault happens again when the instruction is retried and kills the
     * process, as the kernel does with an ignored fault too; a sent signal is sent again. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    if (si->si_code <= 0) raise(sig);
}

/* Go forwards here a fault in code not its own: the program's action, as noted at the latest
 * ABT_init. Async-signal-safe. */
static void forward_fault(int sig, siginfo_t *si, void *ctx)
{
    goabt_signal_take_action(&program[sig], sig, si, ctx);
}

void goabt_signals_before_load(void)
{
    for (int sig = 1; sig < NSIG; sig++) {
        if (!signal_ours_to_touch(sig) || get_action(sig, &program[sig]) != 0) continue;
        installed[sig] = program[sig];
        if (!is_fault(sig)) continue;
        struct sigaction fwd;
        memset(&fwd, 0, sizeof fwd);
        fwd.sa_sigaction = forward_fault;
        fwd.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigfillset(&fwd.sa_mask);
        if (sigaction(sig, &fwd, NULL) == 0) get_action(sig, &installed[sig]);
    }
}

void goabt_signals_load_failed(void)
{
    for (int sig = 1; sig < NSIG; sig++) {
        if (signal_ours_to_touch(sig) && is_fault(sig)) sigaction(sig, &program[sig], NULL);
    }
}

void goabt_signals_after_load(void)
{
    /* What the Go runtime left is goabt's to replace; its fault handlers are kept for later. */
    for (int sig = 1; sig < NSIG; sig++) {
        if (!signal_ours_to_touch(sig) || get_action(sig, &installed[sig]) != 0) continue;
        if (is_fault(sig)) go_fault[sig] = installed[sig];
        tracked[sig] = is_fault(sig) || !same_action(&installed[sig], &program[sig]) ||
                       is_handler(&program[sig]);
    }
    goabt_signals_take();
}

/* Puts in place, for every signal, what goabt wants while it runs (top of file). */
void goabt_signals_take(void)
{
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction now;
        if (!tracked[sig] || get_action(sig, &now) != 0) continue;
        if (!same_action(&now, &installed[sig])) program[sig] = now;
        struct sigaction want = is_fault(sig) ? go_fault[sig] : program[sig];
        if (!is_fault(sig) && is_handler(&want)) want.sa_flags |= SA_ONSTACK;
        if (!same_action(&now, &want) && sigaction(sig, &want, NULL) != 0) want = now;
        installed[sig] = want;
    }
}

/* Puts the program's actions back where goabt's are still in place. */
void goabt_signals_give_back(void)
{
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction now;
        if (!tracked[sig] || get_action(sig, &now) != 0) continue;
        if (!same_action(&now, &installed[sig])) {
            program[sig] = now; /* the program's, installed meanwhile */
        } else if (!same_action(&now, &program[sig])) {
            sigaction(sig, &program[sig], NULL);
        }
        installed[sig] = program[sig];
    }
}
