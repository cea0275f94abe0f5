// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package configcheck

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func convertEndpoints(t *testing.T, exporters map[string]any) error {
	t.Helper()
	conv := newChecker(endpoints, nil, nil)
	return conv.Convert(context.Background(), confmap.NewFromStringMap(map[string]any{"exporters": exporters}))
}

func TestEndpoints(t *testing.T) {
	for _, c := range []struct {
		name      string
		exporters map[string]any
		want      string // "" for none
	}{
		{"remote write", map[string]any{"prometheus_remote_write": map[string]any{"endpoint": "https://mimir.example.com/api/v1/push"}}, ""},
		{"remote write, port and IPv6", map[string]any{"prometheus_remote_write/a": map[string]any{"endpoint": "http://[::1]:9090/api/v1/write"}}, ""},
		{"upper-case scheme", map[string]any{"prometheusremotewrite": map[string]any{"endpoint": "HTTP://127.0.0.1:9090/api/v1/write"}}, ""},
		{"OTLP by signal", map[string]any{"otlp_http": map[string]any{"metrics_endpoint": "https://otlp.example.com/v1/metrics"}}, ""},
		{"other exporters are theirs", map[string]any{"otlp": map[string]any{"endpoint": "collector:4317"}, "prometheus": map[string]any{"endpoint": "0.0.0.0:9464"}}, ""},

		{"host:port/path, read as a scheme", map[string]any{"prometheus_remote_write": map[string]any{"endpoint": "prometheus:9090/api/v1/write"}},
			`exporters::prometheus_remote_write::endpoint: "prometheus:9090/api/v1/write" has no scheme: write http:// or https:// before it (such as https://mimir.example.com/api/v1/push)`},
		{"host/path", map[string]any{"prometheus_remote_write/mimir": map[string]any{"endpoint": "mimir.example.com/api/v1/push"}},
			`exporters::prometheus_remote_write/mimir::endpoint: "mimir.example.com/api/v1/push" has no scheme: write http:// or https:// before it (such as https://mimir.example.com/api/v1/push)`},
		{"OTLP host:port", map[string]any{"otlp_http/vendor": map[string]any{"endpoint": "collector.example.com:4318"}},
			`exporters::otlp_http/vendor::endpoint: "collector.example.com:4318" has no scheme: write http:// or https:// before it (such as https://otlp.example.com:4318)`},
		{"gRPC scheme on the HTTP exporter", map[string]any{"otlphttp": map[string]any{"metrics_endpoint": "grpc://collector:4317"}},
			`exporters::otlphttp::metrics_endpoint: "grpc://collector:4317" has scheme "grpc", not http or https (such as https://otlp.example.com:4318)`},
		{"no host", map[string]any{"prometheus_remote_write": map[string]any{"endpoint": "https:///api/v1/push"}},
			`exporters::prometheus_remote_write::endpoint: "https:///api/v1/push" has no host (such as https://mimir.example.com/api/v1/push)`},
		{"bad port", map[string]any{"prometheus_remote_write": map[string]any{"endpoint": "http://prometheus:90a/api/v1/write"}},
			`exporters::prometheus_remote_write::endpoint: "http://prometheus:90a/api/v1/write" is not a URL: invalid port ":90a" after host (such as https://mimir.example.com/api/v1/push)`},
		{"remote write at the root", map[string]any{"prometheus_remote_write": map[string]any{"endpoint": "http://prometheus:9090"}},
			`exporters::prometheus_remote_write::endpoint: "http://prometheus:9090" has no path: remote write goes to the receiver's, such as http://prometheus:9090/api/v1/write (Prometheus, VictoriaMetrics) or /api/v1/push (Mimir)`},
		{"remote write at the root, a slash", map[string]any{"prometheusremotewrite/vm": map[string]any{"endpoint": "https://vm.example.com/"}},
			`exporters::prometheusremotewrite/vm::endpoint: "https://vm.example.com/" has no path: remote write goes to the receiver's, such as https://vm.example.com/api/v1/write (Prometheus, VictoriaMetrics) or /api/v1/push (Mimir)`},
		{"remote write without one", map[string]any{"prometheus_remote_write": map[string]any{"timeout": "10s"}},
			`exporters::prometheus_remote_write::endpoint: not set (the URL to send to, such as https://mimir.example.com/api/v1/push)`},
		{"remote write, empty", map[string]any{"prometheus_remote_write": nil},
			`exporters::prometheus_remote_write::endpoint: not set (the URL to send to, such as https://mimir.example.com/api/v1/push)`},
		{"not text", map[string]any{"otlp_http": map[string]any{"endpoint": 4318}},
			`exporters::otlp_http::endpoint: 4318 is not a URL (such as https://otlp.example.com:4318)`},

		// OTLP/HTTP appends /v1/metrics to endpoint.
		{"OTLP under a path of its own", map[string]any{"otlp_http": map[string]any{"endpoint": "https://otlp-gateway.example.net/otlp"}}, ""},
		{"OTLP, the whole URL where it belongs", map[string]any{"otlp_http": map[string]any{"endpoint": "https://otlp.example.com/v1/metrics", "metrics_endpoint": "https://otlp.example.com/v1/metrics"}}, ""},
		{"OTLP, the metrics URL as endpoint", map[string]any{"otlp_http/vendor": map[string]any{"endpoint": "https://otlp.example.com/v1/metrics"}},
			`exporters::otlp_http/vendor::endpoint: "https://otlp.example.com/v1/metrics" ends in /v1/metrics, and this exporter appends /v1/metrics itself (it would post to https://otlp.example.com/v1/metrics/v1/metrics): write "https://otlp.example.com", or give the whole URL as metrics_endpoint`},
		{"OTLP, a traces URL with a slash", map[string]any{"otlphttp": map[string]any{"endpoint": "http://gateway:4318/otlp/v1/traces/"}},
			`exporters::otlphttp::endpoint: "http://gateway:4318/otlp/v1/traces/" ends in /v1/traces, and this exporter appends /v1/metrics itself (it would post to http://gateway:4318/otlp/v1/traces/v1/metrics): write "http://gateway:4318/otlp", or give the whole URL as metrics_endpoint`},

		// OTLP/gRPC: TLS unless tls::insecure, https:// TLS whatever it says (configgrpc).
		{"gRPC, plaintext and insecure", map[string]any{"otlp_grpc/gateway": map[string]any{"endpoint": "http://gateway:4317", "tls": map[string]any{"insecure": true}}}, ""},
		{"gRPC, insecure from a variable's text", map[string]any{"otlp_grpc": map[string]any{"endpoint": "http://gateway:4317", "tls": map[string]any{"insecure": "true"}}}, ""},
		{"gRPC, a target of its own", map[string]any{"otlp_grpc": map[string]any{"endpoint": "dns:///gateway:4317"}}, ""},
		{"gRPC, token over TLS", map[string]any{"otlp_grpc": map[string]any{"endpoint": "https://otlp.example.com:4317", "auth": map[string]any{"authenticator": "bearertokenauth/vendor"}}}, ""},
		{"gRPC, token, TLS by default", map[string]any{"otlp": map[string]any{"endpoint": "otlp.example.com:4317", "auth": map[string]any{"authenticator": "bearertokenauth"}}}, ""},
		{"gRPC, https:// wins over insecure", map[string]any{"otlp_grpc": map[string]any{"endpoint": "https://otlp.example.com:4317", "tls": map[string]any{"insecure": true}, "auth": map[string]any{"authenticator": "bearertokenauth"}}}, ""},
		{"gRPC, another authenticator is its own", map[string]any{"otlp_grpc": map[string]any{"endpoint": "http://gateway:4317", "tls": map[string]any{"insecure": true}, "auth": map[string]any{"authenticator": "oauth2client"}}}, ""},

		{"gRPC, http:// with TLS", map[string]any{"otlp_grpc/gateway": map[string]any{"endpoint": "http://gateway:4317"}},
			`exporters::otlp_grpc/gateway::endpoint: "http://gateway:4317" says plaintext, but this exporter connects with TLS unless tls::insecure is true, so every send to a plaintext receiver would fail its handshake: set exporters::otlp_grpc/gateway::tls::insecure: true, or write https:// for a receiver that serves TLS`},
		{"gRPC alias, insecure false", map[string]any{"otlp": map[string]any{"endpoint": "http://gateway:4317", "tls": map[string]any{"insecure": false}}},
			`exporters::otlp::endpoint: "http://gateway:4317" says plaintext, but this exporter connects with TLS unless tls::insecure is true, so every send to a plaintext receiver would fail its handshake: set exporters::otlp::tls::insecure: true, or write https:// for a receiver that serves TLS`},
		{"gRPC, token to http://", map[string]any{"otlp_grpc/gateway": map[string]any{"endpoint": "http://gateway:4317", "auth": map[string]any{"authenticator": "bearertokenauth/gateway"}}},
			`exporters::otlp_grpc/gateway::auth::authenticator: bearertokenauth/gateway sends its token only over TLS, but the endpoint "http://gateway:4317" says plaintext: write https:// for a receiver that serves TLS, or leave the token out`},
		{"gRPC, token with insecure", map[string]any{"otlp_grpc": map[string]any{"endpoint": "gateway:4317", "tls": map[string]any{"insecure": true}, "auth": map[string]any{"authenticator": "bearertokenauth"}}},
			`exporters::otlp_grpc::auth::authenticator: bearertokenauth sends its token only over TLS, but exporters::otlp_grpc::tls::insecure is true: write https:// for a receiver that serves TLS, or leave the token out`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := convertEndpoints(t, c.exporters)
			if c.want == "" {
				assert.NoError(t, err)
				return
			}
			require.EqualError(t, err, c.want)
		})
	}
}

