package core

import (
	"testing"

	"github.com/stretchr/testify/require"
)

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
