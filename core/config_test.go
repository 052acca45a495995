package core

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseAffinity(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [][]int
	}{
		{"0", [][]int{{0}}},
		{"1", [][]int{{1}}},
		{"1,2,3", [][]int{{1}, {2}, {3}}},
		{"{0,1},{2,3}", [][]int{{0, 1}, {2, 3}}},
		{"{0:4:2}", [][]int{{0, 2, 4, 6}}},
		{"{0:4}", [][]int{{0, 1, 2, 3}}},
		{"{0,1}:3:2", [][]int{{0, 1}, {2, 3}, {4, 5}}},
		{"{0,1}:3", [][]int{{0, 1}, {1, 2}, {2, 3}}},
		{"0:3:4", [][]int{{0}, {4}, {8}}},
		{"0:3", [][]int{{0}, {1}, {2}}},
		{"{1:2:3}:1", [][]int{{1, 4}}},
		{"{1:2:3}:3:-2", [][]int{{1, 4}, {-1, 2}, {-3, 0}}},
		{"{3:4:-1}", [][]int{{3, 2, 1, 0}}},
		{"3:4:-1,-1", [][]int{{3}, {2}, {1}, {0}, {-1}}},
		{"{-2:3:-2}:2:-4", [][]int{{-2, -4, -6}, {-6, -8, -10}}},
		{"{1:1:4},{2:1:-4},{3:1:0},{4:1}", [][]int{{1}, {2}, {3}, {4}}},
		{"1:2,{1:2}", [][]int{{1}, {2}, {1, 2}}},
		{"1:2:1,2", [][]int{{1}, {2}, {2}}},
		{"{0,0,1}", [][]int{{0, 0, 1}}}, // duplicates stay: AffinitySets drops them
		// Signs: any number, each "-" negates; blanks before a token but not after a sign.
		{"++1", [][]int{{1}}},
		{"+-1", [][]int{{-1}}},
		{"+-+-1", [][]int{{1}}},
		{"-0", [][]int{{0}}},
		{"-9:1:0", [][]int{{-9}}},
		{" 1 :  +2 , { -1 : \r 2\n:2}\n", [][]int{{1}, {2}, {-1, 1}}},
		{"\t{ 0 , 1 }\t", [][]int{{0, 1}}},
	} {
		got, err := ParseAffinity(tc.in)
		require.NoError(t, err, "%q", tc.in)
		require.Equal(t, tc.want, got, "%q", tc.in)
	}
}

func TestParseAffinityRefuses(t *testing.T) {
	for _, in := range []string{
		"", " ", "{}", "+ 1", "+ +1", "+ -1", "1:", "1:2:", "1:2,", "1:-2", "1:0", "1:-2:4",
		"1:0:4", "1:1:1:", "1:1:1:1", "1:1:1:1,1", "{1:2:3},", "{1:2:3}:", "{1:2:3}:2:",
		"{:2:3}", "{{2:3}}", "{2:3}}", "2:3}", "{1:2:3", "{1,2,}", "{1:-2}", "{1:0}",
		"{1:-2:4}", "{1:0:4}", "1 2", "1-2", "yes please", "0x1", "{0;1}", ",", "1,,2",
		"99999999999",         // past the bound on integers
		"0:100000",            // a count past the bound
		"{0:60000}:2",         // too many ids in all
		"{0:40000},{0:40000}", // too many ids in all
		strings.Repeat("0,", 70000) + "0",
	} {
		_, err := ParseAffinity(in)
		require.Error(t, err, "%q", in)
	}
}

