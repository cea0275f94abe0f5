// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package preview

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"

	"github.com/modelplaneai/otelcol-modelplane/internal/spelling"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
)

// idleMappingNotes name the built-in mappings that are not running and read metrics of a page
// no running mapping read, such as NIM's (off by default): the preview would otherwise be an
// empty page without a word on why.
func idleMappingNotes(page []byte, o Options, mapped int64) []string {
	if mapped > 0 || o.NoBuiltins {
		return nil
	}
	cat, err := metricmapping.LoadBuiltin()
	if err != nil {
		return nil
	}
	running := map[string]bool{}
	selected, _ := cat.Select(o.Builtin) // nil: those on by default
	for _, m := range selected {
		running[m.Name] = true
	}
	names := sampleNames(page)
	var notes []string
	for _, m := range cat.Mappings {
		if running[m.Name] {
			continue
		}
		read := 0
		for _, e := range m.Metrics {
			for _, suffix := range []string{"", "_bucket", "_count", "_sum", "_total"} {
				if names[e.From+suffix] {
					read++
					break
				}
			}
		}
		if read == 0 {
			continue
		}
		selection := append(append([]string(nil), o.Builtin...), m.Name)
		if len(o.Builtin) == 0 {
			selection = []string{metricmapping.DefaultSet, m.Name}
		}
		notes = append(notes, fmt.Sprintf("no running mapping reads this page, but the built-in %s (off by default) reads %d of its metrics: --builtin %s runs it",
			m.Name, read, strings.Join(selection, ",")))
	}
	return notes
}

// unreadEntryNotes say, for each mapping entry that reads nothing on the page, what on the
// page it most likely meant: a histogram's series (X_bucket) for its family, a counter without
// _total, or a misspelling. An entry with no such near miss gets no note.
func unreadEntryNotes(page []byte, mappings []metricmapping.MetricMapping) []string {
	names, types := pageFamilies(page)
	read := map[string]bool{}
	for _, m := range mappings {
		for _, e := range m.Metrics {
			read[e.From] = true
		}
	}
	var notes []string
	for _, m := range mappings {
		for i, e := range m.Metrics {
			if hint := meantSource(e.From, names, types, read); hint != "" {
				notes = append(notes, fmt.Sprintf("%s: MetricMapping %q metrics[%d]: %q reads nothing on this page: %s",
					m.Source, m.Name, i, e.From, hint))
			}
		}
	}
	return notes
}

// meantSource is what a from that reads nothing on the page most likely meant, or "" where it
// reads something or nothing is near it; a name the mappings read already is no misspelling.
func meantSource(from string, names map[string]bool, types map[string]string, read map[string]bool) string {
	family := func(t string) bool { return t == "histogram" || t == "summary" || t == "gaugehistogram" }
	if family(types[from]) || strings.HasPrefix(from, "modelplane_") {
		return "" // a family, or what an earlier mapping made (re-mapping a built-in's output)
	}
	for _, suffix := range []string{"_bucket", "_count", "_sum"} {
		base, ok := strings.CutSuffix(from, suffix)
		if !ok || !family(types[base]) {
			continue
		}
		switch suffix {
		case "_bucket":
			return fmt.Sprintf("it is a series of the %s %q, which a mapping names whole: from: %q", types[base], base, base)
		case "_count":
			return fmt.Sprintf("it is a series of the %s %q, which a mapping names whole: from: %q with part: Count for its count", types[base], base, base)
		default:
			return fmt.Sprintf("it is a series of the %s %q, which a mapping names whole: from: %q with part: Sum for its sum", types[base], base, base)
		}
	}
	if names[from] {
		return ""
	}
	if !strings.HasSuffix(from, "_total") && names[from+"_total"] && !read[from+"_total"] {
		return fmt.Sprintf("the page's counter is %q, and the collector names a counter with its _total: from: %q", from+"_total", from+"_total")
	}
	// The page's metrics as a mapping names them (a histogram's series by the family), with
	// the same engine prefix: an entry for another engine in the same file is no misspelling.
	prefix := enginePrefix(from)
	candidates := func(yield func(string) bool) {
		for n := range names {
			for _, suffix := range []string{"_bucket", "_count", "_sum"} {
				if base, ok := strings.CutSuffix(n, suffix); ok && family(types[base]) {
					n = base
				}
			}
			if enginePrefix(n) == prefix && !yield(n) {
				return
			}
		}
	}
	if near := spelling.NearestWithin(from, candidates, 3); near != "" && near != from && !read[near] {
		return fmt.Sprintf("did you mean %q?", near)
	}
	return ""
}

