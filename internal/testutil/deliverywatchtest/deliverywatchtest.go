// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package deliverywatchtest holds what the tests of the watched exporters share: one
// exporter started with a configuration and an observed log, a batch to send, and the check
// that a wrapped factory is the one it wraps.
package deliverywatchtest // import "github.com/modelplaneai/otelcol-modelplane/internal/testutil/deliverywatchtest"

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/storage/filestorage"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/exporter/xexporter"
	"go.opentelemetry.io/collector/extension/extensiontest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/points"
)

// Retrying is the collector's line for each retry of an export (exporterhelper).
const Retrying = "Exporting failed. Will retry the request after interval."

// StartMetrics creates f's metrics exporter from its default configuration with conf laid
// over it, logging at info and above to the returned observer, and starts it; it is shut
// down when the test ends.
func StartMetrics(t *testing.T, f exporter.Factory, conf map[string]any) (exporter.Metrics, *observer.ObservedLogs) {
	t.Helper()
	exp, logs := StartMetricsUnstopped(t, f, conf)
	t.Cleanup(func() { assert.NoError(t, exp.Shutdown(context.Background())) })
	return exp, logs
}

// StartMetricsUnstopped is StartMetrics for a test that shuts the exporter down itself.
func StartMetricsUnstopped(t *testing.T, f exporter.Factory, conf map[string]any) (exporter.Metrics, *observer.ObservedLogs) {
	t.Helper()
	cfg := f.CreateDefaultConfig()
	require.NoError(t, confmap.NewFromStringMap(conf).Unmarshal(cfg))
	core, logs := observer.New(zapcore.InfoLevel)
	set := exportertest.NewNopSettings(f.Type())
	set.Logger = zap.New(core)
	exp, err := f.CreateMetrics(context.Background(), set, cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
	return exp, logs
}

// ServeAfterOutage serves HTTP on addr, answering 503 until it has refused five requests
// and then accepting them with status ok, and fails the test unless the export in flight
// (done) then succeeds.
func ServeAfterOutage(t *testing.T, addr string, ok int, done <-chan error) {
	t.Helper()
	var requests, accept atomic.Int32
	srv := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		if accept.Load() == 1 {
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.WriteHeader(ok)
			return
		}
		http.Error(w, "ingester unavailable", http.StatusServiceUnavailable)
	})}
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	require.Eventually(t, func() bool { return requests.Load() >= 5 }, 10*time.Second, 10*time.Millisecond)
	accept.Store(1)
	select {
	case err := <-done:
		require.NoError(t, err, "the export succeeds once the endpoint accepts it")
	case <-time.After(10 * time.Second):
		t.Fatal("the export did not succeed after the endpoint accepted data")
	}
}

// OneGauge is a batch of one point.
func OneGauge() pmetric.Metrics { return Gauge(3) }

// Gauge is a batch of one point of value v.
func Gauge(v float64) pmetric.Metrics {
	md := pmetric.NewMetrics()
	m := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("modelplane_queue_requests")
	dp := m.SetEmptyGauge().DataPoints().AppendEmpty()
	dp.SetTimestamp(pcommon.NewTimestampFromTime(time.Now()))
	dp.SetDoubleValue(v)
	return md
}

// Values returns the values of the points of mds, batch by batch, in order.
func Values(mds ...pmetric.Metrics) []float64 {
	var values []float64
	for _, md := range mds {
		points.WalkNumbers(md, func(_ pcommon.Map, _ pmetric.Metric, dp pmetric.NumberDataPoint) {
			values = append(values, points.Value(dp))
		})
	}
	return values
}

// AssertWraps checks that ours is theirs to a configuration: the same type, old type name
// (alias), default configuration and stability of every signal.
func AssertWraps(t *testing.T, ours, theirs exporter.Factory, alias string) {
	t.Helper()
	AssertWrapsAs(t, ours, theirs, alias, func(c component.Config) component.Config { return c })
}

