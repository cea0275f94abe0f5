// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package dcgmreceiver

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/scraper/scrapererror"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/modelplaneai/otelcol-modelplane/receiver/dcgmreceiver/internal/metadata"
)

// collector reads the GPUs of this host once per call, and says how many it read.
type collector interface {
	collect(ctx context.Context, now time.Time) (md pmetric.Metrics, gpus int, err error)
	// pause says that collections stop for a while: rates between two collections start over.
	pause()
	shutdown() error
}

// dcgmScraper is the receiver's scraper; scraperhelper's controller calls it every
// collection_interval and sends what it returns down the pipeline.
type dcgmScraper struct {
	cfg       *Config
	logger    *zap.Logger
	telemetry *metadata.TelemetryBuilder
	// idOpts labels this receiver's own measurements with its ID, as the controller does.
	idOpts []metric.RecordOption

	// series ends with a staleness marker each series a collection no longer holds.
	series *seriesSet
	// exporter, when defer_to_exporter is set, says whether a dcgm-exporter serves the GPUs;
	// deferring is what the last collection found.
	exporter  *exporterProbe
	deferring bool

	// newCol makes the collector at start (newCollector, or a test's).
	newCol func(*Config, *zap.Logger) collector
	col    collector
	// stuck is a collection that outlasted timeout, still in an NVML call; collections wait
	// for its result. running counts the collections' goroutines.
	stuck   chan collection
	running sync.WaitGroup
}

// collection is what one call of the collector returned.
type collection struct {
	md   pmetric.Metrics
	gpus int
	err  error
}

func (s *dcgmScraper) start(context.Context, component.Host) error {
	s.col = s.newCol(s.cfg, s.logger)
	s.series = newSeriesSet()
	if s.cfg.DeferToExporter != "" {
		s.exporter = newExporterProbe(s.cfg.DeferToExporter, s.cfg.CollectionInterval)
	}
	return nil
}

func (s *dcgmScraper) scrape(ctx context.Context) (pmetric.Metrics, error) {
	now := time.Now()
	if s.stuck != nil && !s.unstuck() {
		return pmetric.NewMetrics(), nil // still waiting; said so once
	}
	if s.deferToExporter(ctx) {
		// No GPU read: the series of the last collection end here, as the exporter's begin.
		md := pmetric.NewMetrics()
		s.telemetry.ReceiverDcgmGpus.Record(ctx, 0, s.idOpts...)
		s.series.endMissing(md, pcommon.NewTimestampFromTime(now))
		return md, nil
	}
	// NVML calls cannot be interrupted, and one on a GPU in a bad state (fallen off the bus,
	// a wedged driver) can block for minutes: the collection runs apart, and is left to
	// finish alone once it outlasts the scrape's timeout, so that a stop does not wait on it.
	began := time.Now()
	done := make(chan collection, 1)
	s.running.Go(func() {
		md, gpus, err := s.col.collect(ctx, now)
		done <- collection{md, gpus, err}
	})
	var c collection
	select {
	case c = <-done:
	case <-ctx.Done():
		s.stuck = done
		s.logger.Warn("A GPU collection has run for longer than timeout: NVML is not answering (a GPU in a bad state, or the driver); no GPU metrics until it does",
			zap.Duration("timeout", s.cfg.Timeout))
		return pmetric.NewMetrics(), nil
	}
	s.telemetry.ReceiverDcgmCollectionDuration.Record(ctx, time.Since(began).Seconds(), s.idOpts...)
	s.telemetry.ReceiverDcgmGpus.Record(ctx, int64(c.gpus), s.idOpts...)
	s.series.endMissing(c.md, pcommon.NewTimestampFromTime(now))
	if c.err != nil {
		// What was read still goes on; the controller logs the error and counts it.
		return c.md, scrapererror.NewPartialScrapeError(c.err, 0)
	}
	return c.md, nil
}

// unstuck reports whether the collection that outlasted its timeout has returned, dropping
// what it read late.
func (s *dcgmScraper) unstuck() bool {
	select {
	case <-s.stuck:
		s.stuck = nil
		s.logger.Info("The slow GPU collection returned; collections resume")
		return true
	default:
		return false
	}
}

// deferToExporter reports whether a dcgm-exporter at defer_to_exporter answers, so that this
// collection reads no GPU, and says so when that changes.
func (s *dcgmScraper) deferToExporter(ctx context.Context) bool {
	if s.exporter == nil {
		return false
	}
	answers, why := s.exporter.answers(ctx)
	switch {
	case answers && !s.deferring:
		s.col.pause()
		s.logger.Info("A dcgm-exporter serves this host's GPUs: the dcgm receiver reads none while it answers, so that each GPU is reported once",
			zap.String("defer_to_exporter", s.cfg.DeferToExporter))
	case !answers && s.deferring:
		s.logger.Info("The dcgm-exporter no longer answers: the dcgm receiver reads the GPUs again",
			zap.String("defer_to_exporter", s.cfg.DeferToExporter), zap.String("reason", why))
	}
	s.deferring = answers
	deferred := int64(0)
	if answers {
		deferred = 1
	}
	s.telemetry.ReceiverDcgmDeferred.Record(ctx, deferred, s.idOpts...)
	return answers
}

func (s *dcgmScraper) shutdown(context.Context) error {
	s.telemetry.Shutdown()
	if s.col == nil {
		return nil
	}
	if s.stuck != nil && !s.unstuck() {
		// NVML is not shut down under a call still in it; what the call returns goes nowhere.
		s.logger.Error("Stopped while a GPU collection waits for NVML, which does not answer; leaving it behind")
		return nil
	}
	return s.col.shutdown()
}
