// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package batchprocessor

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pmetric"
	core "go.opentelemetry.io/collector/processor/batchprocessor"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestFactoryIsTheCollectors(t *testing.T) {
	f, c := NewFactory(), core.NewFactory()
	assert.Equal(t, "batch", f.Type().String())
	assert.Equal(t, c.CreateDefaultConfig(), f.CreateDefaultConfig())
	assert.Equal(t, c.MetricsStability(), f.MetricsStability())
	assert.Equal(t, c.TracesStability(), f.TracesStability())
	assert.Equal(t, c.LogsStability(), f.LogsStability())
}

// An exporter whose queue is full refuses every batch; the processor logs the first refusal
// and then one line per period that counts them, where it logged each. A real batch
// processor sends each batch, at once, to a consumer that refuses it.
func TestRefusedBatchesAreLoggedOncePerCause(t *testing.T) {
	var clock atomic.Int64 // the processor's goroutine reads it
	clock.Store(time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC).UnixNano())
	f := newFactory(func() time.Time { return time.Unix(0, clock.Load()) })
	cfg := f.CreateDefaultConfig().(*core.Config)
	cfg.SendBatchSize = 1 // each batch is sent as it comes
	obs, logs := observer.New(zapcore.InfoLevel)
	set := processortest.NewNopSettings(f.Type())
	set.Logger = zap.New(obs)
	full := errors.New("sending queue is full")
	var refused atomic.Int32
	next, err := consumer.NewMetrics(func(context.Context, pmetric.Metrics) error {
		// The processor's one goroutine logs each refusal before it sends the next batch, so
		// the clock moves here, after the tenth is logged (held) and before the eleventh is.
		if refused.Add(1) == 11 {
			clock.Add(int64(5 * time.Minute))
		}
		return full
	})
	require.NoError(t, err)
	p, err := f.CreateMetrics(context.Background(), set, cfg, next)
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { assert.NoError(t, p.Shutdown(context.Background())) })

	send := func(n int) {
		for range n {
			require.NoError(t, p.ConsumeMetrics(context.Background(), onePoint()))
		}
	}
	send(1)
	require.Eventually(t, func() bool { return logs.FilterMessage(senderFailed).Len() == 1 }, 10*time.Second, 10*time.Millisecond)
	first := logs.FilterMessage(senderFailed).AllUntimed()[0].ContextMap()
	assert.Equal(t, full.Error(), first["error"])
	assert.Contains(t, first["note"], "logged once every 5m0s")

	send(10)
	require.Eventually(t, func() bool { return logs.FilterMessage(senderFailed).Len() == 2 }, 10*time.Second, 10*time.Millisecond)
	second := logs.FilterMessage(senderFailed).AllUntimed()[1].ContextMap()
	assert.Equal(t, int64(10), second["repeats"], "the nine held and this one")
	assert.Equal(t, "5m0s", second["within"])
	assert.NotContains(t, second, "note")
	assert.Equal(t, 2, logs.Len(), "and no other line: %v", logs.AllUntimed())
}

func onePoint() pmetric.Metrics {
	md := pmetric.NewMetrics()
	m := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("modelplane_requests_waiting")
	m.SetEmptyGauge().DataPoints().AppendEmpty().SetIntValue(1)
	return md
}
