// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package configcheck

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/confmap"

	"github.com/modelplaneai/otelcol-modelplane/internal/pipelines"
)

// checked names, per exporter type (deprecated aliases included), the fields that hold a
// URL, and whether the exporter needs its `endpoint` (OTLP/HTTP may give per-signal ones
// instead).
var checked = map[string]struct {
	fields   []string
	required bool
	example  string
	// appendsPath: the exporter posts metrics to endpoint + /v1/metrics (unless
	// metrics_endpoint gives the whole URL); otherwise it posts to endpoint as written, which
	// then needs the receiver's path.
	appendsPath bool
}{
	"prometheus_remote_write": {[]string{"endpoint"}, true, "https://mimir.example.com/api/v1/push", false},
	"prometheusremotewrite":   {[]string{"endpoint"}, true, "https://mimir.example.com/api/v1/push", false},
	"otlp_http":               {[]string{"endpoint", "metrics_endpoint", "traces_endpoint", "logs_endpoint", "profiles_endpoint"}, false, "https://otlp.example.com:4318", true},
	"otlphttp":                {[]string{"endpoint", "metrics_endpoint", "traces_endpoint", "logs_endpoint", "profiles_endpoint"}, false, "https://otlp.example.com:4318", true},
}

// grpcTypes are the OTLP/gRPC exporter's type and its deprecated alias, whose endpoint is a
// gRPC target (host:port, dns:///host:port) rather than a URL.
var grpcTypes = map[string]bool{"otlp_grpc": true, "otlp": true}

// checkTransport checks an OTLP/gRPC exporter's endpoint against its TLS settings, as
// configgrpc (v1.67.0) applies them: TLS unless tls::insecure is true, and TLS for https://
// whatever tls::insecure says.
func checkTransport(id string, body map[string]any) error {
	endpoint, _ := body["endpoint"].(string)
	tlsSettings, _ := body["tls"].(map[string]any)
	insecure := pipelines.IsTrue(tlsSettings["insecure"])
	auth, _ := body["auth"].(map[string]any)
	authenticator, _ := auth["authenticator"].(string)
	typ, _, _ := strings.Cut(authenticator, "/")
	saysPlaintext := strings.HasPrefix(endpoint, "http://")
	switch tlsOff := insecure && !strings.HasPrefix(endpoint, "https://"); {
	case typ == "bearertokenauth" && (saysPlaintext || tlsOff):
		why := fmt.Sprintf("the endpoint %q says plaintext", endpoint)
		if tlsOff {
			why = fmt.Sprintf("exporters::%s::tls::insecure is true", id)
		}
		return fmt.Errorf("exporters::%s::auth::authenticator: %s sends its token only over TLS, but %s: write https:// for a receiver that serves TLS, or leave the token out", id, authenticator, why)
	case saysPlaintext && !insecure:
		return fmt.Errorf("exporters::%s::endpoint: %q says plaintext, but this exporter connects with TLS unless tls::insecure is true, so every send to a plaintext receiver would fail its handshake: set exporters::%s::tls::insecure: true, or write https:// for a receiver that serves TLS", id, endpoint, id)
	}
	return nil
}

// endpoints fails naming every exporter endpoint that is not a URL to send to, and every
// OTLP/gRPC transport that cannot work, and warns of an OTLP endpoint on the other
// transport's port.
func endpoints(cv *checker, conf *confmap.Conf) error {
	exporters, _ := conf.Get("exporters").(map[string]any)
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(exporters)) {
		typ, _, _ := strings.Cut(id, "/")
		body, _ := exporters[id].(map[string]any)
		if grpcTypes[typ] {
			if err := checkTransport(id, body); err != nil {
				errs = append(errs, err)
			}
			if endpoint, ok := body["endpoint"].(string); ok {
				cv.warn(portWarning(id, "endpoint", endpoint, true))
			}
			continue
		}
		c, ok := checked[typ]
		if !ok {
			continue
		}
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
					continue
				}
				if c.appendsPath {
					cv.warn(portWarning(id, field, text, false))
				}
				if metricsURL, _ := body["metrics_endpoint"].(string); c.appendsPath && field == "endpoint" && metricsURL == "" {
					if err := signalPathTwice(text); err != nil {
						errs = append(errs, fmt.Errorf("exporters::%s::endpoint: %w, or give the whole URL as metrics_endpoint", id, err))
					}
				} else if !c.appendsPath && !hasPath(text) {
					// Every receiver takes remote write under a path of its own; at the root,
					// Prometheus answers 405 and the exporter drops every batch.
					errs = append(errs, fmt.Errorf("exporters::%s::%s: %q has no path: remote write goes to the receiver's, such as %s/api/v1/write (Prometheus, VictoriaMetrics) or /api/v1/push (Mimir)", id, field, text, strings.TrimSuffix(text, "/")))
				}
			}
		}
	}
	return errors.Join(errs...)
}

// signalPathTwice refuses an OTLP/HTTP endpoint that already ends in a signal's path, as a
// vendor's page gives the whole metrics URL: the exporter appends /v1/metrics to it, and
// every send would go to .../v1/metrics/v1/metrics and be refused (404).
func signalPathTwice(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	path := strings.TrimSuffix(u.Path, "/")
	for _, signal := range []string{"/v1/metrics", "/v1/traces", "/v1/logs"} {
		if !strings.HasSuffix(path, signal) {
			continue
		}
		posted := strings.TrimSuffix(raw, "/") + "/v1/metrics"
		base := *u
		base.Path = strings.TrimSuffix(path, signal)
		base.RawPath = ""
		return fmt.Errorf("%q ends in %s, and this exporter appends /v1/metrics itself (it would post to %s): write %q", raw, signal, posted, base.String())
	}
	return nil
}

// hasPath reports whether raw, a URL sendable accepts, names a path below the root.
func hasPath(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && strings.Trim(u.Path, "/") != ""
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
