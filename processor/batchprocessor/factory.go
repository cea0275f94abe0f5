// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package batchprocessor is the collector's batch processor (type batch,
// unchanged), except that a batch its exporters refuse is not logged for every batch: the
// first is logged as it comes, and so is a change of cause, but the same refusal again at
// most once every few minutes, with how many there were since.
package batchprocessor // import "github.com/modelplaneai/otelcol-modelplane/processor/batchprocessor"

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/processor"
	core "go.opentelemetry.io/collector/processor/batchprocessor"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
)

// senderFailed is the processor's warning for a batch the next consumer refused, with its
// error: in this distribution's pipelines, an exporter whose sending queue is full because
// its endpoint has not accepted data for long, which the exporter logs too.
const senderFailed = "Sender failed"

// repeatEvery is how long the same refusal is held before a line counts it: a full queue
// refuses every batch, one every few seconds, for as long as the backend is away.
const repeatEvery = 5 * time.Minute

// NewFactory returns the factory of the batch processor.
func NewFactory() processor.Factory {
	return newFactory(time.Now)
}

// newFactory condenses the log by the clock now (a test's moves).
func newFactory(now func() time.Time) processor.Factory {
	f := core.NewFactory()
	condensed := func(set *processor.Settings) {
		set.Logger = set.Logger.WithOptions(deliverywatch.NewCondenser(deliverywatch.RepeatRule{
			Message: senderFailed,
			Cause:   "error",
			Every:   repeatEvery,
			Note: fmt.Sprintf("while the next consumer refuses batches for the same reason, this is logged once every %s, "+
				"with how many there were; the exporter's otelcol_exporter_enqueue_failed_* metrics count their points", repeatEvery),
		}, now).Option())
	}
	return processor.NewFactory(f.Type(), f.CreateDefaultConfig,
		processor.WithTraces(func(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Traces) (processor.Traces, error) {
			condensed(&set)
			return f.CreateTraces(ctx, set, cfg, next)
		}, f.TracesStability()),
		processor.WithMetrics(func(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Metrics) (processor.Metrics, error) {
			condensed(&set)
			return f.CreateMetrics(ctx, set, cfg, next)
		}, f.MetricsStability()),
		processor.WithLogs(func(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Logs) (processor.Logs, error) {
			condensed(&set)
			return f.CreateLogs(ctx, set, cfg, next)
		}, f.LogsStability()))
}
