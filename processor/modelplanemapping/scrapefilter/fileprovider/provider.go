// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package fileprovider is the collector's file confmap provider, which also has the
// collector load a configuration file again when a mapping that file's scrape filter was
// built from reads a metric the filter drops (scrapefilter.Watch).
package fileprovider // import "github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/scrapefilter/fileprovider"

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"

	"go.opentelemetry.io/collector/confmap"
	upstream "go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.uber.org/zap"

	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/scrapefilter"
)

// NewFactory returns the factory of the "file" provider.
func NewFactory() confmap.ProviderFactory {
	return confmap.NewProviderFactory(func(s confmap.ProviderSettings) confmap.Provider {
		logger := s.Logger
		if logger == nil {
			logger = zap.NewNop()
		}
		return &provider{file: upstream.NewFactory().Create(s), logger: logger}
	})
}

type provider struct {
	file   confmap.Provider
	logger *zap.Logger
}

func (p *provider) Retrieve(ctx context.Context, uri string, watcher confmap.WatcherFunc) (*confmap.Retrieved, error) {
	r, err := p.file.Retrieve(ctx, uri, watcher)
	if err != nil || watcher == nil {
		return r, err
	}
	if raw, _ := r.AsRaw(); !isMap(raw) { // a value, as ${file:token} gives
		return r, nil
	}
	// Served as read here, so that the watch compares the file with what was loaded.
	path := filepath.Clean(strings.TrimPrefix(uri, "file:"))
	loaded, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	conf, err := confmap.NewRetrievedFromYAML(loaded)
	if err != nil {
		return nil, err
	}
	raw, _ := conf.AsRaw()
	if !isMap(raw) {
		return conf, nil
	}
	current := func() bool {
		now, err := os.ReadFile(path)
		return err == nil && bytes.Equal(now, loaded)
	}
	// p.logger itself, not a child: the collector moves it to the service's logger once that
	// starts, and a child made now would stay on the start-up one.
	stop := scrapefilter.Watch(confmap.NewFromStringMap(raw.(map[string]any)), current,
		func() { watcher(&confmap.ChangeEvent{}) }, p.logger)
	return confmap.NewRetrievedFromYAML(loaded, confmap.WithRetrievedClose(stop))
}

func isMap(raw any) bool {
	_, ok := raw.(map[string]any)
	return ok
}

func (p *provider) Scheme() string { return p.file.Scheme() }

func (p *provider) Shutdown(ctx context.Context) error { return p.file.Shutdown(ctx) }
