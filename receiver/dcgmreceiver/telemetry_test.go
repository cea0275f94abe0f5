// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

//go:build cgo

package dcgmreceiver

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/modelplaneai/otelcol-modelplane/receiver/dcgmreceiver/internal/metadatatest"
)

// runReceiver runs the receiver on a two-GPU node until it has offered the pipeline, next,
// three batches; then stops it and returns its telemetry.
func runReceiver(t *testing.T, next consumer.Metrics, offered func() int) *componenttest.Telemetry {
	t.Helper()
	f := withNVML(newFakeNode(h100State(), l4State()))
	cfg := testConfig(t)
	cfg.CollectionInterval = 20 * time.Millisecond
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	r, err := f.CreateMetrics(context.Background(), metadatatest.NewSettings(tel), cfg, next)
	require.NoError(t, err)
	require.NoError(t, r.Start(context.Background(), componenttest.NewNopHost()))
	require.Eventually(t, func() bool { return offered() >= 3 }, 5*time.Second, 10*time.Millisecond)
	require.NoError(t, r.Shutdown(context.Background()))
	return tel
}

// receiverPoints reads one of the collector's standard receiver counters for this receiver.
func receiverPoints(t *testing.T, tel *componenttest.Telemetry, name string) int64 {
	t.Helper()
	m, err := tel.GetMetric(name)
	require.NoError(t, err, name)
	sum, ok := m.Data.(metricdata.Sum[int64])
	require.True(t, ok, "%s is a sum of int64, got %T", name, m.Data)
	require.Len(t, sum.DataPoints, 1, name)
	want := attribute.NewSet(attribute.String("receiver", "dcgm"), attribute.String("transport", ""))
	assert.True(t, want.Equals(&sum.DataPoints[0].Attributes), "%s attributes: %v", name, sum.DataPoints[0].Attributes.ToSlice())
	return sum.DataPoints[0].Value
}

// A running receiver reports the points the pipeline accepted, the GPUs of its last
// collection and how long each collection took.
func TestTelemetryAccepted(t *testing.T) {
	sink := new(consumertest.MetricsSink)
	batches := func() int { return len(sink.AllMetrics()) }
	tel := runReceiver(t, sink, batches)

	assert.Equal(t, int64(sink.DataPointCount()), receiverPoints(t, tel, "otelcol_receiver_accepted_metric_points"))
	assert.Positive(t, sink.DataPointCount())
	assert.Zero(t, receiverPoints(t, tel, "otelcol_receiver_refused_metric_points"))

	id := attribute.NewSet(attribute.String("receiver", "dcgm"))
	metadatatest.AssertEqualReceiverDcgmGpus(t, tel, []metricdata.DataPoint[int64]{{Value: 2, Attributes: id}},
		metricdatatest.IgnoreTimestamp(), metricdatatest.IgnoreExemplars())
	m, err := tel.GetMetric("otelcol_receiver_dcgm_collection_duration")
	require.NoError(t, err)
	h, ok := m.Data.(metricdata.Histogram[float64])
	require.True(t, ok, "got %T", m.Data)
	require.Len(t, h.DataPoints, 1)
	assert.True(t, id.Equals(&h.DataPoints[0].Attributes))
	// Every collection is timed, also those whose batch the pipeline had not taken yet.
	assert.GreaterOrEqual(t, h.DataPoints[0].Count, uint64(batches()))
	assert.Equal(t, "s", m.Unit)
}

// Points the pipeline refuses (a memory limiter under pressure) are counted as refused,
// not accepted.
func TestTelemetryRefused(t *testing.T) {
	refusing := &countingConsumer{Metrics: consumertest.NewErr(errors.New("data refused due to high memory usage"))}
	tel := runReceiver(t, refusing, refusing.batches)

	assert.Zero(t, receiverPoints(t, tel, "otelcol_receiver_accepted_metric_points"))
	assert.Equal(t, refusing.points(), receiverPoints(t, tel, "otelcol_receiver_refused_metric_points"))
	assert.Positive(t, refusing.points())
}

// countingConsumer counts what it is offered before passing it on.
type countingConsumer struct {
	consumer.Metrics
	mu      sync.Mutex
	offered int
	pts     int64
}

func (c *countingConsumer) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	c.mu.Lock()
	c.offered++
	c.pts += int64(md.DataPointCount())
	c.mu.Unlock()
	return c.Metrics.ConsumeMetrics(ctx, md)
}

func (c *countingConsumer) batches() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.offered
}

func (c *countingConsumer) points() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pts
}
