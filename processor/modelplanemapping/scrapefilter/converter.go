// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package scrapefilter is otelcol-modelplane's confmap converter that moves the mapping
// processor's drop of unmapped series to scrape time. For every metrics pipeline whose
// modelplane_mapping processor sets scrape_filter, each Prometheus or node_scrape receiver of the pipeline
// gets, on every scrape job, a metric_relabel_configs keep rule naming the sources of the
// processor's mappings (with their histogram and summary series), modelplane_* and
// target_info. The receiver then never turns the rest of an engine's page into data that
// the processor would drop, which is most of the page and most of the collector's CPU.
package scrapefilter // import "github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/scrapefilter"

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"sort"
	"strings"

	"github.com/prometheus/prometheus/model/relabel"
	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"

	"github.com/modelplaneai/otelcol-modelplane/internal/pipelines"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"
)

const processorType = "modelplane_mapping"

// NewFactory returns the factory of the scrape filter converter.
func NewFactory() confmap.ConverterFactory {
	return confmap.NewConverterFactory(func(set confmap.ConverterSettings) confmap.Converter {
		return &converter{logger: set.Logger}
	})
}

type converter struct{ logger *zap.Logger }

// Convert adds the keep rules. A receiver that also feeds a pipeline without a filtering
// mapping processor keeps everything: that pipeline may want the rest.
func (c *converter) Convert(_ context.Context, conf *confmap.Conf) error {
	keep := map[string]map[string]bool{} // receiver ID -> sources to keep
	unfiltered := map[string]bool{}      // receivers feeding a pipeline that wants everything
	for _, p := range pipelines.Metrics(conf) {
		var names []string
		filtered := false
		for _, id := range p.Processors {
			if !pipelines.IsType(id, processorType) {
				continue
			}
			sub, err := conf.Sub("processors::" + id)
			if err != nil {
				return fmt.Errorf("processors::%s: %w", id, err)
			}
			n, on, err := modelplanemapping.ScrapeSources(sub, c.logger)
			if err != nil {
				return fmt.Errorf("processors::%s: %w", id, err)
			}
			if on {
				filtered = true
				names = append(names, n...)
			}
		}
		for _, rid := range p.Receivers {
			if !pipelines.IsScraper(rid) {
				continue
			}
			if !filtered {
				unfiltered[rid] = true
				continue
			}
			if keep[rid] == nil {
				keep[rid] = map[string]bool{}
			}
			for _, n := range names {
				keep[rid][n] = true
			}
		}
	}
	ids := make([]string, 0, len(keep))
	for id := range keep {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, rid := range ids {
		if unfiltered[rid] {
			c.log("Scrape filter off for a receiver that also feeds a pipeline without it", rid, 0)
			continue
		}
		rule := KeepRule(keys(keep[rid]))
		jobs, _ := conf.Get("receivers::" + rid + "::config::scrape_configs").([]any)
		out := make([]any, 0, len(jobs))
		for i, j := range jobs {
			job, ok := j.(map[string]any)
			if !ok {
				return fmt.Errorf("receivers::%s::config::scrape_configs[%d]: want a scrape config, got %T", rid, i, j)
			}
			job = maps.Clone(job)
			relabels, _ := job["metric_relabel_configs"].([]any)
			job["metric_relabel_configs"] = append(append([]any(nil), relabels...), rule)
			out = append(out, job)
		}
		if len(out) == 0 {
			c.log("Scrape filter off for a receiver without inline scrape_configs (config_file or target allocator)", rid, 0)
			continue
		}
		patch := confmap.NewFromStringMap(map[string]any{"receivers": map[string]any{rid: map[string]any{"config": map[string]any{"scrape_configs": out}}}})
		if err := conf.Merge(patch); err != nil {
			return fmt.Errorf("receivers::%s: adding the scrape filter: %w", rid, err)
		}
		c.log("Scrape filter on: series no mapping reads are dropped at scrape", rid, len(keep[rid]))
	}
	return nil
}

func (c *converter) log(msg, receiver string, sources int) {
	if c.logger != nil {
		c.logger.Info(msg, zap.String("receiver", receiver), zap.Int("sources", sources))
	}
}

// KeepRule is the metric_relabel_configs entry that keeps the series of the source names as
// a page spells them (with _bucket, _sum, _count, _total, _created; a name with * is a
// keep_sources pattern), every modelplane_* series and target_info.
func KeepRule(sources []string) map[string]any {
	quoted := make([]string, 0, len(sources))
	var globs []string
	for _, s := range sources {
		if strings.Contains(s, "*") {
			globs = append(globs, modelplanemapping.SourcePattern(s))
			continue
		}
		quoted = append(quoted, regexp.QuoteMeta(strings.TrimSuffix(s, "_total")))
	}
	sort.Strings(quoted)
	sort.Strings(globs)
	regex := "modelplane_.*|target_info"
	if len(globs) > 0 {
		regex = strings.Join(globs, "|") + "|" + regex
	}
	if len(quoted) > 0 {
		regex = "(?:" + strings.Join(quoted, "|") + ")(?:_bucket|_sum|_count|_total|_created)?|" + regex
	}
	return map[string]any{
		"source_labels": []any{"__name__"},
		"action":        "keep",
		"regex":         regex,
	}
}

// KeepMatcher matches the metric names KeepRule(sources) keeps, anchored as Prometheus
// anchors a relabel regex: what tests, benchmarks and the demo fleet need to know of the rule.
func KeepMatcher(sources []string) relabel.Regexp {
	return relabel.MustNewRegexp(KeepRule(sources)["regex"].(string)) // quoted names always compile
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
