package defaultconfig

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"
)

// reloadRetry is how long a reload that was refused (the configuration it would load does
// not validate) waits before the next try: each try validates in a child process.
var reloadRetry = 5 * time.Minute

// watchForExporter probes addr, where the default left a dcgm-exporter out because nothing
// answered, every interval until something does, then asks the collector to reload its
// configuration: the default, loaded again, scrapes the exporter, and the GPU receiver leaves
// it the GPUs. On a host that starts its dcgm-exporter after the collector (at boot, or a
// later install), the series are then the exporter's, as on a host that started it first. It
// returns the function that stops it, which the collector calls when it loads its
// configuration again or shuts down.
func watchForExporter(addr string, interval time.Duration, answers func(string) bool, reload func() error, logger *zap.Logger) func(context.Context) error {
	stop := make(chan struct{})
	wait := func(d time.Duration) bool {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-stop:
			return false
		case <-t.C:
			return true
		}
	}
	go func() {
		for wait(interval) {
			if !answers(addr) {
				continue
			}
			logger.Info("A dcgm-exporter answers now: reloading the configuration to scrape it; the dcgm receiver then leaves it the GPUs",
				zap.String("address", addr))
			err := reload()
			if err == nil {
				return
			}
			logger.Warn("Could not reload the configuration to scrape the dcgm-exporter; the dcgm receiver reads the GPUs meanwhile",
				zap.Error(err), zap.Duration("next_try_in", reloadRetry))
			if !wait(reloadRetry) {
				return
			}
		}
	}()
	// Not waiting for the probe to end: a reload it asked for may be what stops it.
	var once sync.Once
	return func(context.Context) error {
		once.Do(func() { close(stop) })
		return nil
	}
}
