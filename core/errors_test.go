package core

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestErrorNamesMatchManifest checks every error code's name against the value the Argobots 1.2
// manifest gives that name, and that no code is missing.
func TestErrorNamesMatchManifest(t *testing.T) {
	raw, err := os.ReadFile("../abi/argobots-1.2.json")
	require.NoError(t, err)
	var manifest struct {
		Macros []struct {
			Name  string
			Kind  string
			Value json.RawMessage
		}
	}
	require.NoError(t, json.Unmarshal(raw, &manifest))
	codes := 0
	for _, m := range manifest.Macros {
		if m.Kind != "integer_constant" || (m.Name != "ABT_SUCCESS" && !strings.HasPrefix(m.Name, "ABT_ERR_")) {
			continue
		}
		var v int64
		require.NoError(t, json.Unmarshal(m.Value, &v))
		name, ok := ErrorName(int(v))
		require.True(t, ok, "code %d (%s) has no name", v, m.Name)
		require.Equal(t, m.Name, name, "code %d", v)
		codes++
	}
	require.Equal(t, lastErrorCode+1, codes, "the manifest's error codes are exactly 0..%d", lastErrorCode)
	_, ok := ErrorName(-1)
	require.False(t, ok)
	_, ok = ErrorName(lastErrorCode + 1)
	require.False(t, ok)
}
