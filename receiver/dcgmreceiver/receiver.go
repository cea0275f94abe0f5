// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package dcgmreceiver

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/receiver/receiverhelper"
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

type dcgmReceiver struct {
	cfg    *Config
	logger *zap.Logger
	next   consumer.Metrics
	col    collector

	// obsrecv reports the collector's standard receiver counters
	// (otelcol_receiver_accepted_metric_points, refused); telemetry, this receiver's own.
	obsrecv   *receiverhelper.ObsReport
	telemetry *metadata.TelemetryBuilder
	// idOpts labels this receiver's own measurements with its ID, as obsrecv does.
	idOpts []metric.RecordOption

	// series ends with a staleness marker each series a collection no longer holds.
	series *seriesSet
	// exporter, when defer_to_exporter is set, says whether a dcgm-exporter serves the GPUs;
	// deferring is what the last collection found.
	exporter  *exporterProbe
	deferring bool

	cancel context.CancelFunc
	done   sync.WaitGroup

	// newCol makes the collector at Start (newCollector, or a test's); shutdownWait bounds how
	// long Shutdown waits for a collection in flight, whose NVML call may not answer.
	newCol       func(*Config, *zap.Logger) collector
	shutdownWait time.Duration
}

func (r *dcgmReceiver) Start(_ context.Context, _ component.Host) error {
	r.col = r.newCol(r.cfg, r.logger)
	r.series = newSeriesSet()
	if r.cfg.DeferToExporter != "" {
		r.exporter = newExporterProbe(r.cfg.DeferToExporter, r.cfg.CollectionInterval)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.done.Add(1)
	go r.run(ctx)
	return nil
}

func (r *dcgmReceiver) run(ctx context.Context) {
	defer r.done.Done()
	t := time.NewTicker(r.cfg.CollectionInterval)
	defer t.Stop()
	r.collectOnce(ctx, time.Now())
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			r.collectOnce(ctx, now)
		}
	}
}

func (r *dcgmReceiver) collectOnce(ctx context.Context, now time.Time) {
	var md pmetric.Metrics
	if r.deferToExporter(ctx) {
		// No GPU read: the series of the last collection end here, as the exporter's begin.
		md = pmetric.NewMetrics()
		r.telemetry.ReceiverDcgmGpus.Record(ctx, 0, r.idOpts...)
	} else {
		began := time.Now()
		// NVML calls cannot be interrupted, and one on a GPU in a bad state (fallen off the
		// bus, a wedged driver) can block for minutes: say so while it does.
		slow := time.AfterFunc(r.cfg.CollectionInterval, func() {
			r.logger.Warn("A GPU collection has run for longer than collection_interval: NVML is not answering (a GPU in a bad state, or the driver); no GPU metrics until it does",
				zap.Duration("collection_interval", r.cfg.CollectionInterval))
		})
		var gpus int
		var err error
		md, gpus, err = r.col.collect(ctx, now)
		if !slow.Stop() {
			r.logger.Info("The slow GPU collection returned", zap.Duration("after", time.Since(began)))
		}
		if ctx.Err() != nil {
			return // stopped while NVML did not answer: the pipeline is gone
		}
		r.telemetry.ReceiverDcgmCollectionDuration.Record(ctx, time.Since(began).Seconds(), r.idOpts...)
		r.telemetry.ReceiverDcgmGpus.Record(ctx, int64(gpus), r.idOpts...)
		if err != nil {
			r.logger.Warn("GPU collection failed", zap.Error(err))
		}
	}
	r.series.endMissing(md, pcommon.NewTimestampFromTime(now))
	// Counted before the pipeline takes the batch: processors may move or drop its points.
	points := md.DataPointCount()
	if points == 0 {
		return
	}
	opCtx := r.obsrecv.StartMetricsOp(ctx)
	err := r.next.ConsumeMetrics(opCtx, md)
	r.obsrecv.EndMetricsOp(opCtx, "nvml", points, err)
	if err != nil {
		// Counted as refused points above; the next collection reads the GPUs afresh.
		r.logger.Debug("Next consumer refused GPU metrics", zap.Error(err))
	}
}

// deferToExporter reports whether a dcgm-exporter at defer_to_exporter answers, so that this
// collection reads no GPU, and says so when that changes.
func (r *dcgmReceiver) deferToExporter(ctx context.Context) bool {
	if r.exporter == nil {
		return false
	}
	answers, why := r.exporter.answers(ctx)
	switch {
	case answers && !r.deferring:
		r.col.pause()
		r.logger.Info("A dcgm-exporter serves this host's GPUs: the dcgm receiver reads none while it answers, so that each GPU is reported once",
			zap.String("defer_to_exporter", r.cfg.DeferToExporter))
	case !answers && r.deferring:
		r.logger.Info("The dcgm-exporter no longer answers: the dcgm receiver reads the GPUs again",
			zap.String("defer_to_exporter", r.cfg.DeferToExporter), zap.String("reason", why))
	}
	r.deferring = answers
	deferred := int64(0)
	if answers {
		deferred = 1
	}
	r.telemetry.ReceiverDcgmDeferred.Record(ctx, deferred, r.idOpts...)
	return answers
}

// shutdownWait bounds how long Shutdown waits for a collection in flight: an NVML call that
// does not answer would otherwise hold up the collector's shutdown, and every reload.
const shutdownWait = 5 * time.Second

func (r *dcgmReceiver) Shutdown(ctx context.Context) error {
	if r.cancel == nil {
		return nil
	}
	r.cancel()
	stopped := make(chan struct{})
	go func() { r.done.Wait(); close(stopped) }()
	wait := time.NewTimer(r.shutdownWait)
	defer wait.Stop()
	select {
	case <-wait.C:
	case <-ctx.Done():
	case <-stopped:
	}
	r.telemetry.Shutdown()
	select {
	case <-stopped: // also where it stopped as the wait ended
		return r.col.shutdown()
	default:
		// The collection sends nothing once it returns (its context is cancelled), and NVML
		// is not shut down under a call still in it.
		r.logger.Error("Stopped while a GPU collection waits for NVML, which does not answer; leaving it behind")
		return nil
	}
}
