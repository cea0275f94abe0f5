// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/demofleet"
)

// sampleLines counts a page's sample lines the way a scrape does.
func sampleLines(t *testing.T, file string) int {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range strings.Lines(string(raw)) {
		if line = strings.TrimRight(line, "\n"); line != "" && line[0] != '#' {
			n++
		}
	}
	return n
}

// TestFloorScrapesEveryTargetAndExports runs both schedules against two real demo engines
// and a real OTLP/HTTP sink, and checks the gauge it exports per target.
func TestFloorScrapesEveryTargetAndExports(t *testing.T) {
	pages := map[string]string{
		"vllm":          filepath.Join("..", "..", "testdata", "exposition", "vllm.prom"),
		"dcgm-exporter": filepath.Join("..", "..", "testdata", "exposition", "dcgm-exporter.prom"),
	}
	want := map[string]int64{} // instance: sample lines
	var jobs strings.Builder
	for name, file := range pages {
		e, err := demofleet.NewEngine(name, "127.0.0.1:0", file)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Stop() })
		want[e.Addr] = int64(sampleLines(t, file))
		jobs.WriteString("        - job_name: " + name + "\n          scrape_interval: 100ms\n          static_configs:\n            - targets: [\"" + e.Addr + "\"]\n              labels: { node: \"n1\", }\n")
	}
	for _, loops := range []string{"target", "job"} {
		t.Run(loops, func(t *testing.T) {
			var mu sync.Mutex
			got := map[string]int64{}
			sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				req := pmetricotlp.NewExportRequest()
				if err := req.UnmarshalProto(body); err != nil {
					t.Errorf("export: %v", err)
					return
				}
				m := req.Metrics().ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0)
				mu.Lock()
				for _, p := range m.Gauge().DataPoints().All() {
					instance, _ := p.Attributes().Get("instance")
					got[instance.Str()] = p.IntValue()
				}
				mu.Unlock()
			}))
			t.Cleanup(sink.Close)
			path := filepath.Join(t.TempDir(), "config.yaml")
			cfg := "receivers:\n  prometheus:\n    config:\n      scrape_configs:\n" + jobs.String() +
				"exporters:\n  otlp_http:\n    endpoint: " + sink.URL + "\n"
			if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := load(path)
			if err != nil {
				t.Fatal(err)
			}
			f := newFloor(c)
			f.start(loops == "job")
			t.Cleanup(f.stop)
			deadline := time.Now().Add(10 * time.Second)
			for {
				mu.Lock()
				done := len(got) == len(want)
				mu.Unlock()
				if done || time.Now().After(deadline) {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			mu.Lock()
			defer mu.Unlock()
			for instance, n := range want {
				if got[instance] != n {
					t.Errorf("%s: exported %d sample lines, the page has %d", instance, got[instance], n)
				}
			}
		})
	}
}

func TestLoadNamesTheFieldAndValue(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	cfg := "receivers:\n  prometheus:\n    config:\n      scrape_configs:\n        - job_name: vllm\n          scrape_interval: soon\n" +
		"exporters:\n  otlp_http:\n    endpoint: 127.0.0.1:1\n"
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := load(path)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(path+": job vllm: scrape_interval \"soon\"")) {
		t.Fatalf("got %v, want an error naming the file, job, field and value", err)
	}
}

// A scrape that fails is counted and takes its target out of the exports, so a run whose
// scrapes failed shows fewer samples in bench/e2e instead of looking cheap.
func TestFailedScrapeIsCountedNotExported(t *testing.T) {
	refused := httptest.NewServer(http.NotFoundHandler())
	refused.Close() // nothing listens there now
	var cfg config
	cfg.Exporters.OTLPHTTP.Endpoint = "127.0.0.1:1"
	cfg.Receivers.Prometheus.Config.ScrapeConfigs = []job{{Name: "vllm", Interval: "2s", StaticConfigs: []struct {
		Targets []string `yaml:"targets"`
	}{{Targets: []string{strings.TrimPrefix(refused.URL, "http://")}}}}}
	f := newFloor(cfg)
	tg := f.jobs[0].targets[0]
	tg.samples, tg.ok = 7, true // as after an earlier scrape that succeeded
	f.scrape(tg)
	if f.failed != 1 || f.lastErr == nil || f.scraped || tg.ok {
		t.Fatalf("after a refused scrape: failed %d, error %v, scraped %v, ok %v; want 1, an error, false, false", f.failed, f.lastErr, f.scraped, tg.ok)
	}
}
