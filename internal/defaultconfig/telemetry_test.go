// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
)

func telemetryReaders(t *testing.T, lookup func(string) (string, bool)) any {
	t.Helper()
	r, err := retrieveDefault(lookup)
	require.NoError(t, err)
	raw, err := r.AsRaw()
	require.NoError(t, err)
	return confmap.NewFromStringMap(raw.(map[string]any)).Get("service::telemetry::metrics::readers")
}

func TestTelemetryEndpoint(t *testing.T) {
	reader := func(host string, port int) []any {
		return []any{map[string]any{"pull": map[string]any{"exporter": map[string]any{"prometheus": map[string]any{"host": host, "port": port}}}}}
	}
	assert.Equal(t, reader("127.0.0.1", 8888), telemetryReaders(t, lookupOf(nil)))
	assert.Equal(t, reader("127.0.0.1", 8890), telemetryReaders(t, lookupOf(map[string]string{telemetryVariable: "127.0.0.1:8890"})))
	assert.Equal(t, reader("::1", 9999), telemetryReaders(t, lookupOf(map[string]string{telemetryVariable: "[::1]:9999"})))
	assert.EqualError(t, checkEnv(lookupOf(map[string]string{telemetryVariable: "8890"})),
		`MODELPLANE_TELEMETRY_ENDPOINT="8890": not host:port, such as 127.0.0.1:9464 (0.0.0.0:9464 to serve every interface)`)
}

// An address another process holds is named with the variable that moves it; a free one,
// or one that is not host:port (checkEnv's to report), passes.
func TestCheckListeners(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	free, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	freeAddr := free.Addr().String()
	require.NoError(t, free.Close())

	assert.NoError(t, CheckListeners(lookupOf(map[string]string{"MODELPLANE_PROMETHEUS_ENDPOINT": freeAddr, telemetryVariable: "not-an-address"})))
	err = CheckListeners(lookupOf(map[string]string{"MODELPLANE_PROMETHEUS_ENDPOINT": freeAddr, telemetryVariable: taken.Addr().String()}))
	assert.EqualError(t, err, taken.Addr().String()+", where the embedded default serves the collector's own metrics, is taken by another process (Jupyter and other collectors listen on 8888 by default): set MODELPLANE_TELEMETRY_ENDPOINT to a free host:port, such as 127.0.0.1:PORT")
	err = CheckListeners(lookupOf(map[string]string{"MODELPLANE_PROMETHEUS_ENDPOINT": taken.Addr().String(), telemetryVariable: freeAddr}))
	assert.ErrorContains(t, err, ", where the embedded default serves the modelplane_* series, is taken by another process (OpenTelemetry SDKs' Prometheus exporters listen on 9464 by default)")
	assert.ErrorContains(t, err, "set MODELPLANE_PROMETHEUS_ENDPOINT")
}

func TestScrapeLimits(t *testing.T) {
	assert.Equal(t, ScrapeLimit{BodySize: "16MiB", Samples: 20000}, ScrapeLimits())
	assert.Equal(t, "body_size_limit 16MiB, sample_limit 20000 series kept", ScrapeLimits().String())
}
