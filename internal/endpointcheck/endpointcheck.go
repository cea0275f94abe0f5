// Package endpointcheck is otelcol-modelplane's confmap converter that rejects exporter
// endpoints the exporter would take and then never send to.
//
// The remote write exporter accepts any endpoint url.ParseRequestURI parses, and the OTLP/HTTP
// exporter any that url.Parse does, so `prometheus:9090/api/v1/write` (read as scheme
// "prometheus") or `collector.example.com:4318` pass `validate`, start, and drop every batch
// with "unsupported protocol scheme"; `mimir.example.com/api/v1/push` fails the start with
// "invalid endpoint", naming neither the field nor the value. Here an endpoint of these
// exporters must be an http:// or https:// URL with a host, and an error names the exporter,
// the field and the value.
package endpointcheck // import "github.com/modelplaneai/otelcol-modelplane/internal/endpointcheck"

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/confmap"
)

// checked names, per exporter type (deprecated aliases included), the fields that hold a
// URL, and whether the exporter needs its `endpoint` (OTLP/HTTP may give per-signal ones
// instead).
var checked = map[string]struct {
	fields   []string
	required bool
	example  string
}{
	"prometheus_remote_write": {[]string{"endpoint"}, true, "https://mimir.example.com/api/v1/push"},
	"prometheusremotewrite":   {[]string{"endpoint"}, true, "https://mimir.example.com/api/v1/push"},
	"otlp_http":               {[]string{"endpoint", "metrics_endpoint", "traces_endpoint", "logs_endpoint", "profiles_endpoint"}, false, "https://otlp.example.com:4318"},
	"otlphttp":                {[]string{"endpoint", "metrics_endpoint", "traces_endpoint", "logs_endpoint", "profiles_endpoint"}, false, "https://otlp.example.com:4318"},
}

// NewFactory returns the factory of the converter.
func NewFactory() confmap.ConverterFactory {
	return confmap.NewConverterFactory(func(confmap.ConverterSettings) confmap.Converter {
		return converter{}
	})
}

type converter struct{}

// Convert changes nothing; it fails naming every endpoint that is not a URL to send to.
func (converter) Convert(_ context.Context, conf *confmap.Conf) error {
	exporters, _ := conf.Get("exporters").(map[string]any)
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(exporters)) {
		typ, _, _ := strings.Cut(id, "/")
		c, ok := checked[typ]
		if !ok {
			continue
		}
		body, _ := exporters[id].(map[string]any)
		for _, field := range c.fields {
			value, set := body[field]
			text, isText := value.(string)
			switch {
			case set && value != nil && !isText:
				errs = append(errs, fmt.Errorf("exporters::%s::%s: %v is not a URL (such as %s)", id, field, value, c.example))
			case text == "" && c.required:
				errs = append(errs, fmt.Errorf("exporters::%s::%s: not set (the URL to send to, such as %s)", id, field, c.example))
			case text == "":
			default:
				if err := sendable(text); err != nil {
					errs = append(errs, fmt.Errorf("exporters::%s::%s: %q %w (such as %s)", id, field, text, err, c.example))
				}
			}
		}
	}
	return errors.Join(errs...)
}

// sendable tells what keeps raw from being a URL an HTTP client sends to.
func sendable(raw string) error {
	if !strings.Contains(raw, "://") {
		return errors.New("has no scheme: write http:// or https:// before it")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("is not a URL: %w", errors.Unwrap(err))
	}
	if scheme := strings.ToLower(u.Scheme); scheme != "http" && scheme != "https" {
		return fmt.Errorf("has scheme %q, not http or https", u.Scheme)
	}
	if u.Hostname() == "" {
		return errors.New("has no host")
	}
	return nil
}
