// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

//go:build cgo

package dcgmreceiver

import (
	"context"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/demofleet"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/scrapetest"
	"github.com/modelplaneai/otelcol-modelplane/receiver/dcgmreceiver/internal/metadatatest"
)

// deferringReceiver runs the receiver on a two-GPU node with defer_to_exporter at addr.
func deferringReceiver(t *testing.T, addr string) (*consumertest.MetricsSink, *componenttest.Telemetry, *observer.ObservedLogs) {
	t.Helper()
	f := withNVML(newFakeNode(h100State(), l4State()))
	cfg := testConfig(t)
	cfg.CollectionInterval = 50 * time.Millisecond
	cfg.DeferToExporter = addr
	require.NoError(t, cfg.Validate())
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	set := metadatatest.NewSettings(tel)
	core, logs := observer.New(zap.InfoLevel)
	set.Logger = zap.New(core)
	sink := new(consumertest.MetricsSink)
	r, err := f.CreateMetrics(context.Background(), set, cfg, sink)
	require.NoError(t, err)
	require.NoError(t, r.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, r.Shutdown(context.Background())) })
	return sink, tel, logs
}

// live is the series of md's points that hold a value; ended, those of its staleness markers.
func live(md pmetric.Metrics) (live, ended []string) {
	for _, p := range seriesPoints(md) {
		if p.stale {
			ended = append(ended, p.key)
		} else {
			live = append(live, p.key)
		}
	}
	sort.Strings(live)
	sort.Strings(ended)
	return live, ended
}

// waitForBatch waits for a batch after the first `after` that ok accepts, and returns it.
func waitForBatch(t *testing.T, sink *consumertest.MetricsSink, after int, what string, ok func(pmetric.Metrics) bool) (pmetric.Metrics, int) {
	t.Helper()
	var found pmetric.Metrics
	at := -1
	require.Eventually(t, func() bool {
		batches := sink.AllMetrics()
		for i := after; i < len(batches); i++ {
			if ok(batches[i]) {
				found, at = batches[i], i
				return true
			}
		}
		return false
	}, 10*time.Second, 10*time.Millisecond, what)
	return found, at
}

func assertDeferred(t *testing.T, tel *componenttest.Telemetry, deferred, gpus int64) {
	t.Helper()
	id := attribute.NewSet(attribute.String("receiver", "dcgm"))
	metadatatest.AssertEqualReceiverDcgmDeferred(t, tel, []metricdata.DataPoint[int64]{{Value: deferred, Attributes: id}}, metricdatatest.IgnoreTimestamp(), metricdatatest.IgnoreExemplars())
	metadatatest.AssertEqualReceiverDcgmGpus(t, tel, []metricdata.DataPoint[int64]{{Value: gpus, Attributes: id}}, metricdatatest.IgnoreTimestamp(), metricdatatest.IgnoreExemplars())
}

// A host that runs dcgm-exporter and this receiver reports each GPU once: while the exporter
// (here the recorded dcgm-exporter page, served on loopback) answers at defer_to_exporter,
// the receiver reads no GPU and ends every series it had, in one batch of staleness markers;
// when the exporter stops, the receiver reads the GPUs again, the same series as before.
func TestDefersToAnAnsweringDCGMExporter(t *testing.T) {
	addr := freeport.Addr(t)
	sink, tel, logs := deferringReceiver(t, addr)

	gpuBatch := func(md pmetric.Metrics) bool { l, _ := live(md); return len(l) > 0 }
	before, at := waitForBatch(t, sink, 0, "GPU series while no exporter answers", gpuBatch)
	readSeries, _ := live(before)
	assertDeferred(t, tel, 0, 2)

	exporter, err := demofleet.NewEngine("dcgm-exporter", addr, filepath.Join(scrapetest.ExpositionDir(), "dcgm-exporter.prom"))
	require.NoError(t, err)
	require.NoError(t, exporter.Start())
	t.Cleanup(func() { _ = exporter.Stop() })

	markers, at := waitForBatch(t, sink, at+1, "staleness markers once the exporter answers", func(md pmetric.Metrics) bool {
		_, e := live(md)
		return len(e) > 0
	})
	stillLive, ended := live(markers)
	assert.Empty(t, stillLive, "no GPU is read while the exporter answers")
	last, _ := live(sink.AllMetrics()[at-1])
	assert.Equal(t, last, ended, "every series of the last collection ends")
	// Several collections while deferring: nothing more is sent, and the telemetry says why.
	rounds := exporter.Rounds()
	require.Eventually(t, func() bool { return exporter.Rounds() >= rounds+3 }, 5*time.Second, 10*time.Millisecond)
	for _, md := range sink.AllMetrics()[at+1:] {
		assert.Zero(t, md.DataPointCount(), "nothing is sent while deferring")
	}
	assertDeferred(t, tel, 1, 0)
	deferLog := logs.FilterMessageSnippet("A dcgm-exporter serves this host's GPUs").All()
	require.Len(t, deferLog, 1, "said once")
	assert.Equal(t, addr, deferLog[0].ContextMap()["defer_to_exporter"])

	require.NoError(t, exporter.Stop())
	after, _ := waitForBatch(t, sink, at+1, "GPU series once the exporter stops", gpuBatch)
	again, _ := live(after)
	assert.Equal(t, readSeries, again, "the receiver reads the same GPUs again")
	assertDeferred(t, tel, 0, 2)
	backLog := logs.FilterMessageSnippet("no longer answers").All()
	require.Len(t, backLog, 1)
	assert.Contains(t, backLog[0].ContextMap()["reason"], "connection refused")
}

// Something else answering at the address, such as an engine's page, is no dcgm-exporter:
// the receiver keeps reading the GPUs.
func TestDoesNotDeferToAnotherPage(t *testing.T) {
	engine, err := demofleet.NewEngine("vllm", "127.0.0.1:0", filepath.Join(scrapetest.ExpositionDir(), "vllm.prom"))
	require.NoError(t, err)
	require.NoError(t, engine.Start())
	t.Cleanup(func() { _ = engine.Stop() })
	sink, tel, logs := deferringReceiver(t, engine.Addr)

	require.Eventually(t, func() bool { return len(sink.AllMetrics()) >= 3 && engine.Rounds() >= 3 }, 10*time.Second, 10*time.Millisecond)
	for _, md := range sink.AllMetrics() {
		l, e := live(md)
		assert.NotEmpty(t, l)
		assert.Empty(t, e)
	}
	assertDeferred(t, tel, 0, 2)
	assert.Zero(t, logs.FilterMessageSnippet("dcgm-exporter").Len())
}
