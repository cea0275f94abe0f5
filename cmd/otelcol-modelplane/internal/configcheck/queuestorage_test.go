// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package configcheck

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.yaml.in/yaml/v3"
)

func convertQueue(t *testing.T, config string) error {
	t.Helper()
	var raw map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(config), &raw))
	return newChecker(queueStorage, nil, nil).Convert(context.Background(), confmap.NewFromStringMap(raw))
}

func TestAQueueOnStorageTheCollectorDoesNotRunIsNamed(t *testing.T) {
	for name, c := range map[string]struct{ config, want string }{
		"not declared": {`
exporters:
  prometheus_remote_write/mimir: {endpoint: https://m/api/v1/push, sending_queue: {storage: file_storage}}
  otlp_http: {endpoint: https://o}
extensions: {health_check: {}}
service:
  extensions: [health_check]
  pipelines: {metrics: {receivers: [otlp], exporters: [prometheus_remote_write/mimir, otlp_http]}}
`, `exporters::prometheus_remote_write/mimir::sending_queue::storage: "file_storage": no extension of that name; declare it under extensions (file_storage: {directory: /var/lib/otelcol-modelplane}) and list it in service::extensions`},
		"declared, not run": {`
exporters:
  otlp_http: {endpoint: https://o, sending_queue: {enabled: true, storage: file_storage/queue}}
extensions: {file_storage/queue: {directory: /tmp/q}}
service:
  pipelines: {metrics: {receivers: [otlp], exporters: [otlp_http]}}
`, `exporters::otlp_http::sending_queue::storage: "file_storage/queue": declared under extensions but not listed in service::extensions`},
	} {
		t.Run(name, func(t *testing.T) {
			err := convertQueue(t, c.config)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestQueuesTheCollectorCanStartPass(t *testing.T) {
	for name, config := range map[string]string{
		"declared and run": `
exporters:
  prometheus_remote_write: {endpoint: https://m/api/v1/push, sending_queue: {storage: file_storage}}
extensions: {file_storage: }
service:
  extensions: [file_storage]
  pipelines: {metrics: {receivers: [otlp], exporters: [prometheus_remote_write]}}
`,
		"in memory": `
exporters:
  otlp_http: {endpoint: https://o, sending_queue: {queue_size: 100}}
service:
  pipelines: {metrics: {receivers: [otlp], exporters: [otlp_http]}}
`,
		"queue off": `
exporters:
  otlp_http: {endpoint: https://o, sending_queue: {enabled: false, storage: file_storage}}
service:
  pipelines: {metrics: {receivers: [otlp], exporters: [otlp_http]}}
`,
		"exporter in no pipeline (never started)": `
exporters:
  otlp_http: {endpoint: https://o, sending_queue: {storage: file_storage}}
  debug: {}
service:
  pipelines: {metrics: {receivers: [otlp], exporters: [debug]}}
`,
		"no exporters": `
service:
  pipelines: {metrics: {receivers: [otlp], exporters: [debug]}}
`,
	} {
		t.Run(name, func(t *testing.T) {
			assert.NoError(t, convertQueue(t, config))
		})
	}
}
