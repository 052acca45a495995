package core

import (
	"strconv"
	"strings"
)

// Config is what the runtime reads from the environment at the first ABT_init.
type Config struct {
	// ThreadStackSize is the default ULT stack size in bytes (ABT_THREAD_STACKSIZE).
	ThreadStackSize uintptr
	// MaxXstreams is what ABT_INFO_QUERY_KIND_MAX_NUM_XSTREAMS reports (ABT_MAX_NUM_XSTREAMS).
	MaxXstreams int
	// Affinity binds each stream to one CPU, chosen by its rank (ABT_SET_AFFINITY; on unless
	// it says n, no, false or off, as in Argobots).
	Affinity bool
}

const (
	// DefaultThreadStackSize is Argobots' default ULT stack: 16 KiB.
	DefaultThreadStackSize = 16384
	// MinThreadStackSize is the smallest stack goabt runs a ULT on (engine.md rule 2).
	MinThreadStackSize = 8192
	// maxThreadStackSize bounds what the environment may ask for (1 GiB).
	maxThreadStackSize = 1 << 30
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
	c := Config{ThreadStackSize: DefaultThreadStackSize, MaxXstreams: max(cpus, 1), Affinity: true}
	switch strings.ToLower(strings.TrimSpace(lookupEnv(getenv, "SET_AFFINITY"))) {
	case "n", "no", "false", "off":
		c.Affinity = false
	}
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
