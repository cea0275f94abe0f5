// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package demofleet

import (
	"errors"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parsed is what a Prometheus parser reads from a page: every series with its value, and
// each family's type.
type parsed struct {
	series map[string]float64
	types  map[string]model.MetricType
}

func parse(t *testing.T, p textparse.Parser) parsed {
	t.Helper()
	out := parsed{series: map[string]float64{}, types: map[string]model.MetricType{}}
	for {
		entry, err := p.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		switch entry {
		case textparse.EntryType:
			name, typ := p.Type()
			out.types[string(name)] = typ
		case textparse.EntrySeries:
			_, _, v := p.Series()
			var ls labels.Labels
			p.Labels(&ls)
			if math.IsNaN(v) {
				v = -1 // NaN != NaN; the pages' NaN gauges are compared as a marker
			}
			out.series[ls.String()] = v
		}
	}
}

// The OpenMetrics page carries exactly the series of the text page, `_created` included, and
// Prometheus' own OpenMetrics parser reads it without error.
func TestOpenMetricsHoldsTheTextPagesSeries(t *testing.T) {
	for _, file := range []string{"vllm.prom", "sglang.prom"} {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "exposition", file))
			require.NoError(t, err)
			page, err := Parse(data)
			require.NoError(t, err)
			text := page.Render(3)
			om, err := OpenMetrics(text)
			require.NoError(t, err)

			fromText := parse(t, textparse.NewPromParser(text, labels.NewSymbolTable(), false))
			fromOM := parse(t, textparse.NewOpenMetricsParser(om, labels.NewSymbolTable()))
			assert.Equal(t, fromText.series, fromOM.series)
			assert.NotEmpty(t, fromOM.series)
			assert.True(t, strings.HasSuffix(string(om), "\n# EOF\n"))

			// Counters are named without _total, and their _created samples are theirs.
			for name, typ := range fromText.types {
				if typ != model.MetricTypeCounter {
					continue
				}
				assert.Equal(t, model.MetricTypeCounter, fromOM.types[strings.TrimSuffix(name, "_total")], name)
				assert.NotContains(t, fromOM.types, strings.TrimSuffix(name, "_total")+"_created")
			}
		})
	}
}

// prometheus_client interleaves each child's _created sample after its other samples; the
// OpenMetrics parser takes it as that series' start time.
func TestOpenMetricsCreatedFollowsItsChild(t *testing.T) {
	text := []byte(`# HELP req_total Requests "served".
# TYPE req_total counter
req_total{code="200"} 5.0
req_total{code="500"} 1.0
# HELP req_created Requests "served".
# TYPE req_created gauge
req_created{code="200"} 1.7e+09
req_created{code="500"} 1.8e+09
# HELP lat_seconds Latency.
# TYPE lat_seconds histogram
lat_seconds_bucket{le="0.1",path="/a,b\"c"} 1.0
lat_seconds_bucket{le="+Inf",path="/a,b\"c"} 2.0
lat_seconds_count{path="/a,b\"c"} 2.0
lat_seconds_sum{path="/a,b\"c"} 0.3
# HELP lat_seconds_created Latency.
# TYPE lat_seconds_created gauge
lat_seconds_created{path="/a,b\"c"} 1.7e+09
# HELP up_state Untyped.
# TYPE up_state untyped
up_state 1.0
`)
	om, err := OpenMetrics(text)
	require.NoError(t, err)
	assert.Equal(t, `# HELP req Requests \"served\".
# TYPE req counter
req_total{code="200"} 5.0
req_created{code="200"} 1.7e+09
req_total{code="500"} 1.0
req_created{code="500"} 1.8e+09
# HELP lat_seconds Latency.
# TYPE lat_seconds histogram
lat_seconds_bucket{le="0.1",path="/a,b\"c"} 1.0
lat_seconds_bucket{le="+Inf",path="/a,b\"c"} 2.0
lat_seconds_count{path="/a,b\"c"} 2.0
lat_seconds_sum{path="/a,b\"c"} 0.3
lat_seconds_created{path="/a,b\"c"} 1.7e+09
# HELP up_state Untyped.
# TYPE up_state unknown
up_state 1.0
# EOF
`, string(om))

	p := textparse.NewOpenMetricsParser(om, labels.NewSymbolTable(), textparse.WithOMParserSTSeriesSkipped())
	starts := map[string]int64{}
	for {
		entry, err := p.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if entry == textparse.EntrySeries {
			var ls labels.Labels
			p.Labels(&ls)
			starts[ls.String()] = p.StartTimestamp()
		}
	}
	assert.Equal(t, int64(1.7e12), starts[`{__name__="req_total", code="200"}`])
	assert.Equal(t, int64(1.8e12), starts[`{__name__="req_total", code="500"}`])
	assert.Equal(t, int64(1.7e12), starts[`{__name__="lat_seconds_count", path="/a,b\"c"}`])
}

