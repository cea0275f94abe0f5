// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package prometheusremotewriteexporter

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/prometheus/prompb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/exporter/exportertest"
	xstorage "go.opentelemetry.io/collector/extension/xextension/storage"
	"go.opentelemetry.io/collector/featuregate"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pipeline"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"go.uber.org/zap/zapcore"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/deliverywatchtest"
)

// load reads conf into the exporter's configuration as the collector does, and validates it.
func load(t *testing.T, conf map[string]any) (*Config, error) {
	t.Helper()
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	require.NoError(t, confmap.NewFromStringMap(conf).Unmarshal(cfg))
	return cfg, confmap.Validate(cfg)
}

func TestSendingQueueIsReadBesideContribsKeys(t *testing.T) {
	cfg, err := load(t, map[string]any{
		"endpoint":      "http://prometheus:9090/api/v1/write",
		"sending_queue": map[string]any{"storage": "file_storage", "queue_size": 500},
	})
	require.NoError(t, err)
	assert.Equal(t, "http://prometheus:9090/api/v1/write", cfg.HTTP.Endpoint, "contrib's top-level client settings still move under http")
	require.True(t, cfg.SendingQueue.HasValue())
	q := cfg.SendingQueue.Get()
	assert.Equal(t, "file_storage", q.StorageID.String())
	assert.EqualValues(t, 500, q.QueueSize)
	assert.Equal(t, 1, q.NumConsumers, "one batch at a time unless set")

	cfg, err = load(t, map[string]any{"endpoint": "http://prometheus:9090/api/v1/write", "sending_queue": map[string]any{"enabled": false}})
	require.NoError(t, err)
	assert.False(t, cfg.SendingQueue.HasValue())

	cfg, err = load(t, map[string]any{"endpoint": "http://prometheus:9090/api/v1/write", "sending_queue": map[string]any{"storage": "file_storage"}})
	require.NoError(t, err)
	assert.EqualValues(t, 10000, cfg.SendingQueue.Get().QueueSize, "the default size, as contrib's remote_write_queue")
}

