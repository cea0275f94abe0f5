package modelplanemapping

import (
	"context"
	"sort"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"

	"github.com/modelplaneai/otelcol-modelplane/internal/metricmapping"
)

// ScrapeSources reads the config of one modelplane_mapping processor and, when it asks for
// scrape_filter, returns the metric names its mappings read at start: the built-ins, the
// mapping files as they are now, the cluster's MetricMapping objects (cluster_mappings) and
// the inline mappings. otelcol-modelplane's scrapefilter converter turns them into a keep
// rule on the Prometheus receivers feeding the processor. An API server that does not answer
// is logged to logger (nil: not logged), and the processor rebuilds the filter later.
func ScrapeSources(conf *confmap.Conf, logger *zap.Logger) (names []string, filter bool, err error) {
	cfg := createDefaultConfig()
	if conf != nil {
		if err := cfg.Unmarshal(conf); err != nil {
			return nil, false, err
		}
	}
	if !cfg.ScrapeFilter || !cfg.DropUnmapped {
		return nil, false, nil
	}
	builtins, inline, err := cfg.builtinAndInline()
	if err != nil {
		return nil, false, err
	}
	files, _ := loadFiles(cfg.MappingFiles, nil) // problems are the processor's to report
	all := append(builtins, files.mappings()...)
	if cfg.ClusterMappings.Enabled {
		ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
		objects, err := listClusterMappings(ctx, cfg.ClusterMappings)
		cancel()
		if err != nil && logger != nil {
			logger.Warn("The scrape filter is built without the cluster's MetricMappings; the processor rebuilds it when it reads them", zap.Error(err))
		}
		listed := sources(objects)
		clusterListed.Store(&listed)
		all = append(all, objects...)
	}
	all = append(all, inline...)
	set := sources(all)
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, true, nil
}

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

// listTimeout bounds the scrape filter's list of the cluster's MetricMappings, which delays
// the collector's start and every reload of its configuration.
const listTimeout = 10 * time.Second

// clusterListed holds the sources of the cluster's MetricMappings at the last build of the
// scrape filter: what the filter keeps for them.
var clusterListed atomic.Pointer[map[string]bool]

func listedClusterSources() map[string]bool {
	if m := clusterListed.Load(); m != nil {
		return *m
	}
	return nil
}
