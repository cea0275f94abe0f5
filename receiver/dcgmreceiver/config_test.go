// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package dcgmreceiver

import (
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
)

// defer_to_exporter must be an address the probe can dial; the error names the field and
// the value.
func TestDeferToExporterMustBeHostPort(t *testing.T) {
	for value, want := range map[string]string{
		"127.0.0.1":                 `defer_to_exporter: "127.0.0.1" is not host:port, such as 127.0.0.1:9400`,
		"http://127.0.0.1:9400":     `defer_to_exporter: "http://127.0.0.1:9400" is not host:port, such as 127.0.0.1:9400`,
		"127.0.0.1:metrics":         `defer_to_exporter: "127.0.0.1:metrics": port "metrics" is not a number from 1 to 65535`,
		"127.0.0.1:0":               `defer_to_exporter: "127.0.0.1:0": port "0" is not a number from 1 to 65535`,
		"dcgm-exporter.local:70000": `defer_to_exporter: "dcgm-exporter.local:70000": port "70000" is not a number from 1 to 65535`,
	} {
		cfg := createDefaultConfig()
		cfg.DeferToExporter = value
		assert.EqualError(t, cfg.Validate(), want, value)
	}
	for _, ok := range []string{"127.0.0.1:9400", "localhost:9400", "[::1]:9400", ""} {
		cfg := createDefaultConfig()
		cfg.DeferToExporter = ok
		assert.NoError(t, cfg.Validate(), ok)
	}
}

// Whatever defer_to_exporter holds, Validate does not panic, and what it accepts is an
// address the probe can use: host:port with a port from 1 to 65535.
func FuzzDeferToExporter(f *testing.F) {
	for _, s := range []string{"127.0.0.1:9400", "[::1]:9400", "localhost", ":9400", "a:b:c", "[::1]", "host:0", "host:65536", "h:+1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		cfg := createDefaultConfig()
		cfg.DeferToExporter = addr
		if cfg.Validate() != nil || addr == "" {
			return
		}
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatalf("accepted %q: %v", addr, err)
		}
		if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
			t.Fatalf("accepted %q with port %q", addr, port)
		}
	})
}

// An interval written without a unit (`collection_interval: 15`) is nanoseconds to the
// collector, which would read every GPU in a loop: refused, naming the field and the value.
func TestIntervalsNeedAUnit(t *testing.T) {
	cm := confmap.NewFromStringMap(map[string]any{"collection_interval": 15, "retry_interval": 60})
	cfg := createDefaultConfig()
	require.NoError(t, cm.Unmarshal(cfg))
	assert.EqualError(t, cfg.Validate(), "collection_interval: 15ns is shorter than 1ms: a number without a unit is nanoseconds; write one, such as 15s\n"+
		"retry_interval: 60ns is shorter than 1ms: a number without a unit is nanoseconds; write one, such as 1m")

	cfg = createDefaultConfig()
	cfg.CollectionInterval, cfg.RetryInterval = 0, -time.Second
	assert.EqualError(t, cfg.Validate(), "collection_interval: must be positive, got 0s\nretry_interval: must be positive, got -1s")

	cfg = createDefaultConfig()
	cfg.CollectionInterval = time.Millisecond
	assert.NoError(t, cfg.Validate())
}

// An unknown field under metrics names the field it most likely meant: the same name in
// upper case, as dcgm-exporter writes it, or the nearest by spelling; otherwise where the
// fields are listed. Every unknown field is named, in name order.
func TestUnknownFieldNamesTheMeantOne(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.Metrics = map[string]MetricConfig{
		"dcgm_fi_dev_power_usage":     {Enabled: false},
		"DCGM_FI_DEV_GPU_TEMPERATURE": {Enabled: false},
		"GPU_UTILIZATION":             {Enabled: true},
		"DCGM_FI_DEV_GPU_TEMP":        {Enabled: false},
	}
	assert.EqualError(t, cfg.Validate(),
		`metrics: unknown field "DCGM_FI_DEV_GPU_TEMPERATURE" (did you mean "DCGM_FI_DEV_GPU_TEMP"?)`+"\n"+
			`metrics: unknown field "GPU_UTILIZATION" (the receiver's README lists the fields)`+"\n"+
			`metrics: unknown field "dcgm_fi_dev_power_usage" (did you mean "DCGM_FI_DEV_POWER_USAGE"? field names are upper case, as dcgm-exporter writes them)`)
}
