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
	"go.opentelemetry.io/collector/scraper"
	"go.opentelemetry.io/collector/scraper/scraperhelper"
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
	r, _, err := newReceiver(set, cfg.(*Config), next, newCol)
	return r, err
}

// newReceiver is the receiver, scraperhelper's controller, and the scraper it calls.
func newReceiver(set receiver.Settings, cfg *Config, next consumer.Metrics, newCol func(*Config, *zap.Logger) collector) (receiver.Metrics, *dcgmScraper, error) {
	tb, err := metadata.NewTelemetryBuilder(set.TelemetrySettings)
	if err != nil {
		return nil, nil, fmt.Errorf("dcgm receiver telemetry: %w", err)
	}
	s := &dcgmScraper{
		cfg: cfg, logger: set.Logger, telemetry: tb, newCol: newCol,
		idOpts: []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("receiver", set.ID.String())))},
	}
	sc, err := scraper.NewMetrics(s.scrape, scraper.WithStart(s.start), scraper.WithShutdown(s.shutdown))
	if err != nil {
		return nil, nil, err
	}
	r, err := scraperhelper.NewMetricsController(&cfg.ControllerConfig, set, next, scraperhelper.AddMetricsScraper(metadata.Type, sc))
	return r, s, err
}
