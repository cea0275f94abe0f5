package startuppages

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestAtStartReadsTheEnvironment(t *testing.T) {
	again, settled := Again, Settled
	Again, Settled = time.Hour, time.Hour
	t.Cleanup(func() { Again, Settled = again, settled })
	for _, tc := range []struct {
		value, stderr string
	}{
		{"", ""},
		{"release", ""},
		{"keep", ""},
		{"kept", `otelcol-modelplane: environment variable OTELCOL_MODELPLANE_STARTUP_PAGES="kept": want "keep" (keep the executable's start-up pages mapped) or "release" (the default); releasing them` + "\n"},
	} {
		var stderr strings.Builder
		AtStart(func(k string) string {
			assert.Equal(t, Env, k)
			return tc.value
		}, &stderr)
		assert.Equal(t, tc.stderr, stderr.String(), tc.value)
	}
	assert.Equal(t, []time.Duration{2 * time.Second, 30 * time.Second}, []time.Duration{again, settled})
}
