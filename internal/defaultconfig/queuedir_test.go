// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"
)

// overrideWith retrieves the override name with the environment env.
func overrideWith(t *testing.T, name string, env map[string]string) (*confmap.Conf, error) {
	t.Helper()
	r, err := retrieveOverride(scheme+":"+name, Documents[name], lookupOf(env))
	if err != nil {
		return nil, err
	}
	return r.AsConf()
}

// Without MODELPLANE_QUEUE_DIR the overrides keep their queues in memory, as they always did.
func TestOverridesQueueInMemoryByDefault(t *testing.T) {
	rw, err := overrideWith(t, "remote-write", nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"queue_size": 10000}, rw.Get("exporters::prometheus_remote_write::remote_write_queue"))
	assert.False(t, rw.IsSet("exporters::prometheus_remote_write::sending_queue"))
	assert.False(t, rw.IsSet("extensions"))

	otlp, err := overrideWith(t, "otlp", nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"enabled": true, "queue_size": 10000}, otlp.Get("exporters::otlp_http::sending_queue"))
	assert.False(t, otlp.IsSet("extensions"))
}

// With it, each override's exporter keeps its sending queue on disk in that directory, bounded
// in bytes, through the file_storage extension the override adds; used together, the two
// overrides name the same extension, and their queues share its directory (file_storage
// gives each exporter a file of its own).
func TestOverridesQueueOnDiskInTheDirectoryGiven(t *testing.T) {
	want := map[string]any{"enabled": true, "storage": "file_storage", "sizer": "bytes", "queue_size": QueueBytes}
	rw, err := overrideWith(t, "remote-write", map[string]string{QueueDirVariable: "/var/lib/otelcol-modelplane"})
	require.NoError(t, err)
	assert.Equal(t, want, rw.Get("exporters::prometheus_remote_write::sending_queue"))
	assert.False(t, rw.IsSet("exporters::prometheus_remote_write::remote_write_queue"), "contrib's queue in memory is replaced, not kept beside it")

	otlp, err := overrideWith(t, "otlp", map[string]string{QueueDirVariable: "/var/lib/otelcol-modelplane"})
	require.NoError(t, err)
	assert.Equal(t, want, otlp.Get("exporters::otlp_http::sending_queue"))

	both := confmap.New()
	require.NoError(t, both.Merge(rw))
	require.NoError(t, both.Merge(otlp))
	assert.Equal(t, map[string]any{"directory": "/var/lib/otelcol-modelplane", "create_directory": true}, both.Get("extensions::file_storage"))
	assert.Equal(t, []any{"file_storage"}, both.Get("service::extensions"))
	assert.Equal(t, want, both.Get("exporters::prometheus_remote_write::sending_queue"))
	assert.Equal(t, want, both.Get("exporters::otlp_http::sending_queue"))
	// The rest of each override is as embedded.
	assert.Equal(t, []any{"prometheus", "otlp_http"}, both.Get("service::pipelines::metrics::exporters"))
	assert.Equal(t, 1, both.Get("exporters::prometheus_remote_write::max_batch_request_parallelism"))
}

// A directory the collector could not find again at its next start is refused, naming the
// variable, the value and the override; so are a file and a variable set but empty.
func TestAQueueDirectoryMustBeAbsolute(t *testing.T) {
	file := filepath.Join(t.TempDir(), "queue")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	for _, c := range []struct{ dir, want string }{
		{file, `modelplane:remote-write: MODELPLANE_QUEUE_DIR="` + file + `": not a directory`},
		{"", `modelplane:remote-write: MODELPLANE_QUEUE_DIR="": set but empty; unset it to keep the sending queue in memory, or give a directory such as /var/lib/otelcol-modelplane`},
		{"queue", `modelplane:remote-write: MODELPLANE_QUEUE_DIR="queue": not an absolute path; the collector must find the same directory at every start, such as /var/lib/otelcol-modelplane`},
	} {
		_, err := overrideWith(t, "remote-write", map[string]string{QueueDirVariable: c.dir})
		assert.EqualError(t, err, c.want)
	}
	// The default itself has no queue: the variable is the overrides' alone.
	t.Setenv(QueueDirVariable, "queue")
	r, err := provider{logger: zap.NewNop()}.Retrieve(context.Background(), URI, nil)
	require.NoError(t, err)
	require.NoError(t, r.Close(context.Background()))
}
