// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package pipeline builds the processor chain Modelplane renders for the contrib collector
// (shared/anchor/modelplane-pipeline.yaml) from contrib's processors, so that otelcol-modelplane's
// parity tests and benchmarks can run it beside the modelplanemapping processor.
package pipeline // import "github.com/modelplaneai/otelcol-modelplane/bench/reference/pipeline"

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/filterprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/groupbyattrsprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/resourceprocessor"
	"github.com/open-telemetry/opentelemetry-collector-contrib/processor/transformprocessor"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processortest"
)

// Order is Modelplane's processor order in the metrics pipeline.
var Order = []string{"resource/cluster", "transform/identity", "transform/modelplane", "groupbyattrs/identity", "filter/modelplane"}

func factory(id string) (processor.Factory, error) {
	switch strings.Split(id, "/")[0] {
	case "resource":
		return resourceprocessor.NewFactory(), nil
	case "transform":
		return transformprocessor.NewFactory(), nil
	case "groupbyattrs":
		return groupbyattrsprocessor.NewFactory(), nil
	case "filter":
		return filterprocessor.NewFactory(), nil
	}
	return nil, fmt.Errorf("processor %q: not one of the reference's", id)
}

// Chain is the reference's processors, started, in Modelplane's order.
type Chain struct {
	head    processor.Metrics
	started []processor.Metrics
}

// New builds and starts the chain from processor configs keyed by the IDs of Order,
// ending in next.
func New(procs map[string]any, next consumer.Metrics) (*Chain, error) {
	c := &Chain{}
	head := next
	for i := len(Order) - 1; i >= 0; i-- {
		id := Order[i]
		f, err := factory(id)
		if err != nil {
			return nil, err
		}
		raw, ok := procs[id].(map[string]any)
		if !ok {
			return nil, errors.Join(c.Shutdown(), fmt.Errorf("processor %q: no configuration", id))
		}
		cfg := f.CreateDefaultConfig()
		if err := confmap.NewFromStringMap(raw).Unmarshal(cfg); err != nil {
			return nil, errors.Join(c.Shutdown(), fmt.Errorf("processor %q: %w", id, err))
		}
		if err := confmap.Validate(cfg); err != nil {
			return nil, errors.Join(c.Shutdown(), fmt.Errorf("processor %q: %w", id, err))
		}
		p, err := f.CreateMetrics(context.Background(), processortest.NewNopSettings(f.Type()), cfg, head)
		if err != nil {
			return nil, errors.Join(c.Shutdown(), fmt.Errorf("processor %q: %w", id, err))
		}
		if err := p.Start(context.Background(), componenttest.NewNopHost()); err != nil {
			return nil, errors.Join(c.Shutdown(), fmt.Errorf("processor %q: %w", id, err))
		}
		c.started = append(c.started, p)
		head = p
	}
	c.head = head.(processor.Metrics)
	return c, nil
}

// ConsumeMetrics runs md through the chain.
func (c *Chain) ConsumeMetrics(ctx context.Context, md pmetric.Metrics) error {
	return c.head.ConsumeMetrics(ctx, md)
}

// Shutdown stops every processor the chain started.
func (c *Chain) Shutdown() error {
	var errs []error
	for _, p := range c.started {
		errs = append(errs, p.Shutdown(context.Background()))
	}
	c.started = nil
	return errors.Join(errs...)
}
