// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package scrapefilter

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

const mapping = `apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata: {name: mine}
spec:
  metrics:
  - {from: src_a, to: modelplane_a}
`

// watchedConf is a configuration whose filtering processor reads the mapping files of dir,
// every 10 ms.
func watchedConf(dir string) *confmap.Conf {
	return confmap.NewFromStringMap(map[string]any{
		"processors": map[string]any{"modelplane_mapping": map[string]any{
			"builtin": []any{}, "scrape_filter": true, "reload_interval": "10ms",
			"mapping_files": []any{filepath.Join(dir, "*.yaml")},
		}},
		"service": map[string]any{"pipelines": map[string]any{"metrics": map[string]any{
			"receivers": []any{"prometheus"}, "processors": []any{"modelplane_mapping"}, "exporters": []any{"debug"},
		}}},
	})
}

// A mapping that reads a metric the filter drops has the configuration loaded again, once;
// mappings that read only what the filter keeps do not.
func TestWatchReloadsForANewSource(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "m.yaml"), []byte(mapping), 0o600))
	var changed atomic.Int32
	core, logs := observer.New(zap.InfoLevel)
	stop := Watch(watchedConf(dir), func() bool { return true }, func() { changed.Add(1) }, zap.New(core))
	t.Cleanup(func() { require.NoError(t, stop(context.Background())) })

	time.Sleep(50 * time.Millisecond)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "m.yaml"), []byte(mapping+"  - {from: src_a, to: modelplane_again}\n"), 0o600))
	time.Sleep(50 * time.Millisecond)
	assert.Zero(t, changed.Load(), "src_a is kept already")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "new.yaml"), []byte(mapping+"  - {from: src_new, to: modelplane_new}\n"), 0o600))
	require.Eventually(t, func() bool { return changed.Load() == 1 }, 5*time.Second, 5*time.Millisecond)
	time.Sleep(50 * time.Millisecond)
	assert.Equal(t, int32(1), changed.Load(), "once: the collector's reload starts a new watch")
	said := logs.FilterMessageSnippet("reloading the configuration to keep them").All()
	require.Len(t, said, 1)
	assert.Equal(t, []any{"src_new"}, said[0].ContextMap()["from"])
}

// While the configuration file differs from what was loaded (an edit in progress), the new
// source waits with one warning, and the reload happens once the file is as loaded again.
func TestWatchWaitsWhileTheConfigurationChanged(t *testing.T) {
	dir := t.TempDir()
	var current atomic.Bool
	var changed atomic.Int32
	core, logs := observer.New(zap.InfoLevel)
	stop := Watch(watchedConf(dir), current.Load, func() { changed.Add(1) }, zap.New(core))
	t.Cleanup(func() { require.NoError(t, stop(context.Background())) })

	require.NoError(t, os.WriteFile(filepath.Join(dir, "m.yaml"), []byte(mapping), 0o600))
	require.Eventually(t, func() bool { return logs.FilterMessageSnippet("has changed since it was loaded").Len() == 1 }, 5*time.Second, 5*time.Millisecond)
	time.Sleep(50 * time.Millisecond)
	assert.Zero(t, changed.Load())
	assert.Equal(t, 1, logs.FilterMessageSnippet("has changed since it was loaded").Len(), "said once")

	current.Store(true)
	require.Eventually(t, func() bool { return changed.Load() == 1 }, 5*time.Second, 5*time.Millisecond)
}

// Nothing to follow (no mapping files, no cluster, or no scrape filter): no watch.
func TestWatchNothingToFollow(t *testing.T) {
	conf := confmap.NewFromStringMap(map[string]any{
		"processors": map[string]any{"modelplane_mapping": map[string]any{"scrape_filter": true}},
		"service": map[string]any{"pipelines": map[string]any{"metrics": map[string]any{
			"receivers": []any{"prometheus"}, "processors": []any{"modelplane_mapping"}, "exporters": []any{"debug"},
		}}},
	})
	var changed atomic.Int32
	stop := Watch(conf, func() bool { return true }, func() { changed.Add(1) }, zap.NewNop())
	require.NoError(t, stop(context.Background()))
	assert.Zero(t, changed.Load())
}