// Bad pages fail with the family and the line.
func TestOpenMetricsRefusesWhatPrometheusClientNeverWrites(t *testing.T) {
	for page, want := range map[string]string{
		"# TYPE req counter\nreq 1\n": "counter req",
		"req_total 1\n":               "before any TYPE line",
		"# TYPE a_total counter\na_total{x=\"1\"} 1\n# TYPE a_created gauge\na_created{x=\"2\"} 1\n": `has no series in a_total`,
		"# TYPE a gauge\na{x=\"1} 1\n": "line 2: expected label value",
	} {
		_, err := OpenMetrics([]byte(page))
		if assert.Error(t, err, page) {
			assert.Contains(t, err.Error(), want)
		}
	}
}

// The engine answers in OpenMetrics only when it is switched on and the scrape asks for it,
// the way Prometheus' scrape manager does by default.
func TestEngineNegotiatesOpenMetrics(t *testing.T) {
	e, err := NewEngine("vllm", "127.0.0.1:0", filepath.Join("..", "..", "..", "testdata", "exposition", "vllm.prom"))
	require.NoError(t, err)
	e.OpenMetrics = true
	require.NoError(t, e.Start())
	t.Cleanup(func() { _ = e.Stop() })
	get := func(accept string) (string, string) {
		req, err := http.NewRequest(http.MethodGet, "http://"+e.Addr+"/metrics", nil)
		require.NoError(t, err)
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.Header.Get("Content-Type"), string(b)
	}
	// Prometheus 3's default Accept header for a scrape.
	ct, body := get("application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1")
	assert.Equal(t, ContentTypeOpenMetrics, ct)
	assert.Contains(t, body, "# TYPE vllm:prompt_tokens counter\n")
	assert.True(t, strings.HasSuffix(body, "# EOF\n"))
	ct, body = get("text/plain;version=0.0.4")
	assert.Equal(t, "text/plain; version=0.0.4; charset=utf-8", ct)
	assert.Contains(t, body, "# TYPE vllm:prompt_tokens_total counter\n")
	assert.NotContains(t, body, "# EOF")
}

// FuzzOpenMetrics: any page is rewritten or refused with an error, never a panic, and a
// rewritten page ends as OpenMetrics requires.
func FuzzOpenMetrics(f *testing.F) {
	for _, file := range []string{"vllm.prom", "sglang.prom", "dcgm-exporter.prom"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "exposition", file))
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte("# TYPE a_total counter\na_total{x=\"1\\\"\"} 1\n# TYPE a_created gauge\na_created{x=\"1\\\"\"} 2\n"))
	f.Add([]byte("# TYPE a gauge\na{"))
	f.Fuzz(func(t *testing.T, page []byte) {
		om, err := OpenMetrics(page)
		if err == nil {
			assert.True(t, strings.HasSuffix(string(om), "# EOF\n"))
		}
	})
}
