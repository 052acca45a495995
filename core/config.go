package core

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Config is what the runtime reads from the environment at the first ABT_init.
type Config struct {
	// ThreadStackSize is the default ULT stack size in bytes (ABT_THREAD_STACKSIZE).
	ThreadStackSize uintptr
	// MaxXstreams is what ABT_INFO_QUERY_KIND_MAX_NUM_XSTREAMS reports (ABT_MAX_NUM_XSTREAMS).
	MaxXstreams int
	// Affinity binds each stream to CPUs chosen by its rank (ABT_SET_AFFINITY). Off unless
	// ABT_SET_AFFINITY is y, yes, true or on (one CPU per rank), or a CPU list (AffinityList).
	// Argobots binds by default; goabt does not: bound streams measured no faster here, ran up
	// to 9 times slower beside busy threads of other programs, and threads the program creates
	// after ABT_init inherit the main thread's binding.
	Affinity bool
	// AffinityList is ABT_SET_AFFINITY's CPU list when it is one (ParseAffinity): rank r binds
	// to the CPUs of entry r mod len(AffinityList), mapped by AffinitySets. nil: one CPU per
	// rank.
	AffinityList [][]int
	// AffinityInvalid says why ABT_SET_AFFINITY was neither a boolean nor a CPU list, naming
	// the variable and its value; Affinity is then off (Argobots would bind one CPU per rank).
	AffinityInvalid error
	// CheckLeaks makes the last ABT_finalize list, on stderr, every object the program created
	// through the API and did not free (work units, keys, pools, schedulers, attributes,
	// synchronization objects), and what unit descriptors, key tables and key chunks the C
	// engine did not give back; opal_class_finalize lists the OPAL objects still alive
	// (GOABT_CHECK_LEAKS, LeakCheckFromEnv).
	CheckLeaks bool
	// CheckLeaksFatal: after a report that found leaks, the process exits with status
	// LeakExitStatus (GOABT_CHECK_LEAKS=fatal).
	CheckLeaksFatal bool
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
	// ABT_info_print_config does (ABT_PRINT_CONFIG, a yes/no variable: parseSwitch; off by
	// default).
	PrintConfig bool
	// Warnings says, one line each, which variables held values goabt could not use, and the
	// value it used instead ("ABT_THREAD_STACKSIZE=lots is not a number of bytes; using
	// 16384"). Runtime.NewWarnings hands each out once per process.
	Warnings []string
	// StackCheck is how ULT stack overflows are caught (ABT_STACK_OVERFLOW_CHECK, read as
	// Argobots reads it): StackCheckMprotect unless the environment says otherwise.
	StackCheck StackCheck
	// Tool turns on the tool interface (GOABT_TOOL, a yes/no variable: parseSwitch). Off, as in an
	// Argobots built without --enable-tool (its default), ABT_info_query_config says
	// ENABLED_TOOL is false and ABT_tool_* return ABT_ERR_FEATURE_NA: clients such as Margo
	// start a profiler when they see a tool interface.
	Tool bool
	// Watchdog, when not 0, is how long no unit may run while a unit waits, with nothing due
	// to wake it, before goabt prints every unit that is not finished on stderr, once
	// (GOABT_WATCHDOG, in seconds; off by default).
	Watchdog time.Duration
	// DumpSignal, when not 0, is the signal on which goabt prints the same report
	// (GOABT_DUMP_SIGNAL: a name such as SIGUSR2 or USR2, or a number; off by default).
	DumpSignal int
	// Trace, when not empty, is the file the last ABT_finalize writes a timeline trace of the
	// run to (GOABT_TRACE=path): the Chrome JSON trace event format that Perfetto and
	// chrome://tracing open (trace.go). Every outermost ABT_init creates it, empty
	// (capi/trace.go): a path that cannot be written is said then, in one line, and that run is
	// not traced. Empty: no trace, and the engine's event sites cost what they cost without it.
	Trace string
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
	// catches overflows into memory that does not fault (user stacks, and stacks past
	// GuardedStacks where the kernel has no lightweight guard regions).
	StackCheckCanary StackCheck = 1
	// StackCheckMprotect: every stack has a guard page (without lightweight guard regions in
	// the kernel, the first GuardedStacks alive at once only: Stacks), and a fault in the guard
	// page of the running ULT is reported on stderr (the default).
	StackCheckMprotect StackCheck = 2
	// StackCheckStrict: as StackCheckMprotect, but also without lightweight guard regions
	// every stack goabt maps has a guard page of its own: past what the kernel allows
	// (vm.max_map_count), creating a ULT fails instead of handing out a stack without one.
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
// mprotect_strict; so does goabt, except canary, which it implements. ok is false for a value
// that is none of the four names (a typo, most likely: the caller warns).
func parseStackCheck(v string) (mode StackCheck, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "":
		return StackCheckMprotect, true
	case "mprotect":
		return StackCheckMprotect, true
	case "mprotect_strict":
		return StackCheckStrict, true
	case "canary":
		return StackCheckCanary, true
	case "none":
		return StackCheckNone, true
	}
	return StackCheckNone, false
}