func TestAffinitySets(t *testing.T) {
	for _, tc := range []struct {
		name    string
		list    [][]int
		allowed []int
		want    [][]int
	}{
		{"default: one CPU per rank", nil, []int{0, 1}, [][]int{{0}, {1}}},
		{"default over a restricted process", nil, []int{2, 5, 7}, [][]int{{2}, {5}, {7}}},
		{"ids are CPUs when all are allowed", [][]int{{0, 1}, {1}}, []int{0, 1}, [][]int{{0, 1}, {1}}},
		{"ids index the allowed CPUs", [][]int{{0}, {1}, {2}}, []int{4, 6, 9}, [][]int{{4}, {6}, {9}}},
		{"ids wrap around", [][]int{{2}, {3}, {5}}, []int{0, 1}, [][]int{{0}, {1}, {1}}},
		{"negative ids count from the end", [][]int{{-1}, {-2}, {-3}}, []int{0, 1}, [][]int{{1}, {0}, {1}}},
		{"duplicates count once", [][]int{{0, 2, 0, 1, 3}}, []int{0, 1}, [][]int{{0, 1}}},
		{"order of first appearance", [][]int{{1, 0}}, []int{3, 8}, [][]int{{8, 3}}},
	} {
		got, err := AffinitySets(tc.list, tc.allowed)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, got, tc.name)
	}
	_, err := AffinitySets(nil, nil)
	require.Error(t, err)
	_, err = AffinitySets([][]int{{0}}, []int{})
	require.Error(t, err)
}

func TestConfigAffinity(t *testing.T) {
	for _, tc := range []struct {
		value   string
		on      bool
		list    [][]int
		invalid bool
	}{
		{"", false, nil, false},
		{"  ", false, nil, false},
		{"n", false, nil, false},
		{"No", false, nil, false},
		{"FALSE", false, nil, false},
		{"off", false, nil, false},
		{"y", true, nil, false},
		{"YES", true, nil, false},
		{"true", true, nil, false},
		{"On", true, nil, false},
		{"0", true, [][]int{{0}}, false}, // as in Argobots: a list, not a no
		{"1", true, [][]int{{1}}, false},
		{"{0,1},{1}", true, [][]int{{0, 1}, {1}}, false},
		{"{0:2}:2:1", true, [][]int{{0, 1}, {1, 2}}, false},
		{"maybe", false, nil, true},
		{"{0,1", false, nil, true},
		{"0:0", false, nil, true},
	} {
		env := map[string]string{"ABT_SET_AFFINITY": tc.value}
		c := ConfigFromEnv(func(k string) string { return env[k] }, 2)
		require.Equal(t, tc.on, c.Affinity, "%q", tc.value)
		require.Equal(t, tc.list, c.AffinityList, "%q", tc.value)
		if tc.invalid {
			require.Error(t, c.AffinityInvalid, "%q", tc.value)
			require.Contains(t, c.AffinityInvalid.Error(), "ABT_SET_AFFINITY=")
			require.Contains(t, c.AffinityInvalid.Error(), tc.value)
		} else {
			require.NoError(t, c.AffinityInvalid, "%q", tc.value)
		}
	}
	// ABT_ENV_SET_AFFINITY is read when ABT_SET_AFFINITY is not set, and named in the message.
	env := map[string]string{"ABT_ENV_SET_AFFINITY": "{9"}
	c := ConfigFromEnv(func(k string) string { return env[k] }, 2)
	require.False(t, c.Affinity)
	require.ErrorContains(t, c.AffinityInvalid, "ABT_ENV_SET_AFFINITY=")
	env["ABT_ENV_SET_AFFINITY"] = "2,3"
	c = ConfigFromEnv(func(k string) string { return env[k] }, 2)
	require.Equal(t, [][]int{{2}, {3}}, c.AffinityList)
	env["ABT_SET_AFFINITY"] = "no" // ABT_ wins over ABT_ENV_
	require.False(t, ConfigFromEnv(func(k string) string { return env[k] }, 2).Affinity)
}

