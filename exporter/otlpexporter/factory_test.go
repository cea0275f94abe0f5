// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package otlpexporter

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/exportertest"
	core "go.opentelemetry.io/collector/exporter/otlpexporter"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/deliverywatchtest"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
)

func TestFactoryIsTheCollectors(t *testing.T) {
	f := NewFactory()
	assert.Equal(t, "otlp_grpc", f.Type().String())
	// One consumer where the collector's queue has 10 (deliverywatch.OneConsumer); the rest is the collector's.
	deliverywatchtest.AssertWrapsWithOneConsumer(t, f, core.NewFactory(), "otlp",
		func(c component.Config) *configoptional.Optional[exporterhelper.QueueBatchConfig] {
			return queue(c.(*core.Config))
		})

	cfg := f.CreateDefaultConfig().(*core.Config)
	cfg.ClientConfig.Endpoint = "127.0.0.1:1"
	exp, err := f.CreateTraces(context.Background(), exportertest.NewNopSettings(f.Type()), cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, exp.Shutdown(context.Background()))
	assert.Empty(t, cfg.ClientConfig.Middlewares, "the configuration the collector holds is left as it was")
}

// An endpoint that refuses connections, then a real OTLP receiver there: the collector's
// retry logs every retry. This exporter logs one line for the refused connections and one
// when the receiver takes the data, which it then holds.
func TestAnOutageIsLoggedAtItsStartAndItsEnd(t *testing.T) {
	lines, again, sink := runOutage(t, NewFactory())
	assert.Equal(t, 1, lines, "refused connections, one line")
	require.Len(t, again, 1)
	assert.GreaterOrEqual(t, again[0].ContextMap()["failed_requests"], int64(2))
	assert.Equal(t, 1, sink.DataPointCount())
}

// The collector's own exporter logs every retry and nothing at the end.
func TestTheCollectorsExporterLogsEveryRetry(t *testing.T) {
	lines, again, sink := runOutage(t, core.NewFactory())
	assert.Greater(t, lines, 5)
	assert.Empty(t, again)
	assert.Equal(t, 1, sink.DataPointCount())
}

func runOutage(t *testing.T, f exporter.Factory) (retries int, again []observer.LoggedEntry, sink *consumertest.MetricsSink) {
	addr := freeport.Addr(t)
	exp, logs := deliverywatchtest.StartMetrics(t, f, map[string]any{
		"endpoint":         addr,
		"tls":              map[string]any{"insecure": true},
		"sending_queue":    map[string]any{"enabled": false},
		"retry_on_failure": map[string]any{"enabled": true, "initial_interval": "20ms", "max_interval": "50ms", "max_elapsed_time": 0},
	})
	done := make(chan error, 1)
	go func() { done <- exp.ConsumeMetrics(context.Background(), deliverywatchtest.OneGauge()) }()
	time.Sleep(500 * time.Millisecond) // refused, about ten retries

	sink = serveOTLP(t, addr)
	select {
	case err := <-done:
		require.NoError(t, err, "the export succeeds once the receiver takes it")
	case <-time.After(20 * time.Second):
		t.Fatal("the export did not succeed after the receiver started")
	}
	return logs.FilterMessage(deliverywatchtest.Retrying).Len(), logs.FilterMessage(deliverywatch.AnswersAgain).All(), sink
}

// An endpoint that takes connections and never answers (a network that drops packets, a
// hung backend): a stopping exporter cancels the call in flight after the time it is given
// and makes no other, so the collector stops; its in-memory queue drops what is left,
// counted. Before, each batch the queue held waited for the export's timeout in turn.
func TestAStoppingExporterGivesUpOnAnEndpointThatDoesNotAnswer(t *testing.T) {
	addr, accepted := silent(t)
	logs := deliverywatchtest.StopWithThreeQueued(t, newFactory(300*time.Millisecond),
		queueConfig(addr, map[string]any{"enabled": true, "queue_size": 100}), func() bool { return accepted.Load() >= 1 })

	gaveUp := logs.FilterMessage(deliverywatch.GivesUp).All()
	require.Len(t, gaveUp, 1)
	assert.Equal(t, addr, gaveUp[0].ContextMap()["endpoint"])
	assert.EqualValues(t, 3, deliverywatchtest.DroppedPoints(logs))
}

// silent listens on a loopback address, takes connections and never speaks, and counts them.
func silent(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", freeport.Addr(t))
	require.NoError(t, err)
	var accepted atomic.Int32
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			t.Cleanup(func() { _ = conn.Close() })
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return ln.Addr().String(), &accepted
}

// queueConfig is a delivery configuration with a client timeout of 10 minutes and one
// consumer, so that one call is in flight when the exporter stops.
func queueConfig(endpoint string, queue map[string]any) map[string]any {
	queue["num_consumers"] = 1
	return map[string]any{
		"endpoint":         endpoint,
		"tls":              map[string]any{"insecure": true},
		"timeout":          "10m",
		"sending_queue":    queue,
		"retry_on_failure": map[string]any{"enabled": true, "initial_interval": "20ms", "max_interval": "100ms", "max_elapsed_time": 0},
	}
}

// With a persistent sending queue (the Helm chart's default for OTLP sinks), what a stopping
// exporter gives up on stays on disk: the next start sends it, the call that was in flight
// included and first, and the log says it was kept, not dropped.
func TestAStoppingExporterKeepsAPersistentQueue(t *testing.T) {
	conf := func(endpoint string) map[string]any {
		return queueConfig(endpoint, map[string]any{"enabled": true, "queue_size": 100, "storage": deliverywatchtest.Storage.String()})
	}
	addr, accepted := silent(t)
	rcvAddr := freeport.Addr(t)
	sink := serveOTLP(t, rcvAddr)
	logs := deliverywatchtest.StopKeepingTheQueue(t, newFactory(300*time.Millisecond), conf,
		addr, func() bool { return accepted.Load() >= 1 }, rcvAddr)
	assert.EqualValues(t, 1, deliverywatchtest.KeptPoints(logs), "the call in flight")
	require.Eventually(t, func() bool { return sink.DataPointCount() == 3 }, 10*time.Second, 10*time.Millisecond,
		"every queued point, the one in flight at the stop included, is sent at the next start")
	assert.Equal(t, []float64{1, 2, 3}, deliverywatchtest.Values(sink.AllMetrics()...), "in the order they were queued, the one in flight at the stop first")
}

// serveOTLP starts the collector's OTLP receiver with gRPC on addr, into the returned sink.
func serveOTLP(t *testing.T, addr string) *consumertest.MetricsSink {
	t.Helper()
	rf := otlpreceiver.NewFactory()
	rcfg := rf.CreateDefaultConfig()
	require.NoError(t, confmap.NewFromStringMap(map[string]any{
		"protocols": map[string]any{"grpc": map[string]any{"endpoint": addr}},
	}).Unmarshal(rcfg))
	sink := new(consumertest.MetricsSink)
	rcv, err := rf.CreateMetrics(context.Background(), receivertest.NewNopSettings(rf.Type()), rcfg, sink)
	require.NoError(t, err)
	require.NoError(t, rcv.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { assert.NoError(t, rcv.Shutdown(context.Background())) })
	return sink
}
