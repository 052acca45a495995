package core

import (
	"testing"

	"github.com/stretchr/testify/require"
)

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
		{map[string]string{"ABT_SET_AFFINITY": "0-3,5"}, nil},
		{map[string]string{"ABT_SET_AFFINITY": "{0,1},{2:4:1}"}, nil},
		{map[string]string{"ABT_SET_AFFINITY": "no"}, nil},
		{map[string]string{"ABT_THREAD_STACKSIZE": "lots"},
			[]string{"ABT_THREAD_STACKSIZE=lots is not a number of bytes; using 16384"}},
		{map[string]string{"ABT_ENV_THREAD_STACKSIZE": "-1"},
			[]string{"ABT_ENV_THREAD_STACKSIZE=-1 is not a number of bytes; using 16384"}},
		{map[string]string{"ABT_THREAD_STACKSIZE": "100"},
			[]string{"ABT_THREAD_STACKSIZE=100 is outside 8192..1073741824 bytes; using 8192"}},
		{map[string]string{"ABT_SET_AFFINITY": "garbage"},
			[]string{"ABT_SET_AFFINITY=garbage is neither yes, no nor a CPU list; using yes"}},
		{map[string]string{"ABT_MAX_NUM_XSTREAMS": "0"},
			[]string{"ABT_MAX_NUM_XSTREAMS=0 is not a positive number; using 2"}},
		{map[string]string{"ABT_PRINT_CONFIG": "maybe"},
			[]string{"ABT_PRINT_CONFIG=maybe is neither yes nor no; using no"}},
		{map[string]string{"GOABT_SAFETY_WAKEUP_MS": "soon"},
			[]string{"GOABT_SAFETY_WAKEUP_MS=soon is neither a number of milliseconds nor off; using 50"}},
		{map[string]string{"ABT_THREAD_STACKSIZE": "lots", "ABT_SET_AFFINITY": "garbage"},
			[]string{"ABT_SET_AFFINITY=garbage is neither yes, no nor a CPU list; using yes",
				"ABT_THREAD_STACKSIZE=lots is not a number of bytes; using 16384"}},
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

// TestNewWarningsOnce checks that a warning is handed out once per process, however many
// times the runtime is initialized with the same bad value, and that a new one still is.
func TestNewWarningsOnce(t *testing.T) {
	var r Runtime
	env := map[string]string{"ABT_THREAD_STACKSIZE": "lots"}
	getenv := func(k string) string { return env[k] }
	r.Init(getenv)
	require.Equal(t, []string{"ABT_THREAD_STACKSIZE=lots is not a number of bytes; using 16384"}, r.NewWarnings())
	require.Empty(t, r.NewWarnings(), "said already")
	r.Finalize()
	r.Init(getenv)
	require.Empty(t, r.NewWarnings(), "said already, in an earlier init")
	env["ABT_SET_AFFINITY"] = "garbage"
	r.Init(getenv)
	require.Equal(t, []string{"ABT_SET_AFFINITY=garbage is neither yes, no nor a CPU list; using yes"}, r.NewWarnings())
	r.Finalize()
}