// TestConfigWarnings checks that every value goabt cannot use is named in one warning, with
// the value used instead, and that usable values warn about nothing.
func TestConfigWarnings(t *testing.T) {
	cases := []struct {
		env  map[string]string
		want []string // warnings, in order
	}{
		{map[string]string{}, nil},
		{map[string]string{"ABT_THREAD_STACKSIZE": "65536", "ABT_SET_AFFINITY": "yes",
			"ABT_MAX_NUM_XSTREAMS": "4", "GOABT_SAFETY_WAKEUP_MS": "off", "ABT_PRINT_CONFIG": "1"}, nil},
		{map[string]string{"ABT_SET_AFFINITY": "{0,1},{2:2}"}, nil},
		{map[string]string{"ABT_SET_AFFINITY": "{0,1},{2:4:1}"}, nil},
		{map[string]string{"ABT_SET_AFFINITY": "no"}, nil},
		{map[string]string{"ABT_THREAD_STACKSIZE": "lots"},
			[]string{"ABT_THREAD_STACKSIZE=lots is not a number of bytes; using 24576"}},
		{map[string]string{"ABT_ENV_THREAD_STACKSIZE": "-1"},
			[]string{"ABT_ENV_THREAD_STACKSIZE=-1 is not a number of bytes; using 24576"}},
		{map[string]string{"ABT_THREAD_STACKSIZE": "100"},
			[]string{"ABT_THREAD_STACKSIZE=100 is outside 8192..1073741824 bytes; using 8192"}},
		{map[string]string{"ABT_SET_AFFINITY": "garbage"},
			[]string{"ABT_SET_AFFINITY=\"garbage\": a CPU id or \"{\" expected at offset 0; streams are not bound to CPUs"}},
		{map[string]string{"ABT_MAX_NUM_XSTREAMS": "0"},
			[]string{"ABT_MAX_NUM_XSTREAMS=0 is not a positive number; using 2"}},
		{map[string]string{"ABT_PRINT_CONFIG": "maybe"},
			[]string{"ABT_PRINT_CONFIG=maybe is neither yes nor no; using no"}},
		{map[string]string{"GOABT_TOOL": "maybe"},
			[]string{"GOABT_TOOL=maybe is neither yes nor no; using no"}},
		{map[string]string{"GOABT_SAFETY_WAKEUP_MS": "soon"},
			[]string{"GOABT_SAFETY_WAKEUP_MS=soon is neither a number of milliseconds nor off; using 50"}},
		{map[string]string{"ABT_STACK_OVERFLOW_CHECK": "none"}, nil},
		{map[string]string{"ABT_STACK_OVERFLOW_CHECK": " MProtect_Strict "}, nil},
		{map[string]string{"ABT_STACK_OVERFLOW_CHECK": "mprotect-strict"},
			[]string{"ABT_STACK_OVERFLOW_CHECK=mprotect-strict is none of none, canary, mprotect and mprotect_strict; using none"}},
		{map[string]string{"ABT_ENV_STACK_OVERFLOW_CHECK": "yes"},
			[]string{"ABT_ENV_STACK_OVERFLOW_CHECK=yes is none of none, canary, mprotect and mprotect_strict; using none"}},
		{map[string]string{"ABT_THREAD_STACKSIZE": "lots", "ABT_SET_AFFINITY": "garbage"},
			[]string{"ABT_SET_AFFINITY=\"garbage\": a CPU id or \"{\" expected at offset 0; streams are not bound to CPUs",
				"ABT_THREAD_STACKSIZE=lots is not a number of bytes; using 24576"}},
	}
	for _, tc := range cases {
		c := ConfigFromEnv(func(k string) string { return tc.env[k] }, 2)
		require.Equal(t, tc.want, c.Warnings, "%v", tc.env)
	}
}

func TestConfigPrintConfig(t *testing.T) {
	for v, want := range map[string]bool{"": false, "1": true, "yes": true, "TRUE": true, "y": true,
		"on": true, "0": false, "no": false, "false": false, "maybe": false} {
		env := map[string]string{"ABT_PRINT_CONFIG": v}
		require.Equal(t, want, ConfigFromEnv(func(k string) string { return env[k] }, 1).PrintConfig, v)
	}
	env := map[string]string{"ABT_ENV_PRINT_CONFIG": "yes"}
	require.True(t, ConfigFromEnv(func(k string) string { return env[k] }, 1).PrintConfig, "ABT_ENV_ prefix")
}

