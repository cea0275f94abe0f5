// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package prometheusremotewriteexporter

import (
	"errors"
	"fmt"

	contrib "github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusremotewriteexporter"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
)

// queueKey is the key of the sending queue, as the collector's own exporters name it.
const queueKey = "sending_queue"

// Config is contrib's configuration, every key of it as contrib reads it, and a sending
// queue that can be persistent: contrib's remote_write_queue lives in memory, so a
// collector restarted during an outage lost what it had queued.
type Config struct {
	contrib.Config `mapstructure:",squash"`

	// SendingQueue, where set, queues the batches in front of the exporter, on disk with
	// `storage` naming a storage extension (file_storage): contrib's own queue and retries
	// are then off, and this queue's `retry_on_failure` (contrib's key) retries each batch.
	SendingQueue configoptional.Optional[exporterhelper.QueueBatchConfig] `mapstructure:"sending_queue"`
}

func createDefaultConfig(remote *contrib.Config) *Config {
	queue := exporterhelper.NewDefaultQueueConfig()
	// One batch at a time, oldest first: a backend refuses a sample older than the newest it
	// holds of its series, so a later batch written first would make it refuse the earlier.
	queue.NumConsumers = 1
	// What contrib's remote_write_queue holds.
	queue.QueueSize = int64(remote.RemoteWriteQueue.QueueSize)
	return &Config{Config: *remote, SendingQueue: configoptional.Default(queue)}
}

// Unmarshal reads sending_queue, then hands every other key to contrib's configuration,
// which reads them as contrib does (it moves the top-level HTTP client settings under
// `http`).
func (c *Config) Unmarshal(conf *confmap.Conf) error {
	rest := conf.ToStringMap()
	queue, hasQueue := rest[queueKey]
	delete(rest, queueKey)
	if err := confmap.NewFromStringMap(rest).Unmarshal(&c.Config); err != nil {
		return err
	}
	if !hasQueue {
		return nil
	}
	q := struct {
		Queue configoptional.Optional[exporterhelper.QueueBatchConfig] `mapstructure:"sending_queue"`
	}{c.SendingQueue}
	if err := confmap.NewFromStringMap(map[string]any{queueKey: queue}).Unmarshal(&q); err != nil {
		return err
	}
	c.SendingQueue = q.Queue
	return nil
}

// Validate checks what contrib's configuration and the queue's own checks do not: the queue
// sends in order, and it replaces the write-ahead log.
func (c *Config) Validate() error {
	if !c.SendingQueue.HasValue() {
		return nil
	}
	var errs []error
	if n := c.SendingQueue.Get().NumConsumers; n != 1 {
		errs = append(errs, fmt.Errorf("sending_queue::num_consumers: %d: a remote-write queue sends one batch at a time, "+
			"oldest first (a backend refuses a sample older than the newest of its series, so batches written side by side "+
			"lose data); set 1 or leave it out", n))
	}
	if c.WAL.HasValue() {
		errs = append(errs, errors.New("sending_queue and wal are both set: the sending queue (with storage) keeps what was not "+
			"written across restarts, the write-ahead log would do it a second time; keep one"))
	}
	return errors.Join(errs...)
}
