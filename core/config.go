package core

import (
	"fmt"
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
	// PrintConfig makes every outermost ABT_init print the configuration on stdout, as
	// ABT_info_print_config does (ABT_PRINT_CONFIG: 1, y, yes, true or on; 0, n, no, false or
	// off leave it off).
	PrintConfig bool
	// Warnings says, one line each, which variables held values goabt could not use, and the
	// value it used instead ("ABT_THREAD_STACKSIZE=lots is not a number of bytes; using
	// 16384"). Runtime.NewWarnings hands each out once per process.
	Warnings []string
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

// envName is the name a variable was found under, for warnings: ABT_<name> or ABT_ENV_<name>.
func envName(getenv func(string) string, name string) string {
	if getenv("ABT_"+name) == "" && getenv("ABT_ENV_"+name) != "" {
		return "ABT_ENV_" + name
	}
	return "ABT_" + name
}

// parseSwitch reads a yes/no variable: ok is false when v is neither.
func parseSwitch(v string) (on, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "y", "yes", "true", "on":
		return true, true
	case "", "0", "n", "no", "false", "off":
		return false, true
	}
	return false, false
}

// isCPUList says whether v reads as an Argobots CPU list ("0-3", "{0,1},{2:4:1}" ...): digits
// and list punctuation only, at least one digit.
func isCPUList(v string) bool {
	digit := false
	for _, r := range v {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case strings.ContainsRune(",:{}- \t", r):
		default:
			return false
		}
	}
	return digit
}

// ConfigFromEnv reads the configuration; getenv is os.Getenv outside tests. Values that do not
// parse keep their default, and values out of range are clamped, each with a line in Warnings;
// sizes are rounded up to 64 bytes, as Argobots rounds to the cache line.
func ConfigFromEnv(getenv func(string) string, cpus int) Config {
	c := Config{ThreadStackSize: DefaultThreadStackSize, MaxXstreams: max(cpus, 1),
		SafetyWakeup: DefaultSafetyWakeup}
	warn := func(format string, args ...any) {
		c.Warnings = append(c.Warnings, fmt.Sprintf(format, args...))
	}
	raw := strings.TrimSpace(lookupEnv(getenv, "SET_AFFINITY"))
	switch v := strings.ToLower(raw); v {
	case "", "n", "no", "false", "off":
	default:
		c.Affinity = true // yes, or a CPU list (taken as yes: CPUs go by rank)
		if on, ok := parseSwitch(v); !(ok && on) && !isCPUList(v) {
			warn("%s=%s is neither yes, no nor a CPU list; using yes",
				envName(getenv, "SET_AFFINITY"), raw)
		}
	}
	if v := lookupEnv(getenv, "PRINT_CONFIG"); v != "" {
		on, ok := parseSwitch(v)
		if !ok {
			warn("%s=%s is neither yes nor no; using no", envName(getenv, "PRINT_CONFIG"), v)
		}
		c.PrintConfig = on
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
		} else {
			warn("GOABT_SAFETY_WAKEUP_MS=%s is neither a number of milliseconds nor off; using %d",
				getenv("GOABT_SAFETY_WAKEUP_MS"), DefaultSafetyWakeup.Milliseconds())
		}
	}
	c.Pool = strings.TrimSpace(getenv("GOABT_POOL"))
	c.Sched = strings.TrimSpace(getenv("GOABT_SCHED"))
	if v := lookupEnv(getenv, "THREAD_STACKSIZE"); v != "" {
		name := envName(getenv, "THREAD_STACKSIZE")
		if n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64); err == nil {
			clamped := min(max(n, MinThreadStackSize), maxThreadStackSize)
			c.ThreadStackSize = uintptr((clamped + 63) &^ 63)
			if clamped != n {
				warn("%s=%s is outside %d..%d bytes; using %d", name, v, MinThreadStackSize,
					maxThreadStackSize, c.ThreadStackSize)
			}
		} else {
			warn("%s=%s is not a number of bytes; using %d", name, v, c.ThreadStackSize)
		}
	}
	if v := lookupEnv(getenv, "MAX_NUM_XSTREAMS"); v != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
			c.MaxXstreams = n
		} else {
			warn("%s=%s is not a positive number; using %d", envName(getenv, "MAX_NUM_XSTREAMS"),
				v, c.MaxXstreams)
		}
	}
	return c
}
