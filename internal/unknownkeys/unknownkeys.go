// Package unknownkeys is otelcol-modelplane's confmap converter that rejects the
// configuration keys that collector v0.161.0 silently ignores.
//
// Since v0.160.0, a component whose configuration embeds confighttp's ClientConfig or
// ServerConfig accepts any key at all (open-telemetry/opentelemetry-collector#15907): their
// Unmarshal decodes with WithIgnoreUnused, so `compresion: gzip` on an otlp_http exporter,
// `timout` on a remote-write sink or `tls_settings` on the OTLP receiver's HTTP protocol
// start a collector that quietly does something else. Every other component still fails on
// such a key. This converter restores that for the components of this distribution that
// have the bug, by the same rules the collector's decoder applies (the `mapstructure` keys of
// the component's configuration type, squashed structs inlined, names case-sensitive), and
// errs only where it is certain: below a type whose own Unmarshal it does not know, any key
// passes. Remove it when the collector release this distribution builds on has the fix.
package unknownkeys // import "github.com/modelplaneai/otelcol-modelplane/internal/unknownkeys"

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusexporter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/healthcheckextension"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/exporter/otlphttpexporter"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"

	"github.com/modelplaneai/otelcol-modelplane/exporter/prometheusremotewriteexporter"
	"github.com/modelplaneai/otelcol-modelplane/internal/spelling"
)

// checked lists, per section of the configuration, the component types with the bug (and
// their deprecated aliases) and the configuration type they decode into.
var checked = map[string][]struct {
	types  []string
	config func() component.Config
}{
	"receivers": {
		{[]string{"otlp"}, otlpreceiver.NewFactory().CreateDefaultConfig},
	},
	"exporters": {
		{[]string{"otlp_http", "otlphttp"}, otlphttpexporter.NewFactory().CreateDefaultConfig},
		{[]string{"prometheus_remote_write", "prometheusremotewrite"}, prometheusremotewriteexporter.NewFactory().CreateDefaultConfig},
		{[]string{"prometheus"}, prometheusexporter.NewFactory().CreateDefaultConfig},
	},
	"extensions": {
		{[]string{"health_check"}, healthcheckextension.NewFactory().CreateDefaultConfig},
	},
}

// NewFactory returns the factory of the converter.
func NewFactory() confmap.ConverterFactory {
	return confmap.NewConverterFactory(func(confmap.ConverterSettings) confmap.Converter {
		return converter{}
	})
}

type converter struct{}

// Convert changes nothing; it fails on the first configuration with keys its component
// would ignore, naming every such key.
func (converter) Convert(_ context.Context, conf *confmap.Conf) error {
	var errs []error
	for _, section := range []string{"receivers", "exporters", "extensions"} {
		components, _ := conf.Get(section).(map[string]any)
		for _, id := range slices.Sorted(maps.Keys(components)) {
			typ, _, _ := strings.Cut(id, "/")
			for _, c := range checked[section] {
				if !slices.Contains(c.types, typ) {
					continue
				}
				body, _ := components[id].(map[string]any)
				var found []unknownKey
				walk(body, keysOf(c.config()), "", &found)
				for _, u := range found {
					errs = append(errs, fmt.Errorf("%s::%s: %s", section, id, u))
				}
			}
		}
	}
	if len(errs) > 0 {
		errs = append(errs, errors.New("(collector v0.161.0 would ignore these keys without a word: open-telemetry/opentelemetry-collector#15907)"))
	}
	return errors.Join(errs...)
}

// unknownKey is one key of the configuration that no field takes.
type unknownKey struct {
	path string // "protocols::http::tls_settings"
	near string // the known key it most likely meant, or ""
}

func (u unknownKey) String() string {
	s := fmt.Sprintf("unknown key %q", u.path)
	if u.near != "" {
		s += fmt.Sprintf(" (did you mean %q?)", u.near)
	}
	return s
}

// walk collects the keys of conf that k does not know, recursing into maps it knows.
func walk(conf map[string]any, k *keys, prefix string, out *[]unknownKey) {
	if k == nil || k.anything || k.fields == nil {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(conf)) {
		path := prefix + name
		child, ok := k.fields[name]
		if !ok {
			*out = append(*out, unknownKey{path: path, near: spelling.Nearest(name, maps.Keys(k.fields))})
			continue
		}
		if sub, ok := conf[name].(map[string]any); ok {
			walk(sub, child, path+"::", out)
		}
	}
}
