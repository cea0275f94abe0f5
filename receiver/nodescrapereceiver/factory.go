// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package nodescrapereceiver scrapes the Prometheus targets of the node it runs on, as
// configured for the Prometheus receiver (discovery, relabelling, limits), and emits what
// that receiver emits, for less CPU and memory: a page's lines that no rule keeps are
// dropped by their name before their labels are read, and nothing is kept of them.
package nodescrapereceiver // import "github.com/modelplaneai/otelcol-modelplane/receiver/nodescrapereceiver"

//go:generate mdatagen metadata.yaml

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/receiver"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/receiver/nodescrapereceiver/internal/metadata"
)

// NewFactory returns the factory of the node_scrape receiver.
func NewFactory() receiver.Factory {
	return newFactory(deliverywatch.FailedScrapeRepeat, time.Now)
}

// newFactory condenses the failed-scrape lines of every by the clock now (tests set both).
func newFactory(every time.Duration, now func() time.Time) receiver.Factory {
	return receiver.NewFactory(metadata.Type, func() component.Config { return &Config{} },
		receiver.WithMetrics(func(_ context.Context, set receiver.Settings, cfg component.Config, next consumer.Metrics) (receiver.Metrics, error) {
			c := deliverywatch.FailedScrapes(every, now)
			set.Logger = set.Logger.WithOptions(c.Option())
			return newReceiver(cfg.(*Config), set, next, c)
		}, metadata.MetricsStability))
}
