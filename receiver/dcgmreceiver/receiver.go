package dcgmreceiver

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.uber.org/zap"
)

// collector reads the GPUs of this host once per call.
type collector interface {
	collect(ctx context.Context, now time.Time) (pmetric.Metrics, error)
	shutdown() error
}

type dcgmReceiver struct {
	cfg    *Config
	logger *zap.Logger
	next   consumer.Metrics
	col    collector

	cancel context.CancelFunc
	done   sync.WaitGroup
}

func (r *dcgmReceiver) Start(_ context.Context, _ component.Host) error {
	r.col = newCollector(r.cfg, r.logger)
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
	md, err := r.col.collect(ctx, now)
	if err != nil {
		r.logger.Warn("GPU collection failed", zap.Error(err))
	}
	if md.DataPointCount() == 0 {
		return
	}
	if err := r.next.ConsumeMetrics(ctx, md); err != nil {
		r.logger.Debug("Next consumer refused GPU metrics", zap.Error(err))
	}
}

func (r *dcgmReceiver) Shutdown(context.Context) error {
	if r.cancel == nil {
		return nil
	}
	r.cancel()
	r.done.Wait()
	return r.col.shutdown()
}
