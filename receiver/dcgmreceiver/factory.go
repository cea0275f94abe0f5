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

	"github.com/modelplaneai/otelcol-modelplane/receiver/dcgmreceiver/internal/metadata"
)

// NewFactory returns the factory of the dcgm receiver.
func NewFactory() receiver.Factory {
	return receiver.NewFactory(metadata.Type,
		func() component.Config { return createDefaultConfig() },
		receiver.WithMetrics(createMetrics, metadata.MetricsStability))
}

func createMetrics(_ context.Context, set receiver.Settings, cfg component.Config, next consumer.Metrics) (receiver.Metrics, error) {
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
		idOpts: []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("receiver", set.ID.String())))},
	}, nil
}
