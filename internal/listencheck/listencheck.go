// Package listencheck is otelcol-modelplane's confmap converter that, when the collector
// starts on nothing but its embedded configurations, names a listen address another process
// already holds with the variable that moves it. The collector's own error names only the
// address ("binding address localhost:8888 for Prometheus exporter: ... address already in
// use"), and 8888 is also Jupyter's default port and every other collector's.
//
// It runs as a converter, after the configuration has resolved and the converters before it
// have checked it, so that a configuration error (a variable not set, an endpoint without a
// scheme) is reported first; and only once, at start: a reload finds the addresses held by
// the collector itself.
package listencheck // import "github.com/modelplaneai/otelcol-modelplane/internal/listencheck"

import (
	"context"
	"os"
	"sync/atomic"

	"go.opentelemetry.io/collector/confmap"

	"github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig"
)

// atStart is set by the command line that starts the collector on embedded configurations
// only, whose addresses come from the environment; the first conversion clears it.
var atStart atomic.Bool

// AtStart asks the next conversion to check the default's listen addresses.
func AtStart() { atStart.Store(true) }

// NewFactory returns the factory of the converter.
func NewFactory() confmap.ConverterFactory {
	return confmap.NewConverterFactory(func(confmap.ConverterSettings) confmap.Converter { return converter{} })
}

type converter struct{}

// Convert changes nothing; at start, it fails naming each taken address and its variable.
func (converter) Convert(context.Context, *confmap.Conf) error {
	if !atStart.Swap(false) {
		return nil
	}
	return defaultconfig.CheckListeners(os.LookupEnv)
}
