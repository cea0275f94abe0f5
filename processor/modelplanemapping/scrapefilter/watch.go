// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package scrapefilter

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"

	"github.com/modelplaneai/otelcol-modelplane/internal/pipelines"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"
)

// clusterEvery is how many reload intervals pass between two lists of the cluster's
// MetricMappings (a minute at the default 2 s): every node's collector lists them.
const clusterEvery = 30

// Watch follows the mapping sources of conf's filtering processors and calls changed once
// when they read a metric the keep rule drops (a provider's watcher), but not while current
// says the configuration would not load as it was loaded. stop ends it.
func Watch(conf *confmap.Conf, current func() bool, changed func(), logger *zap.Logger) (stop func(context.Context) error) {
	var filters []*modelplanemapping.ScrapeFilter
	for _, p := range pipelines.Metrics(conf) {
		for _, id := range p.Processors {
			if !pipelines.IsType(id, processorType) {
				continue
			}
			sub, err := conf.Sub("processors::" + id)
			if err != nil {
				continue
			}
			// A processor this conf cannot decode (a value another provider expands) is the
			// converter's to judge; it is not followed.
			if f, err := modelplanemapping.ScrapeFilterOf(sub); err == nil && f != nil && f.Follows() {
				filters = append(filters, f)
			}
		}
	}
	if len(filters) == 0 {
		return func(context.Context) error { return nil }
	}
	// What the keep rule was built from: the files now; the cluster's objects are listed
	// first thing in the watch, not to delay the start by another list.
	kept := map[string]bool{}
	for _, f := range filters {
		if local, err := f.Local(); err == nil {
			maps.Copy(kept, local)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var done sync.WaitGroup
	done.Add(1)
	go func() {
		defer done.Done()
		follow(ctx, filters, kept, current, changed, logger)
	}()
	return func(context.Context) error {
		cancel()
		done.Wait()
		return nil
	}
}

func follow(ctx context.Context, filters []*modelplanemapping.ScrapeFilter, kept map[string]bool, current func() bool, changed func(), logger *zap.Logger) {
	every := filters[0].ReloadInterval()
	for _, f := range filters[1:] {
		every = min(every, f.ReloadInterval())
	}
	cluster := make([]map[string]bool, len(filters))
	var listed time.Time
	read := func() map[string]bool {
		all := map[string]bool{}
		listCluster := time.Since(listed) >= clusterEvery*every
		for i, f := range filters {
			if local, err := f.Local(); err == nil {
				maps.Copy(all, local)
			}
			if listCluster {
				if names, err := f.Cluster(ctx); err == nil {
					cluster[i] = names
				}
			}
			maps.Copy(all, cluster[i])
		}
		if listCluster {
			listed = time.Now()
		}
		return all
	}
	for i, f := range filters {
		cluster[i], _ = f.Cluster(ctx)
		maps.Copy(kept, cluster[i])
	}
	listed = time.Now()
	warned := false
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var added []string
		for name := range read() {
			if !kept[name] {
				added = append(added, name)
			}
		}
		if len(added) == 0 {
			continue
		}
		slices.Sort(added)
		if !current() {
			if !warned {
				logger.Warn("A mapping reads metrics the scrape filter drops, and the configuration file has changed since it was loaded: "+
					"not reloading it for them; restart the collector to load both", zap.Strings("from", added))
				warned = true
			}
			continue
		}
		logger.Info("A mapping reads metrics the scrape filter drops: reloading the configuration to keep them", zap.Strings("from", added))
		changed()
		return
	}
}
