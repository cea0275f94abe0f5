package startuppages

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// A release or settling that fails is said once on stderr, with the error, and the collector
// goes on: the same failure again (the next timer, a reload) says nothing more.
func TestFailureIsSaidOnce(t *testing.T) {
	var fire []func()
	prevAfter, prevRelease, prevSettle := afterFunc, release, settle
	afterFunc = func(_ time.Duration, f func()) { fire = append(fire, f) }
	t.Cleanup(func() {
		afterFunc, release, settle = prevAfter, prevRelease, prevSettle
		released.Store(false)
		failures.set(nil)
	})
	releases, settles := 0, 0
	release = func() (int64, error) {
		releases++
		if releases == 1 {
			return 0, nil
		}
		return 0, errors.New("startup pages: open /proc/self/smaps: permission denied")
	}
	settle = func() error {
		settles++
		return errors.New("startup pages: fadvise: operation not permitted")
	}

	var stderr strings.Builder
	AtStart(func(string) string { return "" }, &stderr)
	assert.Empty(t, stderr.String(), "the first release worked")
	require.Len(t, fire, 2)
	fire[0]()
	assert.Equal(t, "otelcol-modelplane: startup pages: open /proc/self/smaps: permission denied; the collector runs on, and OTELCOL_MODELPLANE_STARTUP_PAGES=keep turns the release off\n", stderr.String())
	fire[1]()
	AfterReload()
	for _, f := range fire[2:] {
		f()
	}
	assert.Equal(t, 3, releases)
	assert.Equal(t, 2, settles)
	assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "said once: %s", stderr.String())
}