// AssertWrapsWithOneConsumer is AssertWraps for a factory whose sending queue (where queue
// says) has one consumer by default where theirs has more; a configuration that sets
// num_consumers gets what it sets.
func AssertWrapsWithOneConsumer(t *testing.T, ours, theirs exporter.Factory, alias string,
	queue func(component.Config) *configoptional.Optional[exporterhelper.QueueBatchConfig],
) {
	t.Helper()
	theirsConsumers := queue(theirs.CreateDefaultConfig()).Get().NumConsumers
	require.Greater(t, theirsConsumers, 1, "the collector's default")
	AssertWrapsAs(t, ours, theirs, alias, func(c component.Config) component.Config {
		queue(c).Get().NumConsumers = theirsConsumers
		return c
	})
	for conf, want := range map[string]int{"": 1, "queue_size: 5": 1, "num_consumers: 4": 4} {
		cfg := ours.CreateDefaultConfig()
		require.NoError(t, confmap.NewFromStringMap(map[string]any{"sending_queue": yamlMap(t, conf)}).Unmarshal(cfg), conf)
		assert.Equal(t, want, queue(cfg).Get().NumConsumers, "sending_queue: {%s}", conf)
	}
}

// yamlMap is a one-line "key: value" as a map; "" is an empty one.
func yamlMap(t *testing.T, line string) map[string]any {
	t.Helper()
	m := map[string]any{}
	if key, value, ok := strings.Cut(line, ": "); ok {
		n, err := strconv.Atoi(value)
		require.NoError(t, err, line)
		m[key] = n
	}
	return m
}

// AssertWrapsAs is AssertWraps for a factory whose configuration holds theirs: theirsOf
// returns the part of our default configuration that is theirs.
func AssertWrapsAs(t *testing.T, ours, theirs exporter.Factory, alias string, theirsOf func(component.Config) component.Config) {
	t.Helper()
	assert.Equal(t, theirs.Type(), ours.Type())
	assert.Equal(t, theirs.CreateDefaultConfig(), theirsOf(ours.CreateDefaultConfig()))
	assert.Equal(t, theirs.TracesStability(), ours.TracesStability())
	assert.Equal(t, theirs.MetricsStability(), ours.MetricsStability())
	assert.Equal(t, theirs.LogsStability(), ours.LogsStability())
	if x, ok := theirs.(xexporter.Factory); ok {
		assert.Equal(t, x.ProfilesStability(), ours.(xexporter.Factory).ProfilesStability())
	}
	a, ok := ours.(interface{ DeprecatedAlias() component.Type })
	require.True(t, ok)
	assert.Equal(t, alias, a.DeprecatedAlias().String(), "configurations that name the old type still load")
}

// ShutDown runs an exporter's shutdown and fails the test if it has not returned after a
// minute, where an exporter waiting on its endpoint would go on for its timeout (minutes).
func ShutDown(t *testing.T, shutdown func(context.Context) error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- shutdown(context.Background()) }()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(time.Minute):
		t.Fatal("the exporter still waits for its endpoint a minute into its shutdown: the collector cannot stop")
	}
}

// Storage is the ID of the file_storage extension StartFileStorage starts, for an exporter's
// sending_queue.storage.
var Storage = component.MustNewID("file_storage")

// StartFileStorage starts a file_storage extension on dir; the caller shuts it down.
func StartFileStorage(t *testing.T, dir string) component.Component {
	t.Helper()
	f := filestorage.NewFactory()
	cfg := f.CreateDefaultConfig().(*filestorage.Config)
	cfg.Directory = dir
	ext, err := f.Create(context.Background(), extensiontest.NewNopSettings(f.Type()), cfg)
	require.NoError(t, err)
	require.NoError(t, ext.Start(context.Background(), componenttest.NewNopHost()))
	return ext
}

// StartMetricsWithStorage is StartMetricsUnstopped on a host whose Storage is storage. The
// exporter's ID is the same at every call, as a restarted collector's is: its persistent
// queue's file is named after it.
func StartMetricsWithStorage(t *testing.T, f exporter.Factory, conf map[string]any, storage component.Component) (exporter.Metrics, *observer.ObservedLogs) {
	t.Helper()
	cfg := f.CreateDefaultConfig()
	require.NoError(t, confmap.NewFromStringMap(conf).Unmarshal(cfg))
	core, logs := observer.New(zapcore.InfoLevel)
	set := exportertest.NewNopSettings(f.Type())
	set.ID = component.NewID(f.Type()) // NewNopSettings names each exporter anew
	set.Logger = zap.New(core)
	exp, err := f.CreateMetrics(context.Background(), set, cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), hostWith{Storage: storage}))
	return exp, logs
}

