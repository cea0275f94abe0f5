// Package defaultconfig embeds the default configuration of otelcol-modelplane and serves it
// as the confmap provider of scheme "modelplane": `--config modelplane:default`.
package defaultconfig // import "github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig"

import (
	"context"
	_ "embed"
	"fmt"
	"os"

	"go.opentelemetry.io/collector/confmap"
)

// YAML is the embedded default configuration.
//
//go:embed default.yaml
var YAML []byte

const (
	scheme = "modelplane"
	// URI loads the embedded default.
	URI = scheme + ":default"
)

type provider struct{}

// NewFactory returns the factory of the "modelplane" confmap provider.
func NewFactory() confmap.ProviderFactory {
	return confmap.NewProviderFactory(func(confmap.ProviderSettings) confmap.Provider { return provider{} })
}

func (provider) Retrieve(_ context.Context, uri string, _ confmap.WatcherFunc) (*confmap.Retrieved, error) {
	if uri != URI {
		return nil, fmt.Errorf("%q: the modelplane scheme serves only %q", uri, URI)
	}
	if err := checkEnv(os.LookupEnv); err != nil {
		return nil, fmt.Errorf("the embedded default (%s): %w", URI, err)
	}
	return confmap.NewRetrievedFromYAML(YAML)
}

func (provider) Scheme() string { return scheme }

func (provider) Shutdown(context.Context) error { return nil }