// enginePrefix is the part of a metric name before its colon (vllm of vllm:num_requests_running),
// or "" for a name without one.
func enginePrefix(name string) string {
	if p, _, ok := strings.Cut(name, ":"); ok {
		return p
	}
	return ""
}

// pageFamilies reads a page, in the text format or OpenMetrics (Prometheus' textparse),
// for the metric names of its samples and the types its # TYPE lines give its families. A
// page that stops parsing gives what it held before.
func pageFamilies(page []byte) (names map[string]bool, types map[string]string) {
	names, types = map[string]bool{}, map[string]string{}
	contentType := "text/plain; version=0.0.4"
	if bytes.HasSuffix(bytes.TrimSpace(page), []byte("# EOF")) {
		contentType = "application/openmetrics-text; version=1.0.0"
	}
	p, err := textparse.New(page, contentType, labels.NewSymbolTable(), textparse.ParserOptions{})
	if err != nil {
		return names, types
	}
	var lset labels.Labels
	for {
		entry, err := p.Next()
		if err != nil {
			return names, types
		}
		switch entry {
		case textparse.EntryType:
			name, typ := p.Type()
			types[string(name)] = string(typ)
		case textparse.EntrySeries:
			p.Labels(&lset)
			names[lset.Get(model.MetricNameLabel)] = true
		}
	}
}

// sampleNames are the metric names of a page's samples.
func sampleNames(page []byte) map[string]bool {
	names, _ := pageFamilies(page)
	return names
}

// pageEngineLabel matches the engine label of a series on a page.
var pageEngineLabel = regexp.MustCompile(`[{,]engine="([^"]*)"`)

// engineLabelNote explains an engine label the page itself sets (vLLM's engine="0"), when no
// --label engine displaces it: every shipped job sets engine to the engine's kind, which moves
// the page's value to engine_index.
func engineLabelNote(page, out []byte, o Options) []string {
	if _, ok := o.Labels["engine"]; ok || !pageEngineLabel.Match(page) {
		return nil // given, or set by a mapping rather than the page
	}
	var values []string
	for _, line := range bytes.Split(out, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("modelplane_")) {
			continue
		}
		if m := pageEngineLabel.FindSubmatch(line); m != nil && !slices.Contains(values, string(m[1])) {
			values = append(values, string(m[1]))
		}
	}
	if len(values) == 0 {
		return nil
	}
	kind := "KIND"
	names := sampleNames(page)
	for _, prefix := range []string{"vllm", "sglang"} {
		for n := range names {
			if strings.HasPrefix(n, prefix+":") {
				kind = prefix
			}
		}
		if kind != "KIND" {
			break
		}
	}
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = fmt.Sprintf("engine=%q", v)
	}
	what := ""
	if kind == "vllm" {
		what = " (vLLM's engine index)"
	}
	return []string{fmt.Sprintf("the page labels its series %s itself%s, shown here as engine; a collector's engine job sets engine to the engine's kind and delivers the page's value as engine_index: --label engine=%s shows that",
		strings.Join(quoted, ", "), what, kind)}
}

// emptyPageNote says that a page holds no sample at all, where the points counted are only
// the scrape's own (up, scrape_*): a URL answering 200 with nothing, such as a health
// endpoint, would otherwise preview as a page no mapping reads.
func emptyPageNote(page []byte) []string {
	if len(sampleNames(page)) > 0 {
		return nil
	}
	return []string{"the page holds no samples: the points counted are the scrape's own (up, scrape_*); is it the engine's metrics page?"}
}