// StopWithThreeQueued starts f's exporter as StartMetricsUnstopped does, queues three
// batches of one point (values 1, 2, 3), stops it once inFlight says the first request is
// out, and returns its log.
func StopWithThreeQueued(t *testing.T, f exporter.Factory, conf map[string]any, inFlight func() bool) *observer.ObservedLogs {
	t.Helper()
	exp, logs := StartMetricsUnstopped(t, f, conf)
	stopWithThreeQueued(t, exp, inFlight)
	return logs
}

func stopWithThreeQueued(t *testing.T, exp exporter.Metrics, inFlight func() bool) {
	t.Helper()
	for v := range 3 {
		require.NoError(t, exp.ConsumeMetrics(context.Background(), Gauge(float64(v+1))))
	}
	require.Eventually(t, inFlight, 10*time.Second, 10*time.Millisecond)
	time.Sleep(100 * time.Millisecond) // a gRPC call waits on its connection
	ShutDown(t, exp.Shutdown)
}

// StopKeepingTheQueue runs f's exporter with a persistent queue (conf(endpoint)) across a stop:
// three batches, the first sent to hanging, stopped with nothing dropped; then one of the same
// ID sends what the queue kept to answering. It returns the stopped exporter's log.
func StopKeepingTheQueue(t *testing.T, f exporter.Factory, conf func(endpoint string) map[string]any,
	hanging string, inFlight func() bool, answering string,
) *observer.ObservedLogs {
	t.Helper()
	dir := t.TempDir()
	storage := StartFileStorage(t, dir)
	exp, logs := StartMetricsWithStorage(t, f, conf(hanging), storage)
	stopWithThreeQueued(t, exp, inFlight)
	require.NoError(t, storage.Shutdown(context.Background()))
	assert.Empty(t, logs.FilterMessageSnippet("Dropping data").All())

	storage = StartFileStorage(t, dir)
	t.Cleanup(func() { assert.NoError(t, storage.Shutdown(context.Background())) })
	exp, _ = StartMetricsWithStorage(t, f, conf(answering), storage)
	t.Cleanup(func() { assert.NoError(t, exp.Shutdown(context.Background())) })
	return logs
}

// hostWith is a host whose extensions are its entries.
type hostWith map[component.ID]component.Component

func (h hostWith) GetExtensions() map[component.ID]component.Component { return h }

// KeptPoints sums the points an exporter says its persistent queue kept at a stop.
func KeptPoints(logs *observer.ObservedLogs) int64 {
	var n int64
	for _, e := range logs.FilterMessage(deliverywatch.Kept).All() {
		n += e.ContextMap()["kept_items"].(int64)
	}
	return n
}

// DroppedPoints sums the points an exporter's queue says it dropped.
func DroppedPoints(logs *observer.ObservedLogs) int64 {
	var n int64
	for _, e := range logs.FilterMessageSnippet(deliverywatch.Dropping).All() {
		n += e.ContextMap()["dropped_items"].(int64)
	}
	return n
}

// CondensedLines asserts that five batches refused or dropped for one cause are logged as
// message: the first as it came, with the note, and the four held counted in one line or two
// at the stop, their points in items. It returns the first line's fields.
func CondensedLines(t *testing.T, logs *observer.ObservedLogs, message, items string) map[string]any {
	t.Helper()
	lines := logs.FilterMessageSnippet(message).All()
	require.GreaterOrEqual(t, len(lines), 2, "five batches with one cause: the first, and the repeats held at the stop")
	require.LessOrEqual(t, len(lines), 3, "the first, and the repeats held before and after the shutdown")
	first := lines[0].ContextMap()
	assert.EqualValues(t, 1, first[items])
	assert.Contains(t, first["note"], "logged once every 5m0s")
	var repeats, points int64
	for _, l := range lines[1:] {
		held := l.ContextMap()
		assert.Equal(t, deliverywatch.FlushNote, held["note"])
		assert.Equal(t, first["error"], held["error"])
		repeats += held["repeats"].(int64)
		points += held[items].(int64)
	}
	assert.EqualValues(t, 4, repeats, "the four held")
	assert.EqualValues(t, 4, points, "the points of the four")
	return first
}
