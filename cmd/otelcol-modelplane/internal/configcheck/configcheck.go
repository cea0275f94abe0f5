// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package configcheck is otelcol-modelplane's one confmap converter of configuration checks.
// Each check catches a mistake the collector would take without a word, or report without
// naming the key and the fix; it changes nothing in the configuration.
//
//   - endpoints: an exporter endpoint that is not an http(s) URL with a host (remote write
//     and OTLP/HTTP take it, then drop every batch), an OTLP/gRPC http:// endpoint without
//     tls::insecure, an OTLP endpoint on the other transport's port.
//   - identityLabels: a Prometheus exporter fed by a mapping processor that would send its
//     series without their identity (two replicas arriving as one).
//   - unusedExporters: an exporter no pipeline names (a later --config replaced the list).
//   - overlayAlone: modelplane:remote-write or modelplane:otlp given without the default.
//   - sharedReplicas: static scrape targets the mapping's identity would take for one
//     replica, whose common series would be merged.
//   - queueStorage: a sending_queue on a storage extension that is not declared or not run,
//     which the collector finds only when it starts the exporter.
//   - mappingSources: with `validate` only, a problem in any mapping file a modelplane_mapping
//     processor reads, which a running collector skips with a warning.
//   - listeners: at start on the embedded configurations only, a listen address another
//     process holds, named with the variable that moves it.
package configcheck // import "github.com/modelplaneai/otelcol-modelplane/cmd/otelcol-modelplane/internal/configcheck"

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"

	"github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig"
	"github.com/modelplaneai/otelcol-modelplane/internal/pipelines"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"
)

// Settings are what the command line gives the checks.
type Settings struct {
	// Notes, when set, gets every warning as a "warning: ..." line as well: `validate`
	// resolves the configuration without a logger, and sets it to its stderr.
	Notes io.Writer
	// MappingSources has the mapping files read and any problem in them fail, as `validate`
	// does; a running collector skips a bad document with a warning instead.
	MappingSources bool
	// ListenersAtStart tells, at the first conversion, whether the collector starts on its
	// embedded configurations only, whose listen addresses come from the environment.
	ListenersAtStart func() bool
}

// NewFactory returns the factory of the converter.
func NewFactory(s Settings) confmap.ConverterFactory {
	return confmap.NewConverterFactory(func(set confmap.ConverterSettings) confmap.Converter {
		logger := set.Logger
		if logger == nil {
			logger = zap.NewNop()
		}
		return &checker{Settings: s, logger: logger}
	})
}

type checker struct {
	Settings
	logger *zap.Logger
	// converted is set after the first conversion: a reload finds the listen addresses held
	// by the collector itself.
	converted bool
}

// checks run in this order; the first to fail ends the conversion.
var checks = []func(*checker, *confmap.Conf) error{
	endpoints, identityLabels, unusedExporters, overlayAlone, sharedReplicas, queueStorage, mappingSources, listeners,
}

func (c *checker) Convert(_ context.Context, conf *confmap.Conf) error {
	defer func() { c.converted = true }()
	for _, check := range checks {
		if err := check(c, conf); err != nil {
			return err
		}
	}
	return nil
}

// warn logs msg as a warning, and notes it.
func (c *checker) warn(msg string) {
	if msg == "" {
		return
	}
	c.logger.Warn(msg)
	c.note("%s", msg)
}

// note writes "warning: " and the formatted message as a line to Notes, if set.
func (c *checker) note(format string, args ...any) {
	if c.Notes != nil {
		fmt.Fprintf(c.Notes, "warning: "+format+"\n", args...)
	}
}

// mappingSources fails on any problem in the mapping files of each modelplane_mapping
// processor, and notes what loads but misleads.
func mappingSources(c *checker, conf *confmap.Conf) error {
	if !c.MappingSources {
		return nil
	}
	processors, _ := conf.Get("processors").(map[string]any)
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(processors)) {
		if !pipelines.IsType(id, "modelplane_mapping") {
			continue
		}
		sub, err := conf.Sub("processors::" + id)
		if err != nil {
			continue
		}
		cfg := modelplanemapping.NewFactory().CreateDefaultConfig().(*modelplanemapping.Config)
		if sub.Unmarshal(cfg) != nil {
			continue // the collector names what does not decode
		}
		warnings, err := cfg.CheckSources()
		for _, w := range warnings {
			c.note("processors::%s: %s", id, w)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("processors::%s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

// listeners fails, at start on the embedded configurations only, naming each listen address
// another process holds and the variable that moves it. The collector's own error names
// only the address, and 8888 is also Jupyter's default port and every other collector's.
func listeners(c *checker, _ *confmap.Conf) error {
	if c.converted || c.ListenersAtStart == nil || !c.ListenersAtStart() {
		return nil
	}
	return defaultconfig.CheckListeners(os.LookupEnv)
}