func TestSendingQueueMistakesAreNamed(t *testing.T) {
	_, err := load(t, map[string]any{
		"endpoint":      "http://prometheus:9090/api/v1/write",
		"sending_queue": map[string]any{"num_consumers": 4},
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sending_queue::num_consumers: 4: a remote-write queue sends one batch at a time")

	_, err = load(t, map[string]any{
		"endpoint":      "http://prometheus:9090/api/v1/write",
		"sending_queue": map[string]any{"storage": "file_storage"},
		"wal":           map[string]any{"directory": t.TempDir()},
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sending_queue and wal are both set")

	// Contrib's own checks still run.
	_, err = load(t, map[string]any{"endpoint": "http://prometheus:9090/api/v1/write", "compression": "gzip"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "compression type must be snappy")

	// A key the queue does not know is refused by name.
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	err = confmap.NewFromStringMap(map[string]any{"endpoint": "http://p:9090/api/v1/write", "sending_queue": map[string]any{"storag": "file_storage"}}).Unmarshal(cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "storag")
}

// remoteWrites serves remote write on a loopback address and counts the samples written.
func remoteWrites(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	endpoint, samples, _ := remoteWritesInOrder(t)
	return endpoint, samples
}

// remoteWritesInOrder is remoteWrites that also returns the values of the samples
// modelplane_queue_requests written so far, in the order they came.
func remoteWritesInOrder(t *testing.T) (string, *atomic.Int32, func() []float64) {
	t.Helper()
	var samples atomic.Int32
	var mu sync.Mutex
	var values []float64
	endpoint, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err == nil {
			if raw, err := snappy.Decode(nil, body); err == nil {
				var req prompb.WriteRequest
				if req.Unmarshal(raw) == nil {
					for _, ts := range req.Timeseries {
						mu.Lock()
						for _, l := range ts.Labels {
							if l.Name == "__name__" && l.Value == "modelplane_queue_requests" {
								for _, s := range ts.Samples {
									values = append(values, s.Value)
								}
							}
						}
						mu.Unlock()
						samples.Add(int32(len(ts.Samples)))
					}
				}
			}
		}
		w.WriteHeader(http.StatusNoContent)
	})
	return endpoint, &samples, func() []float64 {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(values)
	}
}

// A collector stopped while its remote-write backend takes writes and never answers keeps,
// with a persistent sending queue, every batch it had not written, the one in flight
// included, and writes them at its next start, in the order they came: the one in flight
// first, where the collector's queue would put it last and a backend refuse its samples as
// older than those written before them. Contrib's remote_write_queue is in memory, so the
// same stop lost them (TestAStoppingExporterGivesUpOnAFailingEndpoint).
func TestAStoppingExporterKeepsAPersistentQueue(t *testing.T) {
	conf := func(endpoint string) map[string]any {
		return map[string]any{
			"endpoint":         endpoint,
			"timeout":          "10m",
			"sending_queue":    map[string]any{"storage": deliverywatchtest.Storage.String(), "queue_size": 100},
			"retry_on_failure": map[string]any{"enabled": true, "initial_interval": "20ms", "max_interval": "100ms", "max_elapsed_time": 0},
		}
	}
	hanging, writes := serve(t, func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	answering, samples, values := remoteWritesInOrder(t)

	logs := deliverywatchtest.StopKeepingTheQueue(t, newFactory(300*time.Millisecond), conf,
		hanging, func() bool { return writes.Load() == 1 }, answering)
	gaveUp := logs.FilterMessage(deliverywatch.GivesUp).All()
	require.Len(t, gaveUp, 1)
	assert.Equal(t, "persistent: what is left is kept for the next start", gaveUp[0].ContextMap()["queue"])
	kept := logs.FilterMessage(deliverywatch.Kept).All()
	require.Len(t, kept, 1, "the write in flight")
	assert.Equal(t, zapcore.WarnLevel, kept[0].Level)
	assert.EqualValues(t, 1, writes.Load(), "one write at a time: the others waited in the queue")
	require.Eventually(t, func() bool { return samples.Load() == 3 }, 10*time.Second, 10*time.Millisecond,
		"every queued sample, the one in flight at the stop included, is written at the next start")
	assert.Equal(t, []float64{1, 2, 3}, values(), "in the order they were queued, the one in flight at the stop first")
}

// With a sending queue, an outage is retried by the queue, logged as contrib's exporter logs
// it here (one line for the failures, one when writes are accepted again), and the batch is
// written once the backend takes it: a backend that is down (503), and one that limits its
// rate (429, retried with the gate this distribution turns on).
func TestASendingQueueRetriesThroughAnOutage(t *testing.T) {
	require.NoError(t, featuregate.GlobalRegistry().Set(retryOn429, true))
	t.Cleanup(func() { require.NoError(t, featuregate.GlobalRegistry().Set(retryOn429, false)) })
	for _, status := range []int{http.StatusServiceUnavailable, http.StatusTooManyRequests} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			var accept atomic.Bool
			var written atomic.Int32
			endpoint, writes := serve(t, func(w http.ResponseWriter, _ *http.Request) {
				if !accept.Load() {
					http.Error(w, http.StatusText(status), status)
					return
				}
				written.Add(1)
				w.WriteHeader(http.StatusNoContent)
			})
			exp, logs := deliverywatchtest.StartMetrics(t, NewFactory(), map[string]any{
				"endpoint":         endpoint,
				"sending_queue":    map[string]any{"queue_size": 10},
				"retry_on_failure": map[string]any{"enabled": true, "initial_interval": "20ms", "max_interval": "50ms", "max_elapsed_time": 0},
			})
			require.NoError(t, exp.ConsumeMetrics(context.Background(), deliverywatchtest.OneGauge()))
			require.Eventually(t, func() bool { return writes.Load() >= 5 }, 10*time.Second, 10*time.Millisecond)
			accept.Store(true)
			require.Eventually(t, func() bool { return written.Load() == 1 }, 10*time.Second, 10*time.Millisecond)
			// The server counts the write before the exporter reads its answer and logs it.
			require.Eventually(t, func() bool { return logs.FilterMessage(deliverywatch.AnswersAgain).Len() > 0 }, 10*time.Second, 10*time.Millisecond)

			assert.Len(t, logs.FilterMessage(refusedWrite).All(), 1, "five or more refusals, one line")
			assert.LessOrEqual(t, logs.FilterMessage(deliverywatchtest.Retrying).Len(), 1, "the queue's retries, condensed")
			assert.Len(t, logs.FilterMessage(deliverywatch.AnswersAgain).All(), 1, "one line when writes are taken again")
			assert.Zero(t, logs.FilterMessageSnippet(deliverywatch.Rejecting).Len(), "no error line, with a stack trace, for each failed write the queue retries")
		})
	}
}

// A queue record this distribution cannot read (here, a field that exporterhelper v0.161.0
// does not write) is left to the collector's queue as it is: one warning names the storage
// and what is wrong, and the exporter starts and writes what it is given.
func TestAQueueRecordItCannotReadIsLeftToTheQueue(t *testing.T) {
	dir := t.TempDir()
	storage := deliverywatchtest.StartFileStorage(t, dir)
	t.Cleanup(func() { assert.NoError(t, storage.Shutdown(context.Background())) })
	client, err := storage.(xstorage.Extension).GetClient(context.Background(), component.KindExporter,
		component.NewID(NewFactory().Type()), pipeline.SignalMetrics.String())
	require.NoError(t, err)
	// The queue's record ("qmv0"), with field 9 = 1 (a varint).
	require.NoError(t, client.Set(context.Background(), "qmv0", []byte{9 << 3, 1}))
	require.NoError(t, client.Close(context.Background()))

	endpoint, samples := remoteWrites(t)
	exp, logs := deliverywatchtest.StartMetricsWithStorage(t, NewFactory(), map[string]any{
		"endpoint":      endpoint,
		"sending_queue": map[string]any{"storage": deliverywatchtest.Storage.String()},
	}, storage)
	t.Cleanup(func() { assert.NoError(t, exp.Shutdown(context.Background())) })
	warned := logs.FilterMessageSnippet("could not be put first in the persistent sending queue").All()
	require.Len(t, warned, 1)
	assert.Equal(t, zapcore.WarnLevel, warned[0].Level)
	assert.Equal(t, "file_storage", warned[0].ContextMap()["storage"])
	assert.Equal(t, `queue record "qmv0": field 9 of wire type 0: not in the layout of exporterhelper's persistent queue`, warned[0].ContextMap()["error"])
	require.NoError(t, exp.ConsumeMetrics(context.Background(), deliverywatchtest.OneGauge()))
	require.Eventually(t, func() bool { return samples.Load() == 1 }, 10*time.Second, 10*time.Millisecond)
}

// retryOn429 is contrib's gate for retrying a 429, which otelcol-modelplane turns on.
const retryOn429 = "exporter.prometheusremotewritexporter.RetryOn429"

// The points sent are counted once: by the queue's exporterhelper, not again by contrib's.
// Contrib's own metrics (the series translated) stay.
func TestAQueuedPointIsCountedOnce(t *testing.T) {
	endpoint, samples := remoteWrites(t)
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	f := NewFactory()
	cfg, err := load(t, map[string]any{"endpoint": endpoint, "sending_queue": map[string]any{"queue_size": 10}})
	require.NoError(t, err)
	set := exportertest.NewNopSettings(f.Type())
	set.TelemetrySettings = tel.NewTelemetrySettings()
	exp, err := f.CreateMetrics(context.Background(), set, cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, exp.ConsumeMetrics(context.Background(), deliverywatchtest.OneGauge()))
	require.Eventually(t, func() bool { return samples.Load() == 1 }, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, exp.Shutdown(context.Background()))

	sent, err := tel.GetMetric("otelcol_exporter_sent_metric_points")
	require.NoError(t, err)
	var total int64
	for _, dp := range sent.Data.(metricdata.Sum[int64]).DataPoints {
		total += dp.Value
	}
	assert.EqualValues(t, 1, total, "one point sent, counted once")
	_, err = tel.GetMetric("otelcol_exporter_prometheusremotewrite_translated_time_series")
	assert.NoError(t, err, "contrib's own metrics are still recorded")
}

// A queue on disk bounded in bytes takes its size in its file and one storage chunk more
// (bbolt grows its file 16 MiB at a time; 16.2-17.7 MiB over for queues of 16, 32 and 64 MiB,
// filled by an outage and drained up to ten times, when measured), however often that
// happens: the Helm chart sizes the emptyDir of its sinks' queues on this, so that a queue
// fills before the kubelet evicts the pod for outgrowing the volume.
func TestADiskQueueFileStaysWithinItsSizeAndAChunk(t *testing.T) {
	var up atomic.Bool
	endpoint, _ := serve(t, func(w http.ResponseWriter, _ *http.Request) {
		if up.Load() {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		http.Error(w, "ingester unavailable", http.StatusServiceUnavailable)
	})
	dir := t.TempDir()
	storage := deliverywatchtest.StartFileStorage(t, dir)
	t.Cleanup(func() { assert.NoError(t, storage.Shutdown(context.Background())) })
	const size = 16 << 20
	exp, _ := deliverywatchtest.StartMetricsWithStorage(t, NewFactory(), map[string]any{
		"endpoint":         endpoint,
		"sending_queue":    map[string]any{"storage": deliverywatchtest.Storage.String(), "sizer": "bytes", "queue_size": size},
		"retry_on_failure": map[string]any{"enabled": true, "initial_interval": "50ms", "max_interval": "100ms", "max_elapsed_time": 0},
	}, storage)
	t.Cleanup(func() { assert.NoError(t, exp.Shutdown(context.Background())) })
	fill := func() {
		refused := 0
		for i := 0; refused < 10; i++ {
			require.Less(t, i, 10000, "the queue never filled")
			if exp.ConsumeMetrics(context.Background(), nodeBatch(800+i%400)) != nil {
				refused++
			}
		}
	}
	for range 3 { // an outage fills it, the backend drains it, scrapes go on meanwhile
		up.Store(false)
		fill()
		up.Store(true)
		require.Eventually(t, func() bool { return exp.ConsumeMetrics(context.Background(), nodeBatch(1000)) == nil },
			10*time.Second, 20*time.Millisecond, "the queue drains once the backend takes writes")
		for range 30 {
			_ = exp.ConsumeMetrics(context.Background(), nodeBatch(1000))
			time.Sleep(20 * time.Millisecond)
		}
	}
	up.Store(false)
	fill()
	var files int64
	require.NoError(t, filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			info, err := d.Info()
			if err == nil {
				files += info.Size()
			}
		}
		return err
	}))
	t.Logf("a full queue of %d bytes takes %d bytes on disk, %.1f MiB more", size, files, float64(files-size)/(1<<20))
	assert.Less(t, files, int64(size+24<<20))
}

// nodeBatch is a batch of n gauge points with a node's identity labels.
func nodeBatch(n int) pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "vllm")
	ms := rm.ScopeMetrics().AppendEmpty().Metrics()
	now := pcommon.NewTimestampFromTime(time.Now())
	for i := range n {
		m := ms.AppendEmpty()
		m.SetName(fmt.Sprintf("modelplane_metric_%d", i%40))
		dp := m.SetEmptyGauge().DataPoints().AppendEmpty()
		dp.SetTimestamp(now)
		dp.SetDoubleValue(float64(i))
		for _, k := range []string{"cluster", "namespace", "deployment", "replica", "engine", "node", "model_name"} {
			dp.Attributes().PutStr(k, fmt.Sprintf("%s-%d", k, i%8))
		}
	}
	return md
}
