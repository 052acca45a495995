package core

import (
	"strconv"
	"strings"
	"time"
)

// Config is what the runtime reads from the environment at the first ABT_init.
type Config struct {
	// ThreadStackSize is the default ULT stack size in bytes (ABT_THREAD_STACKSIZE).
	ThreadStackSize uintptr
	// MaxXstreams is what ABT_INFO_QUERY_KIND_MAX_NUM_XSTREAMS reports (ABT_MAX_NUM_XSTREAMS).
	MaxXstreams int
	// Affinity binds each stream to one CPU, chosen by its rank. Off unless ABT_SET_AFFINITY is
	// set to something other than n, no, false or off. Argobots binds by default; goabt does not:
	// bound streams measured no faster here, ran up to 9 times slower beside busy threads of other
	// programs, and threads the program creates after ABT_init inherit the main thread's binding.
	Affinity bool
	// CheckLeaks makes the last ABT_finalize report, on stderr, unit descriptors, key tables and
	// key chunks the C engine did not give back (GOABT_CHECK_LEAKS set to anything but 0): the
	// tests' way to see that racing table creation loses nothing.
	CheckLeaks bool
	// SafetyWakeup bounds how long an idle stream, or an OS thread blocked in goabt, sleeps
	// before it looks again by itself (GOABT_SAFETY_WAKEUP_MS; 0 or "off": never). Every
	// wake-up is exact, so this only limits the damage of a lost one; the tests turn it off so
	// that a lost wake-up hangs instead of hiding.
	SafetyWakeup time.Duration
	// Pool, when not empty, names a Go pool (RegisterPool) that replaces every predefined pool:
	// the pools ABT_pool_create_basic makes, whatever kind is asked for, and those goabt makes
	// itself for predefined and default schedulers, the primary stream's included
	// (GOABT_POOL). An unknown name makes ABT_init fail.
	Pool string
	// Sched, when not empty, names a Go scheduling policy (RegisterPolicy) that replaces every
	// predefined scheduler's choice of pool: ABT_sched_create_basic's, whatever kind is asked
	// for, and the default schedulers of new streams and of the primary stream (GOABT_SCHED).
	// An unknown name makes ABT_init fail.
	Sched string
	// StackCheck is how ULT stack overflows are caught (ABT_STACK_OVERFLOW_CHECK, read as
	// Argobots reads it): StackCheckMprotect unless the environment says otherwise.
	StackCheck StackCheck
}

// StackCheck is a stack-overflow check mode. Its values are what
// ABT_INFO_QUERY_KIND_ENABLED_STACK_OVERFLOW_CHECK reports for it in Argobots 1.2.
type StackCheck int

const (
	// StackCheckNone: no check. The stacks keep their guard pages (they cost nothing once
	// mapped), but no signal handler is installed: an overflow dies by a bare SIGSEGV.
	StackCheckNone StackCheck = 0
	// StackCheckCanary: as StackCheckMprotect, and each ULT stack also carries a canary at its
	// lowest bytes, laid when the ULT starts and checked when its function returns, which
	// catches overflows into memory that does not fault (stacks past GuardedStacks, user stacks).
	StackCheckCanary StackCheck = 1
	// StackCheckMprotect: the first GuardedStacks stacks alive at once have a guard page, and
	// a fault in the guard page of the running ULT is reported on stderr (the default).
	StackCheckMprotect StackCheck = 2
	// StackCheckStrict: as StackCheckMprotect, but every stack goabt maps has a guard page of
	// its own: past what the kernel allows (vm.max_map_count), creating a ULT fails instead of
	// handing out a stack without one.
	StackCheckStrict StackCheck = 3
)

// String is the mode's name as ABT_STACK_OVERFLOW_CHECK spells it.
func (m StackCheck) String() string {
	switch m {
	case StackCheckNone:
		return "none"
	case StackCheckCanary:
		return "canary"
	case StackCheckMprotect:
		return "mprotect"
	case StackCheckStrict:
		return "mprotect_strict"
	}
	return "StackCheck(" + strconv.Itoa(int(m)) + ")"
}

// parseStackCheck reads ABT_STACK_OVERFLOW_CHECK's value (case does not matter). Unset, the
// default is mprotect. Argobots turns its guard pages off for any value other than mprotect and
// mprotect_strict; so does goabt, none included, except canary, which it implements.
func parseStackCheck(v string) StackCheck {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "":
		return StackCheckMprotect
	case "mprotect":
		return StackCheckMprotect
	case "mprotect_strict":
		return StackCheckStrict
	case "canary":
		return StackCheckCanary
	}
	return StackCheckNone
}

const (
	// DefaultThreadStackSize is Argobots' default ULT stack: 16 KiB.
	DefaultThreadStackSize = 16384
	// MinThreadStackSize is the smallest stack goabt runs a ULT on (engine.md rule 2).
	MinThreadStackSize = 8192
	// maxThreadStackSize bounds what the environment may ask for (1 GiB).
	maxThreadStackSize = 1 << 30
	// DefaultSafetyWakeup is SafetyWakeup unless the environment says otherwise.
	DefaultSafetyWakeup = 50 * time.Millisecond
)

// lookupEnv finds an Argobots variable as ABT_<name> or ABT_ENV_<name>, as Argobots does.
func lookupEnv(getenv func(string) string, name string) string {
	if v := getenv("ABT_" + name); v != "" {
		return v
	}
	return getenv("ABT_ENV_" + name)
}

// ConfigFromEnv reads the configuration; getenv is os.Getenv outside tests. Values that do not
// parse keep their default; sizes are clamped to what goabt can run and rounded up to 64 bytes,
// as Argobots rounds to the cache line.
func ConfigFromEnv(getenv func(string) string, cpus int) Config {
	c := Config{ThreadStackSize: DefaultThreadStackSize, MaxXstreams: max(cpus, 1),
		SafetyWakeup: DefaultSafetyWakeup}
	switch v := strings.ToLower(strings.TrimSpace(lookupEnv(getenv, "SET_AFFINITY"))); v {
	case "", "n", "no", "false", "off":
	default:
		c.Affinity = true // yes, or a CPU list (taken as yes: CPUs go by rank)
	}
	if v := strings.TrimSpace(getenv("GOABT_CHECK_LEAKS")); v != "" && v != "0" {
		c.CheckLeaks = true
	}
	switch v := strings.ToLower(strings.TrimSpace(getenv("GOABT_SAFETY_WAKEUP_MS"))); v {
	case "":
	case "off", "no", "0":
		c.SafetyWakeup = 0
	default:
		if n, err := strconv.ParseUint(v, 10, 32); err == nil {
			c.SafetyWakeup = time.Duration(n) * time.Millisecond
		}
	}
	c.StackCheck = parseStackCheck(lookupEnv(getenv, "STACK_OVERFLOW_CHECK"))
	c.Pool = strings.TrimSpace(getenv("GOABT_POOL"))
	c.Sched = strings.TrimSpace(getenv("GOABT_SCHED"))
	if v := lookupEnv(getenv, "THREAD_STACKSIZE"); v != "" {
		if n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64); err == nil {
			n = min(max(n, MinThreadStackSize), maxThreadStackSize)
			c.ThreadStackSize = uintptr((n + 63) &^ 63)
		}
	}
	if v := lookupEnv(getenv, "MAX_NUM_XSTREAMS"); v != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
			c.MaxXstreams = n
		}
	}
	return c
}
