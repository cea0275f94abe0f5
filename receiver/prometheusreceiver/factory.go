// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package prometheusreceiver is contrib's Prometheus receiver (type prometheus, unchanged),
// except in two ways. discovery_reload_on_startup is on by default. A target that keeps
// failing is not logged at every scrape: its first failed scrape is logged as it comes, and so
// is a change of cause, but the same failure again at most once every few minutes, with how
// many there were since.
package prometheusreceiver // import "github.com/modelplaneai/otelcol-modelplane/receiver/prometheusreceiver"

import (
	"context"
	"time"

	contrib "github.com/open-telemetry/opentelemetry-collector-contrib/receiver/prometheusreceiver"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/receiver"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
)

// NewFactory returns the factory of the prometheus receiver.
func NewFactory() receiver.Factory {
	return newFactory(deliverywatch.FailedScrapeRepeat, time.Now)
}

// newFactory condenses the failed-scrape lines of every by the clock now (tests set both).
func newFactory(repeatEvery time.Duration, now func() time.Time) receiver.Factory {
	f := contrib.NewFactory()
	return receiver.NewFactory(f.Type(), func() component.Config { return createDefaultConfig(f) },
		receiver.WithMetrics(func(ctx context.Context, set receiver.Settings, cfg component.Config, next consumer.Metrics) (receiver.Metrics, error) {
			c := deliverywatch.FailedScrapes(repeatEvery, now)
			set.Logger = set.Logger.WithOptions(c.Option())
			r, err := f.CreateMetrics(ctx, set, cfg, next)
			if err != nil {
				return nil, err
			}
			return &metrics{r, c}, nil
		}, f.MetricsStability()))
}

// createDefaultConfig is contrib's default, but for discovery_reload_on_startup, on: the scrape
// manager takes its first targets as discovery finds them, not at its first reload 5 s later,
// so a start or a receivers' reload leaves a gap of a scrape, not 5 s more.
func createDefaultConfig(f receiver.Factory) component.Config {
	cfg := f.CreateDefaultConfig().(*contrib.Config)
	cfg.DiscoveryReloadOnStartup = true
	return cfg
}

// metrics is the receiver, which logs the failed scrapes it holds once it has stopped, so
// that a stopped collector's log adds up.
type metrics struct {
	receiver.Metrics
	condensed *deliverywatch.Condenser
}

func (r *metrics) Shutdown(ctx context.Context) error {
	defer r.condensed.Flush()
	return r.Metrics.Shutdown(ctx)
}