// Every endpoint that is wrong is named, in the order of the exporters' names.
func TestEveryEndpointNamed(t *testing.T) {
	err := convertEndpoints(t, map[string]any{
		"prometheus_remote_write/b": map[string]any{"endpoint": "b:9090/api/v1/write"},
		"prometheus_remote_write/a": map[string]any{"endpoint": "a:9090/api/v1/write"},
		"otlp_http":                 map[string]any{"endpoint": "https://ok.example.com", "logs_endpoint": "logs:4318"},
	})
	require.Error(t, err)
	assert.Equal(t, `exporters::otlp_http::logs_endpoint: "logs:4318" has no scheme: write http:// or https:// before it (such as https://otlp.example.com:4318)
exporters::prometheus_remote_write/a::endpoint: "a:9090/api/v1/write" has no scheme: write http:// or https:// before it (such as https://mimir.example.com/api/v1/push)
exporters::prometheus_remote_write/b::endpoint: "b:9090/api/v1/write" has no scheme: write http:// or https:// before it (such as https://mimir.example.com/api/v1/push)`, err.Error())
}

// A configuration without exporters, or without these, passes untouched.
func TestNothingToCheck(t *testing.T) {
	conf := confmap.NewFromStringMap(map[string]any{"receivers": map[string]any{"otlp": nil}})
	require.NoError(t, newChecker(endpoints, nil, nil).Convert(context.Background(), conf))
	assert.Equal(t, map[string]any{"receivers": map[string]any{"otlp": nil}}, conf.ToStringMap())
}

