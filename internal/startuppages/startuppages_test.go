package startuppages

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// scheduled replaces the timers for the test and returns when each would fire.
func scheduled(t *testing.T) *[]time.Duration {
	var at []time.Duration
	prev := afterFunc
	afterFunc = func(d time.Duration, _ func()) { at = append(at, d) }
	t.Cleanup(func() {
		afterFunc = prev
		released.Store(false)
	})
	return &at
}

func TestAtStartReadsTheEnvironment(t *testing.T) {
	assert.Equal(t, []time.Duration{2 * time.Second, 30 * time.Second}, []time.Duration{Again, Settled})
	for _, tc := range []struct {
		value, stderr string
		later         []time.Duration
	}{
		{"", "", []time.Duration{Again, Settled}},
		{"release", "", []time.Duration{Again, Settled}},
		{"keep", "", nil},
		{"kept", `otelcol-modelplane: environment variable OTELCOL_MODELPLANE_STARTUP_PAGES="kept": want "keep" (keep the executable's start-up pages mapped) or "release" (the default); releasing them` + "\n", []time.Duration{Again, Settled}},
	} {
		t.Run(tc.value, func(t *testing.T) {
			at := scheduled(t)
			var stderr strings.Builder
			AtStart(func(k string) string {
				assert.Equal(t, Env, k)
				return tc.value
			}, &stderr)
			assert.Equal(t, tc.stderr, stderr.String())
			assert.Equal(t, tc.later, *at)
		})
	}
}

// A reload maps the code start-up read again: it is released again, unless the start-up
// pages are kept.
func TestAfterReloadReleasesAgain(t *testing.T) {
	at := scheduled(t)
	AfterReload()
	assert.Empty(t, *at, "no release at start, none after a reload")

	AtStart(func(string) string { return "keep" }, io.Discard)
	AfterReload()
	assert.Empty(t, *at, "kept")

	AtStart(func(string) string { return "" }, io.Discard)
	AfterReload()
	assert.Equal(t, []time.Duration{Again, Settled, Again, Settled}, *at, "at start, then after the reload")
}