// LeakCheck is GOABT_CHECK_LEAKS's mode. Its values are what the C engine and the OPAL header
// read (goabt_leak_check, opal_obj_leak_check).
type LeakCheck int

const (
	// LeakCheckOff: no tracking, no report (unset, a no, and any value parseSwitch does not
	// know, with a warning).
	LeakCheckOff LeakCheck = 0
	// LeakCheckReport: the last ABT_finalize and opal_class_finalize list what is left on
	// stderr; the exit status does not change (a yes).
	LeakCheckReport LeakCheck = 1
	// LeakCheckFatal: as LeakCheckReport, and a process whose report found something exits
	// with LeakExitStatus (fatal).
	LeakCheckFatal LeakCheck = 2
)

// LeakExitStatus is the exit status of a process in which GOABT_CHECK_LEAKS=fatal found leaks:
// LeakSanitizer's, which is what a C programmer's CI already reads as "leaks found".
const LeakExitStatus = 23

// LeakCheckFromEnv reads GOABT_CHECK_LEAKS: a yes/no variable (parseSwitch) with a third
// value, "fatal" (case does not matter). Any other value keeps the default, off, with a
// warning saying so, as every yes/no variable does.
func LeakCheckFromEnv(getenv func(string) string) (LeakCheck, string) {
	v := getenv("GOABT_CHECK_LEAKS")
	if strings.EqualFold(strings.TrimSpace(v), "fatal") {
		return LeakCheckFatal, ""
	}
	on, ok := parseSwitch(v)
	if !ok {
		return LeakCheckOff, fmt.Sprintf("GOABT_CHECK_LEAKS=%s is neither yes, no nor fatal; using no", v)
	}
	if on {
		return LeakCheckReport, ""
	}
	return LeakCheckOff, ""
}

// OpalRaceAbortFromEnv reads GOABT_OPAL_RACE_ABORT, a yes/no variable (parseSwitch): yes makes
// the OPAL race check of debug builds abort after its report. Off by default; a value it does
// not know keeps that, with a warning.
func OpalRaceAbortFromEnv(getenv func(string) string) (bool, string) {
	v := getenv("GOABT_OPAL_RACE_ABORT")
	if v == "" {
		return false, ""
	}
	return switchFromEnv("GOABT_OPAL_RACE_ABORT", v, false)
}

const (
	// DefaultThreadStackSize is Argobots' default ULT stack: 16 KiB.
	DefaultThreadStackSize = 16384
	// MinThreadStackSize is the smallest stack goabt runs a ULT on (docs/design.md rule 2).
	MinThreadStackSize = 8192
	// maxThreadStackSize bounds what the environment may ask for (1 GiB).
	maxThreadStackSize = 1 << 30
	// DefaultSafetyWakeup is SafetyWakeup unless the environment says otherwise.
	DefaultSafetyWakeup = 50 * time.Millisecond
)

// lookupEnv finds an Argobots variable as ABT_<name> or ABT_ENV_<name>, as Argobots does.
func lookupEnv(getenv func(string) string, name string) string {
	_, v := lookupEnvName(getenv, name)
	return v
}