// No endpoint the check passes is one url.Parse refuses or one without an http(s) scheme and
// a host; none panics.
func FuzzSendable(f *testing.F) {
	for _, s := range []string{"https://mimir.example.com/api/v1/push", "prometheus:9090/api/v1/write", "http://[::1]:9090", "https://", "grpc://x:4317", "http://%zz", "http://a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if sendable(raw) != nil {
			return
		}
		u, err := url.Parse(raw)
		require.NoError(t, err)
		assert.Contains(t, []string{"http", "https"}, strings.ToLower(u.Scheme))
		assert.NotEmpty(t, u.Hostname())
	})
}

// An OTLP exporter on the other transport's registered port gets a warning naming the
// exporter, the field, the value and the fix; it still starts (a receiver may serve either
// transport on any port).
func TestPortOfTheOtherTransport(t *testing.T) {
	for _, c := range []struct {
		name      string
		exporters map[string]any
		want      string // "" for none
	}{
		{"OTLP/HTTP on 4317", map[string]any{"otlp_http": map[string]any{"endpoint": "http://gateway:4317"}},
			`exporters::otlp_http::endpoint: "http://gateway:4317": port 4317 is OTLP/gRPC's, and this exporter sends OTLP/HTTP (port 4318), which a gRPC receiver answers with "malformed HTTP response": write port 4318, or use the otlp_grpc exporter`},
		{"OTLP/HTTP by signal on 4317", map[string]any{"otlphttp/vendor": map[string]any{"metrics_endpoint": "https://gateway:4317/v1/metrics"}},
			`exporters::otlphttp/vendor::metrics_endpoint: "https://gateway:4317/v1/metrics": port 4317 is OTLP/gRPC's, and this exporter sends OTLP/HTTP (port 4318), which a gRPC receiver answers with "malformed HTTP response": write port 4318, or use the otlp_grpc exporter`},
		{"OTLP/gRPC on 4318", map[string]any{"otlp_grpc": map[string]any{"endpoint": "gateway:4318", "tls": map[string]any{"insecure": true}}},
			`exporters::otlp_grpc::endpoint: "gateway:4318": port 4318 is OTLP/HTTP's, and this exporter sends OTLP/gRPC (port 4317), which an HTTP receiver answers with "error reading server preface": write port 4317, or use the otlp_http exporter`},
		{"OTLP/gRPC, dns target on 4318", map[string]any{"otlp": map[string]any{"endpoint": "dns:///gateway:4318"}},
			`exporters::otlp::endpoint: "dns:///gateway:4318": port 4318 is OTLP/HTTP's, and this exporter sends OTLP/gRPC (port 4317), which an HTTP receiver answers with "error reading server preface": write port 4317, or use the otlp_http exporter`},
		{"OTLP/HTTP on 4318", map[string]any{"otlp_http": map[string]any{"endpoint": "http://gateway:4318"}}, ""},
		{"OTLP/HTTP on 443", map[string]any{"otlp_http": map[string]any{"endpoint": "https://otlp.example.com"}}, ""},
		{"OTLP/gRPC on 4317", map[string]any{"otlp_grpc": map[string]any{"endpoint": "https://gateway:4317"}}, ""},
		{"remote write on 4317 is its own business", map[string]any{"prometheus_remote_write": map[string]any{"endpoint": "http://vm:4317/api/v1/write"}}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var notes strings.Builder
			core, logs := observer.New(zap.WarnLevel)
			conv := newChecker(endpoints, zap.New(core), &notes)
			require.NoError(t, conv.Convert(context.Background(), confmap.NewFromStringMap(map[string]any{"exporters": c.exporters})))
			if c.want == "" {
				assert.Zero(t, logs.Len())
				assert.Empty(t, notes.String())
				return
			}
			require.Equal(t, 1, logs.Len())
			assert.Equal(t, c.want, logs.All()[0].Message)
			assert.Equal(t, "warning: "+c.want+"\n", notes.String())
		})
	}
}
