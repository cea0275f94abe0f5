// Package prometheusreceiver is contrib's Prometheus receiver (type prometheus, v0.161.0,
// unchanged), except in three ways. discovery_reload_on_startup is on by default. A target
// that keeps failing is not logged at every scrape: its first failed scrape is logged as it
// comes, and so is a change of cause, but the same failure again at most once every few
// minutes, with how many there were since. And the targets that share a scrape interval are
// scraped together, at the multiples of the interval, instead of at offsets Prometheus
// spreads over it (feature gate modelplane.prometheusreceiver.alignedScrapes).
package prometheusreceiver // import "github.com/modelplaneai/otelcol-modelplane/receiver/prometheusreceiver"

import (
	"context"
	"fmt"
	"time"

	contrib "github.com/open-telemetry/opentelemetry-collector-contrib/receiver/prometheusreceiver"
	"github.com/prometheus/prometheus/scrape"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/featuregate"
	"go.opentelemetry.io/collector/receiver"

	"github.com/modelplaneai/otelcol-modelplane/internal/repeatlog"
)

// failedScrape is the receiver's warning for a scrape whose up is 0, with the target's
// labels (target_labels) and, where Prometheus gave one, the reason (error).
const failedScrape = "Failed to scrape Prometheus endpoint"

// repeatEvery is how long the same failure of a target is held before a line counts it:
// an engine that loads a large model answers no scrape for 10 to 20 minutes, which is a
// few lines instead of one every interval.
var repeatEvery = 5 * time.Minute

// now is the clock of the condensed log; tests move it.
var now = time.Now

// alignedScrapes scrapes each target once as it is discovered and then at the multiples of
// its interval on the wall clock. Prometheus spreads a server's targets over the interval,
// which keeps a server that scrapes thousands from fetching them all at once; a node's
// collector scrapes its own dozen, and each scrape at its own instant wakes the process
// again and hands its points down the pipeline alone, which at 8 engines and 8 GPUs cost
// about as much as the scrapes' own work (docs/benchmarks.md). Together, a round costs about
// one wake-up, and its points reach the batch processor within milliseconds of each other.
var alignedScrapes = featuregate.GlobalRegistry().MustRegister(
	"modelplane.prometheusreceiver.alignedScrapes",
	featuregate.StageBeta,
	featuregate.WithRegisterFromVersion("v0.1.0"),
	featuregate.WithRegisterDescription("The prometheus receiver scrapes the targets that share an interval together, at the "+
		"interval's multiples on the wall clock, instead of at offsets spread over the interval as Prometheus does"),
)

// NewFactory returns the factory of the prometheus receiver.
func NewFactory() receiver.Factory {
	f := contrib.NewFactory()
	return receiver.NewFactory(f.Type(), func() component.Config { return createDefaultConfig(f) },
		receiver.WithMetrics(func(ctx context.Context, set receiver.Settings, cfg component.Config, next consumer.Metrics) (receiver.Metrics, error) {
			c := repeatlog.New(repeatlog.Rule{
				Message: failedScrape,
				Subject: "target_labels",
				Cause:   "error",
				Every:   repeatEvery,
				Note: fmt.Sprintf("while this target fails for the same reason, its failed scrapes are logged once every %s, "+
					"with how many there were; otelcol_processor_modelplane_mapping_scrapes_failed counts each one", repeatEvery),
			}, now)
			set.Logger = set.Logger.WithOptions(c.Option())
			// Read by each scrape loop as it starts, which is after Start; the gate is
			// process-wide, so one setting holds for every prometheus receiver.
			scrape.SetAlignedOffsets(alignedScrapes.IsEnabled())
			r, err := f.CreateMetrics(ctx, set, cfg, next)
			if err != nil {
				return nil, err
			}
			return &metrics{r, c}, nil
		}, f.MetricsStability()))
}

// createDefaultConfig is contrib's default, but for discovery_reload_on_startup, which is on:
// the scrape manager takes its first targets as discovery finds them, instead of at its
// first reload 5 s later, so a start, and a reload that restarts the receivers (a new
// mapping's scrape filter), leaves a gap of a scrape or so in the node's series, not 5 s
// more. A config may still set it false.
func createDefaultConfig(f receiver.Factory) component.Config {
	cfg := f.CreateDefaultConfig().(*contrib.Config)
	cfg.DiscoveryReloadOnStartup = true
	return cfg
}

// metrics is the receiver, which logs the failed scrapes it holds once it has stopped, so
// that a stopped collector's log adds up. (Its methods are spelled out: a wrapper that
// embedded the receiver would have the compiler generate them twice.)
type metrics struct {
	receiver  receiver.Metrics
	condensed *repeatlog.Condenser
}

func (r *metrics) Start(ctx context.Context, host component.Host) error {
	return r.receiver.Start(ctx, host)
}

func (r *metrics) Shutdown(ctx context.Context) error {
	defer r.condensed.Flush()
	return r.receiver.Shutdown(ctx)
}
