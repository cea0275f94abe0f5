// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"
)

// watchForTargets probes, every interval, the addresses where the default left a target out,
// until one serves a page a job would scrape, then calls reload (the provider's watcher) once.
// It returns the function that stops it, which the collector calls on a reload or a stop.
func watchForTargets(absent []absentTarget, interval time.Duration, scrapedBy func(absentTarget) *probedTarget, reload func(), logger *zap.Logger) func(context.Context) error {
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
			reload()
			return
		}
	}()
	// Not waiting for the probe to end: a reload it asked for may be what stops it.
	var once sync.Once
	return func(context.Context) error {
		once.Do(func() { close(stop) })
		return nil
	}
}
