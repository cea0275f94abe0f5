// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package fileprovider

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"
)

const mapping = `apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata: {name: mine}
spec:
  metrics:
  - {from: src_a, to: modelplane_a}
`

// A configuration file is served as the collector's file provider serves it, and its watcher
// is called when a mapping it reads takes a metric its scrape filter drops.
func TestRetrieveWatchesTheMappings(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "m.yaml"), []byte(mapping), 0o600))
	cfg := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(`processors:
  modelplane_mapping:
    builtin: []
    scrape_filter: true
    reload_interval: 10ms
    mapping_files: [`+filepath.Join(dir, "m*.yaml")+`]
service:
  pipelines:
    metrics:
      receivers: [prometheus]
      processors: [modelplane_mapping]
      exporters: [debug]
`), 0o600))
	p := NewFactory().Create(confmap.ProviderSettings{Logger: zap.NewNop()})
	assert.Equal(t, "file", p.Scheme())
	events := make(chan *confmap.ChangeEvent, 1)
	r, err := p.Retrieve(context.Background(), "file:"+cfg, func(e *confmap.ChangeEvent) { events <- e })
	require.NoError(t, err)
	conf, err := r.AsConf()
	require.NoError(t, err)
	assert.Equal(t, "10ms", conf.Get("processors::modelplane_mapping::reload_interval"))

	require.NoError(t, os.WriteFile(filepath.Join(dir, "m2.yaml"), []byte(mapping+"  - {from: src_new, to: modelplane_new}\n"), 0o600))
	select {
	case e := <-events:
		assert.NoError(t, e.Error)
	case <-time.After(5 * time.Second):
		t.Fatal("no change event for a mapping that reads a new metric")
	}
	require.NoError(t, r.Close(context.Background()))
	require.NoError(t, p.Shutdown(context.Background()))
}

// A file that holds a value (${file:token}) is served as upstream serves it.
func TestRetrieveValue(t *testing.T) {
	token := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(token, []byte("s3cr3t"), 0o600))
	p := NewFactory().Create(confmap.ProviderSettings{})
	r, err := p.Retrieve(context.Background(), "file:"+token, func(*confmap.ChangeEvent) {})
	require.NoError(t, err)
	s, err := r.AsString()
	require.NoError(t, err)
	assert.Equal(t, "s3cr3t", s)
}