// TestConfigSwitches checks the one rule every yes/no variable follows: Argobots' words turn it
// on or off, whatever their case and the blanks around them, and any other value keeps the
// variable's default, with one warning naming the variable, the value and what is used.
func TestConfigSwitches(t *testing.T) {
	switches := []struct {
		name  string
		get   func(Config) bool
		def   bool
		words string // what the warning says the variable takes
	}{
		{"ABT_PRINT_CONFIG", func(c Config) bool { return c.PrintConfig }, false, "yes nor no"},
		{"ABT_ENV_PRINT_CONFIG", func(c Config) bool { return c.PrintConfig }, false, "yes nor no"},
		{"GOABT_TOOL", func(c Config) bool { return c.Tool }, false, "yes nor no"},
		{"GOABT_CHECK_LEAKS", func(c Config) bool { return c.CheckLeaks }, false, "yes, no nor fatal"},
	}
	yes := []string{"1", "y", "Y", "yes", "YES", "true", "True", "on", " On "}
	no := []string{"0", "n", "N", "no", "No", "false", "FALSE", "off", " off\n"}
	unknown := []string{"sure", "2", "-1", "maybe", "enable", "yes please", "t", "f"}
	for _, s := range switches {
		env := map[string]string{}
		config := func() Config { return ConfigFromEnv(func(k string) string { return env[k] }, 2) }
		c := config()
		require.Equal(t, s.def, s.get(c), "%s unset", s.name)
		require.Empty(t, c.Warnings, "%s unset", s.name)
		for _, v := range yes {
			env[s.name] = v
			c = config()
			require.True(t, s.get(c), "%s=%q", s.name, v)
			require.Empty(t, c.Warnings, "%s=%q", s.name, v)
		}
		for _, v := range no {
			env[s.name] = v
			c = config()
			require.False(t, s.get(c), "%s=%q", s.name, v)
			require.Empty(t, c.Warnings, "%s=%q", s.name, v)
		}
		for _, v := range unknown {
			env[s.name] = v
			c = config()
			require.Equal(t, s.def, s.get(c), "%s=%q keeps the default", s.name, v)
			used := map[bool]string{false: "no", true: "yes"}[s.def]
			require.Equal(t, []string{fmt.Sprintf("%s=%s is neither %s; using %s", s.name, v, s.words, used)},
				c.Warnings, "%s=%q", s.name, v)
		}
	}
}

// TestConfigTool checks GOABT_TOOL: the tool interface is off unless it says yes.
func TestConfigTool(t *testing.T) {
	for v, want := range map[string]bool{"": false, "1": true, "yes": true, "on": true, "0": false,
		"no": false, "maybe": false} {
		env := map[string]string{"GOABT_TOOL": v}
		require.Equal(t, want, ConfigFromEnv(func(k string) string { return env[k] }, 1).Tool, v)
	}
}

// TestNewWarningsOnce checks that a warning is handed out once per process, however many
// times the runtime is initialized with the same bad value, and that a new one still is.
func TestNewWarningsOnce(t *testing.T) {
	var r Runtime
	env := map[string]string{"ABT_THREAD_STACKSIZE": "lots"}
	getenv := func(k string) string { return env[k] }
	r.Init(getenv)
	require.Equal(t, []string{"ABT_THREAD_STACKSIZE=lots is not a number of bytes; using 24576"}, r.NewWarnings())
	require.Empty(t, r.NewWarnings(), "said already")
	r.Finalize()
	r.Init(getenv)
	require.Empty(t, r.NewWarnings(), "said already, in an earlier init")
	env["ABT_SET_AFFINITY"] = "garbage"
	r.Init(getenv)
	require.Equal(t, []string{"ABT_SET_AFFINITY=\"garbage\": a CPU id or \"{\" expected at offset 0; streams are not bound to CPUs"}, r.NewWarnings())
	r.Finalize()
	// A warning said before ABT_init (GOABT_CHECK_LEAKS, read when OPAL loads the Go core) is
	// not said again by it.
	env["GOABT_CHECK_LEAKS"] = "sure"
	_, w := LeakCheckFromEnv(getenv)
	require.True(t, r.FirstTime(w))
	require.False(t, r.FirstTime(w))
	r.Init(getenv)
	require.Empty(t, r.NewWarnings())
	r.Finalize()
}

