// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package demofleet

import (
	"bytes"
	"fmt"
	"mime"
	"strings"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"
)

// ContentTypeOpenMetrics is what Python's prometheus_client answers with when a scraper asks
// for OpenMetrics.
const ContentTypeOpenMetrics = "application/openmetrics-text; version=1.0.0; charset=utf-8"

// AcceptsOpenMetrics says whether an Accept header lists OpenMetrics at all, as
// prometheus_client decides: a vLLM or SGLang scraped by a collector, whose Prometheus
// receiver lists it by default, answers in OpenMetrics.
func AcceptsOpenMetrics(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err == nil && mt == "application/openmetrics-text" {
			return true
		}
	}
	return false
}

// OpenMetrics rewrites a page Python's prometheus_client wrote in the text format as it writes
// it in OpenMetrics 1.0: counter families without `_total`, `_created` samples back in their
// families, `untyped` as `unknown`, and `# EOF` at the end.
func OpenMetrics(text []byte) ([]byte, error) {
	fams, err := splitFamilies(text)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	for i := 0; i < len(fams); i++ {
		f := fams[i]
		name, typ := f.name, f.typ
		var created *family
		if typ == model.MetricTypeCounter {
			base, ok := strings.CutSuffix(name, "_total")
			if !ok {
				return nil, fmt.Errorf("counter %s: prometheus_client names every counter ..._total in the text format", name)
			}
			name = base
		}
		if (typ == model.MetricTypeCounter || typ == model.MetricTypeHistogram || typ == model.MetricTypeSummary) && i+1 < len(fams) &&
			fams[i+1].name == name+"_created" && fams[i+1].typ == model.MetricTypeGauge {
			created = &fams[i+1]
			i++
		}
		if f.help != "" {
			// OpenMetrics also escapes double quotes in HELP; the text format does not.
			fmt.Fprintf(&out, "# HELP %s %s\n", name, helpQuotes.Replace(f.help))
		}
		fmt.Fprintf(&out, "# TYPE %s %s\n", name, typ)
		// Children in the order they first appear, each followed by its _created sample.
		var order []string
		children := map[string][]string{}
		for _, s := range f.samples {
			key := childKey(s)
			if _, seen := children[key]; !seen {
				order = append(order, key)
			}
			children[key] = append(children[key], s.text)
		}
		if created != nil {
			for _, s := range created.samples {
				key := childKey(s)
				if _, seen := children[key]; !seen {
					return nil, fmt.Errorf("family %s: %q has no series in %s", created.name, s.text, f.name)
				}
				children[key] = append(children[key], s.text)
			}
		}
		for _, key := range order {
			for _, s := range children[key] {
				out.WriteString(s)
				out.WriteByte('\n')
			}
		}
	}
	out.WriteString("# EOF\n")
	return out.Bytes(), nil
}

var helpQuotes = strings.NewReplacer(`"`, `\"`)

// family is one metric family of a text page: its HELP text, type and sample lines.
type family struct {
	name, help string
	typ        model.MetricType
	samples    []pageLine
}

// splitFamilies reads a text page family by family. prometheus_client writes HELP, then
// TYPE, then the samples of each family.
func splitFamilies(text []byte) ([]family, error) {
	lines, err := readLines(text)
	if err != nil {
		return nil, err
	}
	var fams []family
	for _, l := range lines {
		switch l.entry {
		case textparse.EntryHelp:
			// The HELP text as written: OpenMetrics escapes what the text format does not.
			_, help, _ := strings.Cut(strings.TrimPrefix(l.text, "# HELP "+l.name), " ")
			fams = append(fams, family{name: l.name, help: help})
		case textparse.EntryType:
			if n := len(fams); n == 0 || fams[n-1].name != l.name || fams[n-1].typ != "" {
				fams = append(fams, family{name: l.name})
			}
			fams[len(fams)-1].typ = l.typ
		case textparse.EntrySeries:
			if len(fams) == 0 || fams[len(fams)-1].typ == "" {
				return nil, fmt.Errorf("sample %q before any TYPE line", l.text)
			}
			fams[len(fams)-1].samples = append(fams[len(fams)-1].samples, l)
		}
	}
	return fams, nil
}

// childKey identifies the series a sample belongs to: its labels without the name, `le` and
// `quantile`, which tell a histogram's buckets and a summary's quantiles apart.
func childKey(l pageLine) string {
	b := labels.NewBuilder(l.labels)
	b.Del(model.MetricNameLabel, model.BucketLabel, model.QuantileLabel)
	return b.Labels().String()
}
