// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package scrapefilter

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/scrapetest"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"
)

// BenchmarkScrapeRoundRead sizes the next step docs/benchmarks.md names for the end-to-end
// CPU: a reader that skips the lines no mapping reads before it tokenises them. Both
// sub-benchmarks read one 8x8 scrape round (the 14 pages of scrapetest.Fleet(8, 8), 4,774
// sample lines) and look every sample line they parse up in a scrape cache, as Prometheus'
// scrape loop does:
//
//   - prometheus-parser: Prometheus' text parser over every line, which is what both
//     collectors pay today (the keep rule drops series only after they are parsed);
//   - skip-then-parse: lines whose metric name the keep rule rejects are skipped by name
//     first; the parser reads the rest.
//
// go test -run '^$' -bench BenchmarkScrapeRoundRead -benchmem ./processor/modelplanemapping/scrapefilter/
func BenchmarkScrapeRoundRead(b *testing.B) {
	names, _, err := modelplanemapping.ScrapeSources(confmap.NewFromStringMap(map[string]any{"scrape_filter": true}), nil)
	require.NoError(b, err)
	re := KeepMatcher(names)
	pages := roundPages(b)
	keptNames := map[string]bool{}
	for _, page := range pages {
		for line := range bytes.Lines(page) {
			if name := metricName(line); name != nil {
				keptNames[string(name)] = re.Match(name)
			}
		}
	}

	b.Run("prometheus-parser", func(b *testing.B) {
		cache := map[string]bool{}
		st := labels.NewSymbolTable()
		for b.Loop() {
			for _, page := range pages {
				parseAll(b, page, st, cache)
			}
		}
	})
	b.Run("skip-then-parse", func(b *testing.B) {
		cache := map[string]bool{}
		st := labels.NewSymbolTable()
		kept := make([]byte, 0, 1<<20)
		for b.Loop() {
			for _, page := range pages {
				kept = kept[:0]
				for line := range bytes.Lines(page) {
					if name := metricName(line); name == nil || keptNames[string(name)] {
						kept = append(kept, line...)
					}
				}
				parseAll(b, kept, st, cache)
			}
		}
	})
}

// parseAll reads a page with Prometheus' text parser, looking every series up in cache.
func parseAll(b *testing.B, page []byte, st *labels.SymbolTable, cache map[string]bool) {
	p := textparse.NewPromParser(page, st, false)
	for {
		e, err := p.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			b.Fatal(err)
		}
		if e == textparse.EntrySeries {
			series, _, _ := p.Series()
			if _, ok := cache[string(series)]; !ok {
				cache[string(series)] = true
			}
		}
	}
}

// metricName is the metric a page line is about: a sample's name, or the name a HELP or TYPE
// comment describes; nil for other lines.
func metricName(line []byte) []byte {
	if rest, ok := bytes.CutPrefix(line, []byte("# HELP ")); ok {
		line = rest
	} else if rest, ok := bytes.CutPrefix(line, []byte("# TYPE ")); ok {
		line = rest
	} else if len(line) == 0 || line[0] == '#' {
		return nil
	}
	if end := bytes.IndexAny(line, "{ \n"); end >= 0 {
		return line[:end]
	}
	return line
}

// BenchmarkScrapeRoundInflate is what the demo fleet leaves out (docs/benchmarks.md): real
// engines gzip their pages when the scraper accepts it, as Prometheus does by default, and
// every collector then inflates them. It inflates one 8x8 round, the same 14 pages gzipped at
// level 9 as Python's gzip.compress does.
//
// go test -run '^$' -bench BenchmarkScrapeRoundInflate -benchmem ./processor/modelplanemapping/scrapefilter/
func BenchmarkScrapeRoundInflate(b *testing.B) {
	var pages [][]byte
	for _, data := range roundPages(b) {
		var gz bytes.Buffer
		w, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
		require.NoError(b, err)
		_, err = w.Write(data)
		require.NoError(b, err)
		require.NoError(b, w.Close())
		pages = append(pages, gz.Bytes())
	}
	var r gzip.Reader
	for b.Loop() {
		for _, page := range pages {
			require.NoError(b, r.Reset(bytes.NewReader(page)))
			_, err := io.Copy(io.Discard, &r)
			require.NoError(b, err)
		}
	}
}

// roundPages reads the 14 pages of one 8x8 scrape round, scrapetest.Fleet(8, 8).
func roundPages(b *testing.B) [][]byte {
	var pages [][]byte
	for _, target := range scrapetest.Fleet(8, 8) {
		data, err := os.ReadFile(filepath.Join(scrapetest.ExpositionDir(), target.File))
		require.NoError(b, err)
		pages = append(pages, data)
	}
	return pages
}