func TestConfigStackCheck(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	require.Equal(t, StackCheckMprotect, ConfigFromEnv(getenv, 2).StackCheck, "default")
	for v, want := range map[string]StackCheck{
		"none": StackCheckNone, "canary": StackCheckCanary, "mprotect": StackCheckMprotect,
		"mprotect_strict": StackCheckStrict, "MPROTECT_STRICT": StackCheckStrict,
		" Canary ": StackCheckCanary, "mprotect-strict": StackCheckNone, "yes": StackCheckNone,
	} {
		env["ABT_STACK_OVERFLOW_CHECK"] = v
		require.Equal(t, want, ConfigFromEnv(getenv, 2).StackCheck, "%q", v)
	}
	delete(env, "ABT_STACK_OVERFLOW_CHECK")
	env["ABT_ENV_STACK_OVERFLOW_CHECK"] = "canary"
	require.Equal(t, StackCheckCanary, ConfigFromEnv(getenv, 2).StackCheck, "ABT_ENV_ prefix")
	env["ABT_STACK_OVERFLOW_CHECK"] = "none"
	require.Equal(t, StackCheckNone, ConfigFromEnv(getenv, 2).StackCheck, "ABT_ first")
	// The values are what ABT_INFO_QUERY_KIND_ENABLED_STACK_OVERFLOW_CHECK reports.
	require.Equal(t, []int{0, 1, 2, 3}, []int{int(StackCheckNone), int(StackCheckCanary),
		int(StackCheckMprotect), int(StackCheckStrict)})
	require.Equal(t, "mprotect_strict", StackCheckStrict.String())
}

func TestConfigCheckLeaks(t *testing.T) {
	type want struct {
		mode    LeakCheck
		warning bool
	}
	for v, w := range map[string]want{
		"": {LeakCheckOff, false}, "0": {LeakCheckOff, false}, "no": {LeakCheckOff, false},
		"OFF": {LeakCheckOff, false}, "1": {LeakCheckReport, false}, "yes": {LeakCheckReport, false},
		"on": {LeakCheckReport, false}, "fatal": {LeakCheckFatal, false}, " FATAL ": {LeakCheckFatal, false},
		"loud": {LeakCheckOff, true},
	} {
		env := map[string]string{"GOABT_CHECK_LEAKS": v}
		getenv := func(k string) string { return env[k] }
		mode, warning := LeakCheckFromEnv(getenv)
		require.Equal(t, w.mode, mode, "%q", v)
		require.Equal(t, w.warning, warning != "", "%q: %q", v, warning)
		c := ConfigFromEnv(getenv, 1)
		require.Equal(t, w.mode != LeakCheckOff, c.CheckLeaks, "%q", v)
		require.Equal(t, w.mode == LeakCheckFatal, c.CheckLeaksFatal, "%q", v)
		if w.warning {
			require.Equal(t, []string{"GOABT_CHECK_LEAKS=loud is neither yes, no nor fatal; using no"}, c.Warnings)
		} else {
			require.Empty(t, c.Warnings, "%q", v)
		}
	}
	// The values are what the C engine and the OPAL header read.
	require.Equal(t, []int{0, 1, 2}, []int{int(LeakCheckOff), int(LeakCheckReport), int(LeakCheckFatal)})
}

func TestConfigOpalRaceAbort(t *testing.T) {
	for v, want := range map[string]bool{"": false, "no": false, "0": false, "yes": true, " On ": true, "1": true} {
		abort, warning := OpalRaceAbortFromEnv(func(string) string { return v })
		require.Equal(t, want, abort, "%q", v)
		require.Empty(t, warning, "%q", v)
	}
	abort, warning := OpalRaceAbortFromEnv(func(string) string { return "loud" })
	require.False(t, abort)
	require.Equal(t, "GOABT_OPAL_RACE_ABORT=loud is neither yes nor no; using no", warning)
}

