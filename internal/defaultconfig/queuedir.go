// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// QueueDirVariable names the directory in which the remote-write and OTLP overrides keep
// their exporter's sending queue on disk, so that a restart during an outage loses nothing.
// Unset, the queue is in memory (docs/reliability.md).
const QueueDirVariable = "MODELPLANE_QUEUE_DIR"

// queueStorage is the storage extension that holds the queues: the name the chart and the
// standalone install give theirs, so a configuration of one's own merged over the overrides
// finds the same one.
const queueStorage = "file_storage"

// QueueBytes bounds each exporter's queue on disk: a backend away for longer fills it, and
// the exporter then refuses and counts what comes next (otelcol_exporter_enqueue_failed_*)
// rather than filling the host's disk. The chart's sinks share 512 MiB the same way.
const QueueBytes = 256 << 20

// queuedExporters are the exporter each override adds, by the override's name.
var queuedExporters = map[string]string{"remote-write": "prometheus_remote_write", "otlp": "otlp_http"}

// queueOnDisk moves the queue of the exporter that the override name adds to disk, in the
// directory lookup gives QueueDirVariable, where it gives one. raw is the override, parsed.
func queueOnDisk(name string, raw map[string]any, lookup func(string) (string, bool)) error {
	dir, set := lookup(QueueDirVariable)
	exporter, queued := queuedExporters[name]
	if !set || !queued {
		return nil
	}
	if err := checkQueueDir(dir); err != nil {
		return fmt.Errorf("%s=%q: %w", QueueDirVariable, dir, err)
	}
	cfg := raw["exporters"].(map[string]any)[exporter].(map[string]any)
	// Contrib's remote-write queue is the one in memory; the sending queue replaces it.
	delete(cfg, "remote_write_queue")
	cfg["sending_queue"] = map[string]any{"enabled": true, "storage": queueStorage, "sizer": "bytes", "queue_size": QueueBytes}
	raw["extensions"] = map[string]any{queueStorage: map[string]any{"directory": dir, "create_directory": true}}
	raw["service"].(map[string]any)["extensions"] = []any{queueStorage}
	return nil
}

func checkQueueDir(dir string) error {
	switch {
	case dir == "":
		return errors.New("set but empty; unset it to keep the sending queue in memory, or give a directory such as /var/lib/otelcol-modelplane")
	case !filepath.IsAbs(dir):
		// Relative to wherever the collector was started: a restart from elsewhere would not
		// find the queue it left.
		return errors.New("not an absolute path; the collector must find the same directory at every start, such as /var/lib/otelcol-modelplane")
	}
	// A missing one is created as the collector starts.
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return errors.New("not a directory")
	}
	return nil
}
