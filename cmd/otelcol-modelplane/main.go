// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Program otelcol-modelplane is the OpenTelemetry Collector for GPU inference fleets: the
// collector's own command, with the components builder-config.yaml names (components.go,
// which `make generate` writes), the embedded default as its configuration when no --config
// is given, and the commands of cmd.go added to it.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/yamlprovider"
	"go.opentelemetry.io/collector/otelcol"

	"github.com/modelplaneai/otelcol-modelplane/cmd/otelcol-modelplane/internal/configcheck"
	"github.com/modelplaneai/otelcol-modelplane/cmd/otelcol-modelplane/internal/envprovider"
	"github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/scrapefilter"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/scrapefilter/fileprovider"
)

func main() {
	if err := setDefaultGates(); err != nil {
		fmt.Fprintln(os.Stderr, "otelcol-modelplane:", err)
		os.Exit(1)
	}
	if err := newCommand(os.Stdout, os.Stderr).Execute(); err != nil {
		var code exitCode
		if errors.As(err, &code) {
			os.Exit(int(code))
		}
		os.Exit(1)
	}
}

// settings are the collector's: checks configure the configuration checks, and notes gets
// the warnings of a resolution without a logger (validate's).
func settings(checks configcheck.Settings, notes io.Writer) otelcol.CollectorSettings {
	const ours = "github.com/modelplaneai/otelcol-modelplane " + version
	yaml := "go.opentelemetry.io/collector/confmap/provider/yamlprovider"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == yaml {
				yaml += " " + d.Version
			}
		}
	}
	return otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{
			Command:     "otelcol-modelplane",
			Description: "otelcol-modelplane, the OpenTelemetry Collector for GPU inference fleets",
			Version:     version,
		},
		Factories: components,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				URIs: []string{defaultconfig.URI},
				ProviderFactories: []confmap.ProviderFactory{
					envprovider.NewFactory(notes), fileprovider.NewFactory(), yamlprovider.NewFactory(), defaultconfig.NewFactory(),
				},
				ConverterFactories: []confmap.ConverterFactory{scrapefilter.NewFactory(), configcheck.NewFactory(checks)},
			},
		},
		ProviderModules:  map[string]string{"env": ours, "file": ours, "yaml": yaml, "modelplane": ours},
		ConverterModules: []string{ours, ours},
	}
}

// exitCode is a command's exit status, after it has said why.
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit status %d", int(c)) }