func TestConfigTrace(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	c := ConfigFromEnv(getenv, 2)
	require.Equal(t, "", c.Trace, "unset: no trace")
	env["GOABT_TRACE"] = " /tmp/run trace.json\n"
	c = ConfigFromEnv(getenv, 2)
	require.Equal(t, "/tmp/run trace.json", c.Trace, "the path, blanks around it dropped")
	require.Empty(t, c.Warnings)
	env["GOABT_TRACE"] = "   "
	require.Equal(t, "", ConfigFromEnv(getenv, 2).Trace, "blank: no trace")
}

// TestConfigEngine checks the configuration as the C engine reads it: each field from its
// variable, flags as 0 and 1.
func TestConfigEngine(t *testing.T) {
	env := map[string]string{"ABT_THREAD_STACKSIZE": "65536", "ABT_MAX_NUM_XSTREAMS": "7",
		"ABT_SET_AFFINITY": "yes", "GOABT_SAFETY_WAKEUP_MS": "20", "GOABT_POOL": "ws",
		"ABT_STACK_OVERFLOW_CHECK": "canary", "GOABT_TOOL": "on"}
	c := ConfigFromEnv(func(k string) string { return env[k] }, 2)
	require.Equal(t, EngineConfig{ThreadStackSize: 65536, SafetyNs: 20_000_000, MaxXstreams: 7,
		Affinity: 1, GoPool: 1, GoSched: 0, StackCheck: int32(StackCheckCanary), Tool: 1}, c.Engine())
	c = ConfigFromEnv(func(k string) string {
		return map[string]string{"GOABT_SCHED": "deadline",
			"GOABT_SAFETY_WAKEUP_MS": "off", "ABT_STACK_OVERFLOW_CHECK": "none"}[k]
	}, 3)
	require.Equal(t, EngineConfig{ThreadStackSize: DefaultThreadStackSize, MaxXstreams: 3,
		GoSched: 1, StackCheck: int32(StackCheckNone)}, c.Engine())
}

// TestConfigWatchdog checks GOABT_WATCHDOG: off unless a number of seconds, a bad value warned.
func TestConfigWatchdog(t *testing.T) {
	for v, want := range map[string]time.Duration{"": 0, "5": 5 * time.Second, " 0.5 ": 500 * time.Millisecond,
		"off": 0, "0": 0, "-1": 0, "soon": 0, "86401": 0} {
		env := map[string]string{"GOABT_WATCHDOG": v}
		c := ConfigFromEnv(func(k string) string { return env[k] }, 1)
		require.Equal(t, want, c.Watchdog, v)
		bad := v == "-1" || v == "soon" || v == "86401"
		if bad {
			require.Len(t, c.Warnings, 1, v)
			require.Contains(t, c.Warnings[0], "GOABT_WATCHDOG="+v)
		} else {
			require.Empty(t, c.Warnings, v)
		}
	}
}

// TestConfigDumpSignal checks GOABT_DUMP_SIGNAL: the names and numbers of the signals a
// program may spare, nothing else.
func TestConfigDumpSignal(t *testing.T) {
	for v, want := range map[string]int{"": 0, "SIGUSR2": 12, "usr1": 10, "QUIT": 3, "SIGRTMIN": 34,
		"SIGRTMIN+3": 37, "40": 40, "12": 12, "off": 0,
		"SIGSEGV": 0, "SIGKILL": 0, "9": 0, "SIGURG": 0, "SIGRTMIN+31": 0, "SIGRTMIN3": 0, "nope": 0} {
		env := map[string]string{"GOABT_DUMP_SIGNAL": v}
		c := ConfigFromEnv(func(k string) string { return env[k] }, 1)
		require.Equal(t, want, c.DumpSignal, v)
		if want == 0 && v != "" && v != "off" {
			require.Len(t, c.Warnings, 1, v)
			require.Contains(t, c.Warnings[0], "GOABT_DUMP_SIGNAL="+v)
		} else {
			require.Empty(t, c.Warnings, v)
		}
	}
}
