// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"context"
	"maps"
	"slices"
	"time"

	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"

	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
)

// ScrapeFilter is what one modelplane_mapping processor's configuration reads, for the
// scrape filter that keeps only those metrics on the Prometheus receivers feeding it.
type ScrapeFilter struct {
	cfg *Config
	// fixed are the sources of the built-ins, the inline mappings and keep_sources, read once;
	// files is the last load of the mapping files, whose unchanged files are not decoded again.
	fixed map[string]bool
	files *fileSet
}

// ScrapeFilterOf reads the config of one modelplane_mapping processor; it returns nil when
// the processor does not ask for scrape_filter.
func ScrapeFilterOf(conf *confmap.Conf) (*ScrapeFilter, error) {
	cfg := createDefaultConfig()
	if conf != nil {
		if err := cfg.Unmarshal(conf); err != nil {
			return nil, err
		}
	}
	if !cfg.ScrapeFilter || !cfg.DropUnmapped {
		return nil, nil
	}
	return &ScrapeFilter{cfg: cfg}, nil
}

// Local returns the metric names that the built-ins, the mapping files as they are now and
// the inline mappings read, and the keep_sources. A file with problems is the processor's
// to report. Not safe for concurrent use.
func (f *ScrapeFilter) Local() (map[string]bool, error) {
	if f.fixed == nil {
		builtins, inline, err := f.cfg.builtinAndInline()
		if err != nil {
			return nil, err
		}
		f.fixed = sources(append(builtins, inline...))
		for _, p := range f.cfg.KeepSources {
			f.fixed[p] = true // a pattern with *, which the keep rule takes as one
		}
	}
	var prev map[string]*fileState
	if f.files != nil {
		prev = f.files.state
	}
	f.files, _ = loadFiles(f.cfg.MappingFiles, prev)
	names := sources(f.files.mappings())
	maps.Copy(names, f.fixed)
	return names, nil
}

// Cluster returns the metric names the cluster's MetricMapping objects read; none without
// cluster_mappings.
func (f *ScrapeFilter) Cluster(ctx context.Context) (map[string]bool, error) {
	if !f.cfg.ClusterMappings.Enabled {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	objects, err := listClusterMappings(ctx, f.cfg.ClusterMappings)
	return sources(objects), err
}

// Follows tells whether the mappings read mapping files or the cluster's objects, which
// change while the collector runs.
func (f *ScrapeFilter) Follows() bool {
	return len(f.cfg.MappingFiles) > 0 || f.cfg.ClusterMappings.Enabled
}

// ReloadInterval is the processor's reload_interval.
func (f *ScrapeFilter) ReloadInterval() time.Duration { return f.cfg.ReloadInterval }

// sources is the set of metric names that mappings read.
func sources(ms []metricmapping.MetricMapping) map[string]bool {
	set := map[string]bool{}
	for _, m := range ms {
		for _, e := range m.Metrics {
			set[e.From] = true
		}
	}
	return set
}

// listTimeout bounds one list of the cluster's MetricMappings for the scrape filter, which
// delays the collector's start and every reload of its configuration.
const listTimeout = 10 * time.Second

// ScrapeSources reads the config of one modelplane_mapping processor and, with
// scrape_filter, returns the metric names its mappings read now, sorted. An API server that
// does not answer is logged to logger (nil: not logged) and leaves the cluster's out.
func ScrapeSources(conf *confmap.Conf, logger *zap.Logger) (names []string, filter bool, err error) {
	f, err := ScrapeFilterOf(conf)
	if f == nil || err != nil {
		return nil, false, err
	}
	set, err := f.Local()
	if err != nil {
		return nil, false, err
	}
	cluster, err := f.Cluster(context.Background())
	if err != nil && logger != nil {
		logger.Warn("The scrape filter is built without the cluster's MetricMappings; it is rebuilt when they are read", zap.Error(err))
	}
	maps.Copy(set, cluster)
	return slices.Sorted(maps.Keys(set)), true, nil
}
