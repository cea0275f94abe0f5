// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package dcgmreceiver reads the NVIDIA GPUs of the host it runs on through NVML and emits
// the dcgm-exporter metric surface, with Kubernetes pod attribution from the kubelet.
package dcgmreceiver // import "github.com/modelplaneai/otelcol-modelplane/receiver/dcgmreceiver"

import (
	"context"
	"fmt"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receiverhelper"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/modelplaneai/otelcol-modelplane/receiver/dcgmreceiver/internal/metadata"
)

// NewFactory returns the factory of the dcgm receiver.
func NewFactory() receiver.Factory {
	return newFactory(newCollector)
}

// newFactory makes receivers whose collector newCol makes (a test's reads a mock NVML).
func newFactory(newCol func(*Config, *zap.Logger) collector) receiver.Factory {
	return receiver.NewFactory(metadata.Type,
		func() component.Config { return createDefaultConfig() },
		receiver.WithMetrics(func(ctx context.Context, set receiver.Settings, cfg component.Config, next consumer.Metrics) (receiver.Metrics, error) {
			return createMetrics(ctx, set, cfg, next, newCol)
		}, metadata.MetricsStability))
}

func createMetrics(_ context.Context, set receiver.Settings, cfg component.Config, next consumer.Metrics, newCol func(*Config, *zap.Logger) collector) (receiver.Metrics, error) {
	obsrecv, err := receiverhelper.NewObsReport(receiverhelper.ObsReportSettings{
		ReceiverID:             set.ID,
		ReceiverCreateSettings: set,
	})
	if err != nil {
		return nil, fmt.Errorf("dcgm receiver telemetry: %w", err)
	}
	tb, err := metadata.NewTelemetryBuilder(set.TelemetrySettings)
	if err != nil {
		return nil, fmt.Errorf("dcgm receiver telemetry: %w", err)
	}
	return &dcgmReceiver{
		cfg: cfg.(*Config), logger: set.Logger, next: next, obsrecv: obsrecv, telemetry: tb,
		newCol: newCol, shutdownWait: shutdownWait,
		idOpts: []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("receiver", set.ID.String())))},
	}, nil
}
