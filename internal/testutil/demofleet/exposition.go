// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package demofleet serves recorded /metrics pages as live engines would: counters,
// histograms and summaries advance between scrapes, gauges stay. It backs `make run`, the
// end-to-end tests and the benchmarks, so they see what the Prometheus receiver sees from a
// real vLLM, SGLang, gateway, endpoint picker or dcgm-exporter. An engine can answer in
// OpenMetrics as vLLM and SGLang do when the scraper asks (openmetrics.go).
package demofleet // import "github.com/modelplaneai/otelcol-modelplane/internal/testutil/demofleet"

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/textparse"
)

// Page is a parsed exposition: its lines, with the samples that advance marked.
type Page struct {
	lines []line
}

type line struct {
	text     string // the whole line when it does not advance, else the part before the value
	sample   bool
	value    float64 // a sample's
	integer  bool    // the value was written as an integer, so it stays one
	advances bool
	suffix   string // what follows the value (a timestamp), with its leading space
}

// Parse reads a Prometheus text exposition.
func Parse(data []byte) (Page, error) {
	read, err := readLines(data)
	if err != nil {
		return Page{}, err
	}
	var p Page
	types := map[string]model.MetricType{}
	for _, l := range read {
		if l.entry == textparse.EntryType {
			types[l.name] = l.typ
		}
		if l.entry != textparse.EntrySeries {
			p.lines = append(p.lines, line{text: l.text})
			continue
		}
		valueText, suffix, _ := strings.Cut(l.text[l.valueAt:], " ")
		if suffix != "" {
			suffix = " " + suffix
		}
		if !advances(l.name, types) || math.IsNaN(l.value) {
			p.lines = append(p.lines, line{text: l.text, sample: true, value: l.value})
			continue
		}
		p.lines = append(p.lines, line{
			text:     l.text[:l.valueAt],
			sample:   true,
			value:    l.value,
			integer:  !strings.ContainsAny(valueText, ".eE") || l.value == math.Trunc(l.value) && strings.HasSuffix(valueText, ".0"),
			advances: true,
			suffix:   suffix,
		})
	}
	return p, nil
}

// verbatim is a page served as it is: nothing in it advances.
func verbatim(data []byte) Page {
	var p Page
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		p.lines = append(p.lines, line{text: l})
	}
	return p
}

// advances reports whether a sample grows over time: a counter, or a histogram's or
// summary's buckets, count and sum; never a _created timestamp or a quantile.
func advances(name string, types map[string]model.MetricType) bool {
	if strings.HasSuffix(name, "_created") {
		return false
	}
	if t, ok := types[name]; ok {
		return t == model.MetricTypeCounter
	}
	for _, suf := range []string{"_total", "_bucket", "_count", "_sum"} {
		base, ok := strings.CutSuffix(name, suf)
		if !ok {
			continue
		}
		switch types[base] {
		case model.MetricTypeCounter:
			return suf == "_total"
		case model.MetricTypeHistogram:
			return suf != "_total"
		case model.MetricTypeSummary:
			return suf == "_count" || suf == "_sum"
		}
	}
	return false
}

// Render writes the page as it reads after round scrapes: every advancing value multiplied
// by 1 + round/100 (integers rounded), which keeps buckets cumulative and +Inf equal to
// _count, since both round the same value the same way.
func (p Page) Render(round int) []byte {
	var b bytes.Buffer
	f := 1 + float64(round)/100
	for _, l := range p.lines {
		if !l.advances {
			b.WriteString(l.text)
			b.WriteByte('\n')
			continue
		}
		b.WriteString(l.text)
		v := l.value * f
		if l.integer {
			b.WriteString(strconv.FormatFloat(math.Round(v), 'f', -1, 64))
		} else {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		b.WriteString(l.suffix)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Value returns the value of the first sample whose line starts with prefix after round
// scrapes, as Render writes it; tests use it to know what the backend must hold.
func (p Page) Value(prefix string, round int) (float64, bool) {
	for _, l := range p.lines {
		if !strings.HasPrefix(l.text, prefix) {
			continue
		}
		if !l.advances {
			return l.value, l.sample
		}
		v := l.value * (1 + float64(round)/100)
		if l.integer {
			v = math.Round(v)
		}
		return v, true
	}
	return 0, false
}
