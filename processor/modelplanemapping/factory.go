// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package modelplanemapping applies Modelplane MetricMappings to metrics natively on pdata:
// rename, exact unit conversion, label folding and value remaps, histogram part extraction,
// identity and the drop of everything that is not modelplane_*.
package modelplanemapping // import "github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"

import (
	"context"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processorhelper"

	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/metadata"
)

// NewFactory returns the factory of the modelplane_mapping processor.
func NewFactory() processor.Factory {
	return processor.NewFactory(
		metadata.Type,
		func() component.Config { return createDefaultConfig() },
		processor.WithMetrics(createMetrics, metadata.MetricsStability),
	)
}

func createMetrics(ctx context.Context, set processor.Settings, cfg component.Config, next consumer.Metrics) (processor.Metrics, error) {
	p, err := newProcessor(set, cfg.(*Config))
	if err != nil {
		return nil, err
	}
	return processorhelper.NewMetrics(ctx, set, cfg, next, p.processMetrics,
		processorhelper.WithCapabilities(consumer.Capabilities{MutatesData: true}),
		processorhelper.WithStart(p.start),
		processorhelper.WithShutdown(p.shutdown))
}
