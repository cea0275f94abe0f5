package modelplanemapping

import (
	"sort"

	"go.opentelemetry.io/collector/confmap"

	"github.com/modelplaneai/otelcol-modelplane/internal/metricmapping"
)

// ScrapeSources reads the config of one modelplane_mapping processor and, when it asks for
// scrape_filter, returns the metric names its mappings read at start: the built-ins, the
// mapping files as they are now and the inline mappings. otelcol-modelplane's scrapefilter
// converter turns them into a keep rule on the Prometheus receivers feeding the processor.
func ScrapeSources(conf *confmap.Conf) (names []string, filter bool, err error) {
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
	all := append(append(builtins, files.mappings()...), inline...)
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
