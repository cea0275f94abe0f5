// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package demofleet

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"
)

// pageLine is one line of a text page, as written, with what Prometheus' text parser reads
// in it: the pages are rewritten line by line, not encoded again, so they stay as
// prometheus_client or dcgm-exporter wrote them.
type pageLine struct {
	text  string
	entry textparse.Entry // EntryInvalid for a blank line
	// name is the family a HELP or TYPE line names, or the metric of a sample.
	name string
	typ  model.MetricType // of a TYPE line
	// A sample's labels, value, and where in text its value begins.
	labels  labels.Labels
	value   float64
	valueAt int
}

// readLines reads a Prometheus text page with textparse, one entry to each line that is not
// blank, and fails naming the line where the parser does.
func readLines(data []byte) ([]pageLine, error) {
	raw := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	p, err := textparse.New(data, "text/plain; version=0.0.4", labels.NewSymbolTable(), textparse.ParserOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]pageLine, 0, len(raw))
	blanks := func() {
		for len(out) < len(raw) && raw[len(out)] == "" {
			out = append(out, pageLine{entry: textparse.EntryInvalid})
		}
	}
	for {
		entry, err := p.Next()
		blanks()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", len(out)+1, err)
		}
		if len(out) == len(raw) {
			return nil, errors.New("the parser read more entries than the page has lines")
		}
		l := pageLine{text: raw[len(out)], entry: entry}
		switch entry {
		case textparse.EntryHelp:
			name, _ := p.Help()
			l.name = string(name)
		case textparse.EntryType:
			name, typ := p.Type()
			l.name, l.typ = string(name), typ
		case textparse.EntrySeries:
			series, _, v := p.Series()
			if !strings.HasPrefix(l.text, string(series)) {
				return nil, fmt.Errorf("line %d: %q does not begin with the series the parser read, %q", len(out)+1, l.text, series)
			}
			p.Labels(&l.labels)
			l.name, l.value = l.labels.Get(model.MetricNameLabel), v
			l.valueAt = len(series) + len(l.text[len(series):]) - len(strings.TrimLeft(l.text[len(series):], " "))
		}
		out = append(out, l)
	}
	if len(out) != len(raw) {
		return nil, fmt.Errorf("line %d: not read by the parser", len(out)+1)
	}
	return out, nil
}
