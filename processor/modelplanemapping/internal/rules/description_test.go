// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package rules

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/modelplaneai/otelcol-modelplane/internal/units"
)

// A converted metric's description must not name the unit it no longer has: the forms the
// engines and dcgm-exporter use are rewritten, any other mention clears it, and a unit's
// letters inside another word are not a mention.
func TestTargetDescription(t *testing.T) {
	for _, c := range []struct {
		desc string
		unit units.Unit
		want string
	}{
		// dcgm-exporter's own descriptions.
		{"Framebuffer memory used (in MiB).", units.Mebibytes, "Framebuffer memory used (in bytes)."},
		{"Total energy consumption since boot (in mJ).", units.Millijoules, "Total energy consumption since boot (in joules)."},
		// SGLang's KV transfer latency.
		{"The transfer latency of the KV cache in ms.", units.Milliseconds, "The transfer latency of the KV cache in seconds."},
		{"Request latency (ms)", units.Milliseconds, "Request latency (seconds)"},
		{"Power draw (in milliwatts)", units.Milliwatts, "Power draw (in watts)"},
		{"GPU utilization (in %).", units.Percent, "GPU utilization (in ratio)."},
		// Named otherwise: cleared, since it would be wrong.
		{"Queue time in ms per request", units.Milliseconds, ""},
		{"Queue time in us", units.Microseconds, ""},
		{"Power draw in milliwatts", units.Milliwatts, ""},
		{"Utilization in %", units.Percent, ""},
		{"ms spent waiting", units.Milliseconds, ""},
		// The unit's letters inside other words are not the unit.
		{"Number of busy slots", units.Microseconds, "Number of busy slots"},
		{"Memory used by the engine", units.Microseconds, "Memory used by the engine"},
		{"Items in the queue", units.Milliseconds, "Items in the queue"},
		{"KV_ms_total counter", units.Milliseconds, "KV_ms_total counter"},
		{"", units.Milliseconds, ""},
	} {
		assert.Equal(t, c.want, targetDescription(c.desc, c.unit), "%q from %s", c.desc, c.unit)
	}
}