// lookupEnvName is lookupEnv that also says which of the two names it found ("" if neither).
func lookupEnvName(getenv func(string) string, name string) (string, string) {
	for _, prefix := range []string{"ABT_", "ABT_ENV_"} {
		if v := getenv(prefix + name); v != "" {
			return prefix + name, v
		}
	}
	return "", ""
}

// envName is the name a variable was found under, for warnings: ABT_<name> or ABT_ENV_<name>.
func envName(getenv func(string) string, name string) string {
	if getenv("ABT_"+name) == "" && getenv("ABT_ENV_"+name) != "" {
		return "ABT_ENV_" + name
	}
	return "ABT_" + name
}

// parseSwitch reads a yes/no variable's value as Argobots 1.2 reads its own (load_env_bool):
// 1, y, yes, true and on say yes; 0, n, no, false and off say no; case and blanks around do not
// matter. ok is false when v is neither: every yes/no variable then keeps its default, as in
// Argobots, and unlike Argobots says so in a warning (switchFromEnv, LeakCheckFromEnv).
func parseSwitch(v string) (on, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "y", "yes", "true", "on":
		return true, true
	case "", "0", "n", "no", "false", "off":
		return false, true
	}
	return false, false
}

// switchFromEnv reads the yes/no variable name, whose value v is not empty: a value
// parseSwitch does not know keeps def, and the warning names the variable, the value and what
// is used instead.
func switchFromEnv(name, v string, def bool) (on bool, warning string) {
	on, ok := parseSwitch(v)
	if ok {
		return on, ""
	}
	used := "no"
	if def {
		used = "yes"
	}
	return def, fmt.Sprintf("%s=%s is neither yes nor no; using %s", name, v, used)
}

