// Package dcgmreceiver reads the NVIDIA GPUs of the host it runs on through NVML and emits
// the dcgm-exporter metric surface, with Kubernetes pod attribution from the kubelet.
package dcgmreceiver // import "github.com/modelplaneai/otelcol-modelplane/receiver/dcgmreceiver"

import (
	"context"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/receiver"

	"github.com/modelplaneai/otelcol-modelplane/receiver/dcgmreceiver/internal/metadata"
)

// NewFactory returns the factory of the dcgm receiver.
func NewFactory() receiver.Factory {
	return receiver.NewFactory(metadata.Type,
		func() component.Config { return createDefaultConfig() },
		receiver.WithMetrics(createMetrics, metadata.MetricsStability))
}

func createMetrics(_ context.Context, set receiver.Settings, cfg component.Config, next consumer.Metrics) (receiver.Metrics, error) {
	return &dcgmReceiver{cfg: cfg.(*Config), logger: set.Logger, next: next}, nil
}
