package helm

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// containerArgs are the collector container's arguments in the rendered DaemonSet.
func containerArgs(t *testing.T, out map[string]string) []string {
	t.Helper()
	var ds appsv1.DaemonSet
	require.NoError(t, yaml.UnmarshalStrict([]byte(out[chartDir+"/templates/daemonset.yaml"]), &ds))
	return ds.Spec.Template.Spec.Containers[0].Args
}

// The `config` value: collector configuration the collector merges over the chart's, as a
// second --config file.
func TestConfigOverrides(t *testing.T) {
	out, err := renderValues(t, "")
	require.NoError(t, err)
	assert.Empty(t, configMapFile(t, out, "overrides.yaml"), "nothing to merge, no file")
	assert.Equal(t, []string{"--config=/etc/otelcol-modelplane/config/config.yaml"}, containerArgs(t, out))

	out, err = renderValues(t, `config:
  processors:
    batch: {timeout: 2s}
  exporters:
    debug/extra: {verbosity: basic}
  service:
    pipelines:
      metrics:
        exporters: [debug/debug, debug/extra]
`)
	require.NoError(t, err)
	assert.Equal(t, []string{"--config=/etc/otelcol-modelplane/config/config.yaml", "--config=/etc/otelcol-modelplane/config/overrides.yaml"}, containerArgs(t, out))
	var overrides map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(configMapFile(t, out, "overrides.yaml")), &overrides))
	assert.Equal(t, "2s", dig(overrides, "processors", "batch", "timeout"))
	assert.Equal(t, []any{"debug/debug", "debug/extra"}, dig(overrides, "service", "pipelines", "metrics", "exporters"))
	validateCollectorConfig(t, out)

	// A misspelt section fails the render; a misspelt key fails validate (and the collector's
	// start), naming it; a merge that breaks a rule of the mapping processor says which.
	_, err = renderValues(t, "config: {reciever: {otlp: {}}}\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "reciever")
	if bin := collectorBinaryFor(t, "misspelt overrides not validated"); bin != "" {
		out, err = renderValues(t, "config: {processors: {batch: {timout: 2s}}}\n")
		require.NoError(t, err)
		res, _, err := runValidate(t, bin, out, nil)
		require.Error(t, err)
		assert.Contains(t, res, "timout")
		out, err = renderValues(t, "config: {processors: {modelplane_mapping: {drop_unmapped: false}}}\n")
		require.NoError(t, err)
		res, _, err = runValidate(t, bin, out, nil)
		require.Error(t, err)
		assert.Contains(t, res, "scrape_filter: needs drop_unmapped: true")
	}

	mergedInTheCollector(t)
}

// mergedInTheCollector runs the collector on the chart's OTLP receiver and mapping processor
// with its debug sink, then the overrides file the chart renders from `config`: a Prometheus
// exporter added, the pipeline's exporters replaced by it, and drop_unmapped (on by default)
// and scrape_filter (on in the chart's config) turned off. A pushed metric no mapping reads
// then reaches the endpoint beside the mapped one: the overrides were merged over the chart's
// config, false winning over true.
func mergedInTheCollector(t *testing.T) {
	bin := collectorBinaryFor(t, "overrides not run in the collector")
	if bin == "" {
		return
	}
	httpPort, grpcPort, promPort := freeLoopbackPort(t), freeLoopbackPort(t), freeLoopbackPort(t)
	out, err := renderValues(t, fmt.Sprintf(`otlp: {enabled: true, grpcPort: %d, httpPort: %d}
config:
  exporters:
    prometheus/local: {endpoint: "127.0.0.1:%d"}
  processors:
    modelplane_mapping: {drop_unmapped: false, scrape_filter: false}
  service:
    pipelines:
      metrics:
        exporters: [prometheus/local]
`, grpcPort, httpPort, promPort))
	require.NoError(t, err)
	rendered := renderedConfig(t, out)
	require.Equal(t, true, dig(rendered, "processors", "modelplane_mapping", "scrape_filter"))
	overrides := filepath.Join(t.TempDir(), "overrides.yaml")
	require.NoError(t, os.WriteFile(overrides, []byte(configMapFile(t, out, "overrides.yaml")), 0o644))
	startRenderedCollector(t, bin, otlpPipeline(rendered, "debug/debug", dig(rendered, "exporters", "debug/debug")), overrides)

	md := gatewayHistogram()
	m := md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().AppendEmpty()
	m.SetName("team_queue_depth")
	m.SetEmptyGauge().DataPoints().AppendEmpty().SetIntValue(7)
	page := pushUntilServed(t, httpPort, promPort, md, "modelplane_frontend_request_duration_seconds_count{")
	assert.Contains(t, page, "team_queue_depth{")
}

// updateStrategy: one node at a time by default, a share of the fleet when set, and no
// rollingUpdate beside OnDelete, which Kubernetes would refuse.
func TestUpdateStrategy(t *testing.T) {
	strategy := func(values string) (appsv1.DaemonSetUpdateStrategy, error) {
		out, err := renderValues(t, values)
		if err != nil {
			return appsv1.DaemonSetUpdateStrategy{}, err
		}
		var ds appsv1.DaemonSet
		require.NoError(t, yaml.UnmarshalStrict([]byte(out[chartDir+"/templates/daemonset.yaml"]), &ds))
		return ds.Spec.UpdateStrategy, nil
	}
	s, err := strategy("")
	require.NoError(t, err)
	assert.Equal(t, appsv1.RollingUpdateDaemonSetStrategyType, s.Type)
	assert.Equal(t, "1", s.RollingUpdate.MaxUnavailable.String())

	s, err = strategy("updateStrategy: {rollingUpdate: {maxUnavailable: 10%}}\n")
	require.NoError(t, err)
	assert.Equal(t, appsv1.RollingUpdateDaemonSetStrategyType, s.Type)
	assert.Equal(t, "10%", s.RollingUpdate.MaxUnavailable.String())

	s, err = strategy("updateStrategy: {type: OnDelete}\n")
	require.NoError(t, err)
	assert.Equal(t, appsv1.OnDeleteDaemonSetStrategyType, s.Type)
	assert.Nil(t, s.RollingUpdate)

	_, err = strategy("updateStrategy: {type: Recreate}\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "updateStrategy")
}