// ConfigFromEnv reads the configuration; getenv is os.Getenv outside tests. Values that do not
// parse keep their default, and values out of range are clamped, each with a line in Warnings;
// sizes are rounded up to 64 bytes, as Argobots rounds to the cache line.
func ConfigFromEnv(getenv func(string) string, cpus int) Config {
	c := Config{ThreadStackSize: DefaultThreadStackSize, MaxXstreams: max(cpus, 1),
		SafetyWakeup: DefaultSafetyWakeup}
	c.Affinity, c.AffinityList, c.AffinityInvalid = affinityFromEnv(lookupEnvName(getenv, "SET_AFFINITY"))
	warn := func(format string, args ...any) {
		c.Warnings = append(c.Warnings, fmt.Sprintf(format, args...))
	}
	if c.AffinityInvalid != nil {
		warn("%v; streams are not bound to CPUs", c.AffinityInvalid)
	}
	if v := lookupEnv(getenv, "PRINT_CONFIG"); v != "" {
		var warning string
		c.PrintConfig, warning = switchFromEnv(envName(getenv, "PRINT_CONFIG"), v, false)
		if warning != "" {
			warn("%s", warning)
		}
	}
	if v := getenv("GOABT_TOOL"); v != "" {
		var warning string
		if c.Tool, warning = switchFromEnv("GOABT_TOOL", v, false); warning != "" {
			warn("%s", warning)
		}
	}
	leaks, warning := LeakCheckFromEnv(getenv)
	c.CheckLeaks, c.CheckLeaksFatal = leaks != LeakCheckOff, leaks == LeakCheckFatal
	if warning != "" {
		warn("%s", warning)
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
	stackCheck := lookupEnv(getenv, "STACK_OVERFLOW_CHECK")
	var stackCheckKnown bool
	if c.StackCheck, stackCheckKnown = parseStackCheck(stackCheck); !stackCheckKnown {
		warn("%s=%s is none of none, canary, mprotect and mprotect_strict; using none",
			envName(getenv, "STACK_OVERFLOW_CHECK"), stackCheck)
	}
	if c.StackCheck == StackCheckMprotect || c.StackCheck == StackCheckStrict {
		// The guard page is the stack's lowest page in these modes (capi/engine/unit_stack.c), and the
		// default stack two pages larger, as in Argobots: the room a ULT has stays.
		c.ThreadStackSize = DefaultThreadStackSize + 2*pageSize()
	}
	if v := strings.TrimSpace(getenv("GOABT_WATCHDOG")); v != "" {
		secs, err := strconv.ParseFloat(v, 64)
		switch {
		case err == nil && secs > 0 && secs <= maxWatchdogSeconds:
			c.Watchdog = time.Duration(secs * float64(time.Second))
		case strings.EqualFold(v, "off") || v == "0":
		default:
			warn("GOABT_WATCHDOG=%s is not a number of seconds from 0 to %d; the watchdog is off",
				getenv("GOABT_WATCHDOG"), maxWatchdogSeconds)
		}
	}
	if v := strings.TrimSpace(getenv("GOABT_DUMP_SIGNAL")); v != "" {
		if n, ok := parseSignal(v); ok {
			c.DumpSignal = n
		} else if !strings.EqualFold(v, "off") && v != "0" {
			warn("GOABT_DUMP_SIGNAL=%s names no signal goabt can take (SIGUSR1, SIGUSR2, SIGQUIT, "+
				"SIGPWR, SIGWINCH, SIGRTMIN+n, or their numbers); no signal prints the units",
				getenv("GOABT_DUMP_SIGNAL"))
		}
	}
	c.Pool = strings.TrimSpace(getenv("GOABT_POOL"))
	c.Sched = strings.TrimSpace(getenv("GOABT_SCHED"))
	c.Trace = strings.TrimSpace(getenv("GOABT_TRACE"))
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

// affinityFromEnv reads ABT_SET_AFFINITY (found as name): Argobots' false words (n, no, false,
// off, any case) turn binding off, its true words (y, yes, true, on) bind one CPU per rank, and
// anything else is a CPU list. "0" and "1" are lists, as in Argobots: every stream on the
// first, or on the second, allowed CPU. A value that does not parse turns binding off.
func affinityFromEnv(name, value string) (bool, [][]int, error) {
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "", "n", "no", "false", "off":
		return false, nil, nil
	case "y", "yes", "true", "on":
		return true, nil, nil
	}
	list, err := ParseAffinity(value)
	if err != nil {
		return false, nil, fmt.Errorf("%s=%q: %w", name, value, err)
	}
	return true, list, nil
}

// Bounds of a CPU list: ids and strides past maxAffinityInt, or lists naming more than
// maxAffinityIDs ids in all, are refused (Argobots has no bound; these keep a mistyped count
// from exhausting memory).
const (
	maxAffinityInt = 1 << 30
	maxAffinityIDs = 1 << 16
)

// ParseAffinity reads a CPU list in Argobots' ABT_SET_AFFINITY grammar and returns its entries,
// each the CPU ids it names in order (duplicates kept; AffinitySets maps them to CPUs):
//
//	list     = entry { "," entry }
//	entry    = ids [ ":" count [ ":" stride ] ]   count entries: ids, then ids each shifted by
//	                                              stride, by 2*stride ... (count and stride 1
//	                                              when left out)
//	ids      = id | "{" interval { "," interval } "}"
//	interval = id [ ":" count [ ":" stride ] ]    count ids: id, id+stride, id+2*stride ...
//
// id and stride are integers, count an integer above 0. An integer is optional signs (any
// number of "+" and "-", each "-" negating) then decimal digits. Blanks (space, tab, CR, LF)
// may stand before any token, not between a sign and its digits. So "{0,1},{2,3}" is two
// entries of two ids, "{0:4:2}" one entry {0,2,4,6}, and "{0,1}:3:2" three entries {0,1},
// {2,3}, {4,5}.
func ParseAffinity(s string) ([][]int, error) {
	p := affinityParser{s: s}
	var list [][]int
	for {
		ids, err := p.ids()
		if err != nil {
			return nil, err
		}
		count, stride, err := p.repeat()
		if err != nil {
			return nil, err
		}
		if p.total += count * len(ids); p.total > maxAffinityIDs {
			return nil, fmt.Errorf("more than %d CPU ids", maxAffinityIDs)
		}
		for k := range count {
			entry := make([]int, len(ids))
			for i, id := range ids {
				entry[i] = id + k*stride
			}
			list = append(list, entry)
		}
		if !p.symbol(',') {
			break
		}
	}
	if p.skipBlanks(); p.i < len(p.s) {
		return nil, p.fail(`"," or the end`)
	}
	return list, nil
}

// affinityParser reads s from offset i; total counts the ids the list names so far.
type affinityParser struct {
	s     string
	i     int
	total int
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func (p *affinityParser) skipBlanks() {
	for p.i < len(p.s) && isBlank(p.s[p.i]) {
		p.i++
	}
}

func (p *affinityParser) fail(want string) error {
	if p.i >= len(p.s) {
		return fmt.Errorf("%s expected at the end", want)
	}
	return fmt.Errorf("%s expected at offset %d", want, p.i)
}

// symbol consumes c, after blanks, if it comes next.
func (p *affinityParser) symbol(c byte) bool {
	p.skipBlanks()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// integer consumes an integer if one comes next (after blanks); else it consumes nothing.
func (p *affinityParser) integer() (int, bool, error) {
	j := p.i
	for j < len(p.s) && isBlank(p.s[j]) {
		j++
	}
	sign := 1
	for ; j < len(p.s) && (p.s[j] == '+' || p.s[j] == '-'); j++ {
		if p.s[j] == '-' {
			sign = -sign
		}
	}
	start, v := j, 0
	for ; j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9'; j++ {
		if v = v*10 + int(p.s[j]-'0'); v > maxAffinityInt {
			p.i = start
			return 0, false, fmt.Errorf("integer at offset %d above %d", start, maxAffinityInt)
		}
	}
	if j == start {
		return 0, false, nil
	}
	p.i = j
	return sign * v, true, nil
}

// need reads the integer that must come next; count says it must be above 0.
func (p *affinityParser) need(what string, count bool) (int, error) {
	v, ok, err := p.integer()
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, p.fail(what)
	}
	if count && v <= 0 {
		return 0, fmt.Errorf("%s must be above 0, got %d", what, v)
	}
	return v, nil
}

// repeat reads an optional ":" count [":" stride] (1 and 1 when absent).
func (p *affinityParser) repeat() (count, stride int, err error) {
	count, stride = 1, 1
	if !p.symbol(':') {
		return count, stride, nil
	}
	if count, err = p.need("a count", true); err != nil {
		return 0, 0, err
	}
	if count > maxAffinityIDs {
		return 0, 0, fmt.Errorf("count %d above %d", count, maxAffinityIDs)
	}
	if p.symbol(':') {
		if stride, err = p.need("a stride", false); err != nil {
			return 0, 0, err
		}
	}
	return count, stride, nil
}

// ids reads one entry's ids: an id, or intervals in braces.
func (p *affinityParser) ids() ([]int, error) {
	id, ok, err := p.integer()
	if err != nil {
		return nil, err
	}
	if ok {
		return []int{id}, nil
	}
	if !p.symbol('{') {
		return nil, p.fail(`a CPU id or "{"`)
	}
	var ids []int
	for {
		first, err := p.need("a CPU id", false)
		if err != nil {
			return nil, err
		}
		count, stride, err := p.repeat()
		if err != nil {
			return nil, err
		}
		if len(ids)+count > maxAffinityIDs {
			return nil, fmt.Errorf("more than %d CPU ids", maxAffinityIDs)
		}
		for k := range count {
			ids = append(ids, first+k*stride)
		}
		if p.symbol(',') {
			continue
		}
		if !p.symbol('}') {
			return nil, p.fail(`"," or "}"`)
		}
		return ids, nil
	}
}

// errNoCPUs is AffinitySets' answer when the process may use no CPU at all.
var errNoCPUs = errors.New("no CPU allowed")

// AffinitySets turns a CPU list (ParseAffinity; nil: one CPU per rank) into the CPU sets ranks
// bind to, over allowed, the CPUs the process may use in increasing order: as in Argobots, id
// names allowed[id mod len(allowed)] (a negative id counts from the end), so a list written
// for a larger machine wraps around, and ids that name the same CPU count once. Set r mod
// len(sets) is rank r's.
func AffinitySets(list [][]int, allowed []int) ([][]int, error) {
	n := len(allowed)
	if n == 0 {
		return nil, errNoCPUs
	}
	if list == nil {
		sets := make([][]int, n)
		for i, cpu := range allowed {
			sets[i] = []int{cpu}
		}
		return sets, nil
	}
	sets := make([][]int, len(list))
	for i, ids := range list {
		var set []int
		for _, id := range ids {
			cpu := allowed[((id%n)+n)%n]
			dup := false
			for _, c := range set {
				dup = dup || c == cpu
			}
			if !dup {
				set = append(set, cpu)
			}
		}
		sets[i] = set
	}
	return sets, nil
}

// EngineConfig is what the C engine reads of the configuration at every outermost ABT_init,
// laid out as struct goabt_go_config (capi/goconfig.h) field for field: capi/runtime.go checks
// at compile time that the two agree and hands it over as one struct. Flags are 0 or 1.
type EngineConfig struct {
	ThreadStackSize uintptr
	SafetyNs        int64
	MaxXstreams     int32
	Affinity        int32
	GoPool          int32 // Pool names a Go pool
	GoSched         int32 // Sched names a Go policy
	StackCheck      int32
	Tool            int32
	DumpSignal      int32
	WatchdogNs      int64
}

// Engine is c as the C engine reads it.
func (c *Config) Engine() EngineConfig {
	flag := func(b bool) int32 {
		if b {
			return 1
		}
		return 0
	}
	return EngineConfig{
		ThreadStackSize: c.ThreadStackSize,
		SafetyNs:        c.SafetyWakeup.Nanoseconds(),
		MaxXstreams:     int32(c.MaxXstreams),
		Affinity:        flag(c.Affinity),
		GoPool:          flag(c.Pool != ""),
		GoSched:         flag(c.Sched != ""),
		StackCheck:      int32(c.StackCheck),
		Tool:            flag(c.Tool),
		DumpSignal:      int32(c.DumpSignal),
		WatchdogNs:      c.Watchdog.Nanoseconds(),
	}
}

// maxWatchdogSeconds bounds GOABT_WATCHDOG: a day.
const maxWatchdogSeconds = 86400

// dumpSignals are the signals GOABT_DUMP_SIGNAL may name: those a program may spare for a
// report. Not those that stop or kill it, nor the faults goabt and the Go runtime handle, nor
// SIGURG, the Go runtime's preemption signal.
var dumpSignals = map[string]int{
	"USR1": int(syscall.SIGUSR1), "USR2": int(syscall.SIGUSR2), "QUIT": int(syscall.SIGQUIT),
	"PWR": int(syscall.SIGPWR), "WINCH": int(syscall.SIGWINCH),
}

// sigRTMin and sigRTMax are glibc's SIGRTMIN and SIGRTMAX (the kernel's 32 and 33 are the C
// library's own).
const sigRTMin, sigRTMax = 34, 64

// parseSignal reads a signal as GOABT_DUMP_SIGNAL names it: SIGUSR2, USR2, SIGRTMIN+2, or a
// number; ok is false for anything else, or a signal not in dumpSignals or the real-time range.
func parseSignal(v string) (int, bool) {
	name := strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(v)), "SIG")
	if n, ok := dumpSignals[name]; ok {
		return n, true
	}
	if rest, ok := strings.CutPrefix(name, "RTMIN"); ok {
		off := 0
		if rest != "" {
			k, err := strconv.Atoi(strings.TrimPrefix(rest, "+"))
			if err != nil || !strings.HasPrefix(rest, "+") {
				return 0, false
			}
			off = k
		}
		if off >= 0 && sigRTMin+off <= sigRTMax {
			return sigRTMin + off, true
		}
		return 0, false
	}
	n, err := strconv.Atoi(name)
	if err != nil {
		return 0, false
	}
	for _, s := range dumpSignals {
		if s == n {
			return n, true
		}
	}
	return n, n >= sigRTMin && n <= sigRTMax
}
