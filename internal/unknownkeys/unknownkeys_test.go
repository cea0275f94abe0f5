package unknownkeys

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"
	"go.yaml.in/yaml/v3"
)

func convert(t *testing.T, yaml string) error {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o600))
	conf, err := confmaptest.LoadConf(path)
	require.NoError(t, err)
	return NewFactory().Create(confmap.ConverterSettings{}).Convert(context.Background(), conf)
}

// Each key below is one that collector v0.161.0 starts with and ignores.
func TestRejectsWhatTheCollectorIgnores(t *testing.T) {
	for name, tc := range map[string]struct{ config, want string }{
		"otlp_http exporter": {
			"exporters:\n  otlp_http/vendor:\n    endpoint: https://otlp.example.com\n    compresion: gzip\n",
			`exporters::otlp_http/vendor: unknown key "compresion" (did you mean "compression"?)`,
		},
		"deprecated otlphttp alias": {
			"exporters:\n  otlphttp:\n    endpoint: https://otlp.example.com\n    retry:\n      enabled: false\n",
			`exporters::otlphttp: unknown key "retry"`,
		},
		"nested tls": {
			"exporters:\n  otlp_http:\n    tls:\n      insecure_skip_verfy: true\n",
			`exporters::otlp_http: unknown key "tls::insecure_skip_verfy" (did you mean "insecure_skip_verify"?)`,
		},
		"keepalive section": {
			"exporters:\n  otlp_http:\n    keepalive:\n      enabled: true\n      idle_timeout: 1s\n",
			`exporters::otlp_http: unknown key "keepalive::idle_timeout"`,
		},
		"remote write": {
			"exporters:\n  prometheus_remote_write/mimir:\n    endpoint: https://mimir/api/v1/push\n    timout: 30s\n",
			`exporters::prometheus_remote_write/mimir: unknown key "timout" (did you mean "timeout"?)`,
		},
		"remote write nested http": {
			"exporters:\n  prometheus_remote_write:\n    http:\n      endpoint: https://mimir/api/v1/push\n      header: {X-Scope-OrgID: fleet}\n",
			`exporters::prometheus_remote_write: unknown key "http::header" (did you mean "headers"?)`,
		},
		"remote write sending queue": {
			"exporters:\n  prometheus_remote_write:\n    endpoint: https://mimir/api/v1/push\n    sending_queu: {storage: file_storage}\n",
			`exporters::prometheus_remote_write: unknown key "sending_queu" (did you mean "sending_queue"?)`,
		},
		"otlp receiver http": {
			"receivers:\n  otlp:\n    protocols:\n      http:\n        endpoint: 127.0.0.1:4318\n        tls_settings: {cert_file: a}\n",
			`receivers::otlp: unknown key "protocols::http::tls_settings"`,
		},
		"prometheus exporter": {
			"exporters:\n  prometheus:\n    endpoint: 127.0.0.1:9464\n    without_scope_infos: true\n",
			`exporters::prometheus: unknown key "without_scope_infos" (did you mean "without_scope_info"?)`,
		},
		"health_check": {
			"extensions:\n  health_check:\n    endpiont: 0.0.0.0:13133\n",
			`extensions::health_check: unknown key "endpiont" (did you mean "endpoint"?)`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			err := convert(t, tc.config)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "opentelemetry-collector#15907")
		})
	}
}

func TestNamesEveryUnknownKey(t *testing.T) {
	err := convert(t, "exporters:\n  otlp_http/a:\n    compresion: gzip\n  otlp_http/b:\n    endpoint: x\n    bogus: 1\n    tls: {bogus: 2}\n")
	require.Error(t, err)
	assert.Equal(t, `exporters::otlp_http/a: unknown key "compresion" (did you mean "compression"?)
exporters::otlp_http/b: unknown key "bogus"
exporters::otlp_http/b: unknown key "tls::bogus"
(collector v0.161.0 would ignore these keys without a word: open-telemetry/opentelemetry-collector#15907)`, err.Error())
}

// No false alarms: every key of each component's own configuration, as the collector
// marshals its default with every optional section present, is accepted, and so are the
// configurations this project ships.
func TestAcceptsValidConfigurations(t *testing.T) {
	for section, cs := range checked {
		for _, c := range cs {
			conf := confmap.New()
			require.NoError(t, conf.Marshal(c.config()))
			k := keysOf(c.config())
			require.False(t, k.anything, "%s %s: the check would accept anything", section, c.types[0])
			var found []unknownKey
			walk(conf.ToStringMap(), k, "", &found)
			assert.Empty(t, found, "%s %s", section, c.types[0])
		}
	}
	for _, config := range []string{
		"../defaultconfig/default.yaml",
		"../../deploy/standalone/config.yaml",
	} {
		data, err := os.ReadFile(config)
		require.NoError(t, err)
		assert.NoError(t, convert(t, string(data)), config)
	}
	assert.NoError(t, convert(t, `receivers:
  otlp:
    protocols:
      grpc: {endpoint: 127.0.0.1:4317}
      http:
        endpoint: 127.0.0.1:4318
        cors: {allowed_origins: ["*"]}
        tls: {cert_file: a, key_file: b}
exporters:
  otlp_http:
    endpoint: https://otlp.example.com
    compression: gzip
    headers: {X-Tenant: fleet}
    tls: {insecure_skip_verify: true}
    keepalive: {enabled: true, idle_conn_timeout: 30s}
    retry_on_failure: {enabled: true, max_elapsed_time: 0}
    sending_queue: {enabled: true, queue_size: 10000, storage: file_storage}
    timeout: 10s
  prometheus_remote_write:
    endpoint: https://mimir/api/v1/push
    target_info: {enabled: false}
    remote_write_queue: {queue_size: 10000, num_consumers: 1}
    resource_constant_labels: {included: ["*"]}
    auth: {authenticator: bearertokenauth/mimir}
  prometheus_remote_write/persistent:
    endpoint: https://mimir/api/v1/push
    sending_queue: {enabled: true, queue_size: 10000, storage: file_storage, num_consumers: 1}
  prometheus_remote_write/nested:
    http: {endpoint: https://mimir/api/v1/push, headers: {X-Scope-OrgID: fleet}}
  debug:
    anything: goes here, the debug exporter checks its own keys
extensions:
  health_check: {endpoint: 0.0.0.0:13133, path: /}
`))
}

// FuzzConvert: any configuration is checked without a panic, and a configuration whose
// checked components hold only keys their defaults marshal to passes.
func FuzzConvert(f *testing.F) {
	f.Add([]byte("exporters:\n  otlp_http/vendor:\n    compresion: gzip\n    tls: {insecure: true}\n"))
	f.Add([]byte("receivers:\n  otlp:\n    protocols:\n      http: {tls_settings: {a: 1}}\n      grpc: null\n"))
	f.Add([]byte("exporters:\n  prometheus_remote_write:\n    http: [1, 2]\n    keepalive: 3\n"))
	f.Add([]byte("extensions: [health_check]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var raw map[string]any
		if yaml.Unmarshal(data, &raw) != nil {
			return
		}
		err := NewFactory().Create(confmap.ConverterSettings{}).Convert(context.Background(), confmap.NewFromStringMap(raw))
		if err != nil {
			assert.Contains(t, err.Error(), "unknown key")
		}
	})
}
