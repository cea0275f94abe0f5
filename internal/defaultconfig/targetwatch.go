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

// watchForTargets probes the addresses where the default left a target out because its page
// was not served, every interval until a page that a job would scrape is (scrapedBy), then
// asks the collector to reload its configuration: the default, loaded again, scrapes what
// answers now (and leaves out, and watches, what still does not). On a host whose engine or
// dcgm-exporter starts after the collector (at boot, or a later install), or loads its model
// for minutes, the series are then scraped as on a host that started it first. It returns the function that stops it, which
// the collector calls when it loads its configuration again or shuts down.
func watchForTargets(absent []absentTarget, interval time.Duration, scrapedBy func(absentTarget) *probedTarget, reload func() error, logger *zap.Logger) func(context.Context) error {
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
	answering := func() (string, *probedTarget) {
		for _, a := range absent {
			if by := scrapedBy(a); by != nil {
				return a.addr, by
			}
		}
		return "", nil
	}
	go func() {
		for wait(interval) {
			addr, a := answering()
			if a == nil {
				continue
			}
			taken := a.article + " " + a.name + " answers now: reloading the configuration to scrape it"
			if a.then != "" {
				taken += "; " + a.then
			}
			logger.Info(taken, zap.String("address", addr))
			err := reload()
			if err == nil {
				return
			}
			refused := "Could not reload the configuration to scrape the " + a.name
			if a.meanwhile != "" {
				refused += "; " + a.meanwhile + " meanwhile"
			}
			logger.Warn(refused,
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
