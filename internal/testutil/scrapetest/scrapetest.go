// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package scrapetest produces pdata the way a collector sees it: it serves recorded /metrics
// pages from demo engines on loopback and scrapes them with the real Prometheus receiver.
// Tests and benchmarks use it so they run on what the receiver really emits, not on pdata
// built by hand.
package scrapetest // import "github.com/modelplaneai/otelcol-modelplane/internal/testutil/scrapetest"

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/receiver/prometheusreceiver"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/demofleet"
)

// Target is one engine of a fleet: a job name, an exposition file and extra target labels
// (deployment, replica, engine, role, ...), as Kubernetes relabelling would set them.
type Target struct {
	Job    string
	File   string // under testdata/exposition, or an absolute path
	Labels map[string]string
	// OpenMetrics: the engine answers in OpenMetrics, as Python's prometheus_client (vLLM,
	// SGLang) does when the Prometheus receiver asks, which it does by default.
	OpenMetrics bool
}

// ExpositionDir is the repository's testdata/exposition.
func ExpositionDir() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "..", "testdata", "exposition")
}

// Fleet is the batch a DaemonSet sees per scrape round on a busy node: vLLM and SGLang
// replicas (alternating), one AI gateway, one endpoint picker, and dcgm-exporters whose pages
// hold two GPUs each.
func Fleet(engines, gpus int) []Target {
	var ts []Target
	for i := 0; i < engines; i++ {
		file, engine := "vllm.prom", "vllm"
		if i%2 == 1 {
			file, engine = "sglang.prom", "sglang"
		}
		ts = append(ts, Target{Job: engine, File: file, Labels: map[string]string{
			"namespace": "inference", "deployment": fmt.Sprintf("%s-%d", engine, i/4), "replica": fmt.Sprintf("%s-%d", engine, i),
			"engine": engine, "role": "unified", "node": "gpu-node-01",
		}})
	}
	ts = append(ts,
		Target{Job: "gateway", File: "gateway-genai.prom", Labels: map[string]string{"namespace": "gateway", "node": "gpu-node-01"}},
		Target{Job: "picker", File: "epp.prom", Labels: map[string]string{"namespace": "inference", "node": "gpu-node-01"}},
	)
	for i := 0; i < (gpus+1)/2; i++ {
		ts = append(ts, Target{Job: "dcgm-exporter", File: "dcgm-exporter.prom", Labels: map[string]string{"node": fmt.Sprintf("gpu-node-%02d", i+1)}})
	}
	return ts
}

// AsEnginesAnswer returns the targets with OpenMetrics on where the real engine answers the
// Prometheus receiver in it (vLLM, SGLang), and off elsewhere; Fleet's targets answer in the
// text format.
func AsEnginesAnswer(targets []Target) []Target {
	out := append([]Target(nil), targets...)
	for i := range out {
		out[i].OpenMetrics = demofleet.SpeaksOpenMetrics(out[i].Job)
	}
	return out
}

// InBothFormats runs f as two subtests: on the targets as given ("text") and as the real
// engines answer the receiver ("openmetrics", AsEnginesAnswer).
func InBothFormats(t *testing.T, targets []Target, f func(t *testing.T, targets []Target)) {
	t.Run("text", func(t *testing.T) { f(t, targets) })
	t.Run("openmetrics", func(t *testing.T) { f(t, AsEnginesAnswer(targets)) })
}

// Scrape serves every target from a demo engine on loopback, scrapes each once with the
// Prometheus receiver, and returns one pmetric.Metrics holding all scrapes. Each scrape job
// gets the given metric_relabel_configs entries.
func Scrape(ctx context.Context, targets []Target, metricRelabel ...map[string]any) (pmetric.Metrics, error) {
	return ScrapeWith(ctx, prometheusreceiver.NewFactory(), targets, metricRelabel...)
}

// ScrapeWith is Scrape with another receiver that takes the Prometheus receiver's
// `config` (the node_scrape receiver).
func ScrapeWith(ctx context.Context, factory receiver.Factory, targets []Target, metricRelabel ...map[string]any) (pmetric.Metrics, error) {
	s, err := startScrapes(ctx, factory, targets, metricRelabel)
	if err != nil {
		return pmetric.Metrics{}, err
	}
	defer s.stop()
	return s.first(len(targets))
}

// StaleMarkers scrapes every target once, stops the engines, and returns what the Prometheus
// receiver emits when its next scrapes fail: the staleness markers of every series.
func StaleMarkers(ctx context.Context, targets []Target) (pmetric.Metrics, error) {
	return StaleMarkersWith(ctx, prometheusreceiver.NewFactory(), targets)
}

// StaleMarkersWith is StaleMarkers with another receiver, as ScrapeWith.
func StaleMarkersWith(ctx context.Context, factory receiver.Factory, targets []Target) (pmetric.Metrics, error) {
	s, err := startScrapes(ctx, factory, targets, nil)
	if err != nil {
		return pmetric.Metrics{}, err
	}
	defer s.stop()
	if _, err := s.first(len(targets)); err != nil {
		return pmetric.Metrics{}, err
	}
	for _, e := range s.engines {
		_ = e.Stop()
	}
	return waitFor(len(targets), "stale markers of", func() pmetric.Metrics { return firstPerTarget(s.sink.AllMetrics(), hasStalePoint) })
}

// scrapes is a Prometheus receiver scraping demo engines into a sink.
type scrapes struct {
	engines []*demofleet.Engine
	rcv     receiver.Metrics
	sink    *consumertest.MetricsSink
}

func startScrapes(ctx context.Context, factory receiver.Factory, targets []Target, metricRelabel []map[string]any) (s *scrapes, err error) {
	s = &scrapes{sink: new(consumertest.MetricsSink)}
	defer func() {
		if err != nil {
			s.stop()
		}
	}()
	relabels := make([]any, 0, len(metricRelabel))
	for _, r := range metricRelabel {
		relabels = append(relabels, r)
	}
	var scrapeConfigs []any
	for i, t := range targets {
		file := t.File
		if !filepath.IsAbs(file) {
			file = filepath.Join(ExpositionDir(), file)
		}
		e, err := demofleet.NewEngine(t.Job, "127.0.0.1:0", file)
		if err != nil {
			return s, err
		}
		e.OpenMetrics = t.OpenMetrics
		if err := e.Start(); err != nil {
			return s, err
		}
		s.engines = append(s.engines, e)
		labels := map[string]any{}
		for k, v := range t.Labels {
			labels[k] = v
		}
		scrapeConfigs = append(scrapeConfigs, map[string]any{
			"job_name":               fmt.Sprintf("%s-%d", t.Job, i),
			"scrape_interval":        "1s",
			"scrape_timeout":         "1s",
			"static_configs":         []any{map[string]any{"targets": []any{e.Addr}, "labels": labels}},
			"metric_relabel_configs": relabels,
		})
	}
	cfg := factory.CreateDefaultConfig()
	conf := confmap.NewFromStringMap(map[string]any{"config": map[string]any{"scrape_configs": scrapeConfigs}})
	if err := conf.Unmarshal(cfg); err != nil {
		return s, err
	}
	rcv, err := factory.CreateMetrics(ctx, receivertest.NewNopSettings(factory.Type()), cfg, s.sink)
	if err != nil {
		return s, err
	}
	if err := rcv.Start(ctx, componenttest.NewNopHost()); err != nil {
		return s, err
	}
	s.rcv = rcv
	return s, nil
}

func (s *scrapes) stop() {
	if s.rcv != nil {
		_ = s.rcv.Shutdown(context.Background())
	}
	for _, e := range s.engines {
		_ = e.Stop()
	}
}

// first waits for one scrape of every target: one resource per target.
func (s *scrapes) first(targets int) (pmetric.Metrics, error) {
	return waitFor(targets, "scrapes of", func() pmetric.Metrics { return firstPerTarget(s.sink.AllMetrics(), nil) })
}

// waitFor polls got until it holds a resource per target, for at most 30 s.
func waitFor(targets int, what string, got func() pmetric.Metrics) (pmetric.Metrics, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		md := got()
		if md.ResourceMetrics().Len() >= targets {
			return md, nil
		}
		if time.Now().After(deadline) {
			return pmetric.Metrics{}, fmt.Errorf("%s %d of %d targets in 30s", what, md.ResourceMetrics().Len(), targets)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// firstPerTarget keeps the first scrape of each target (by service.instance.id) that keep
// accepts (nil: any).
func firstPerTarget(batches []pmetric.Metrics, keep func(pmetric.ResourceMetrics) bool) pmetric.Metrics {
	out := pmetric.NewMetrics()
	seen := map[string]bool{}
	for _, b := range batches {
		for i := 0; i < b.ResourceMetrics().Len(); i++ {
			rm := b.ResourceMetrics().At(i)
			id, _ := rm.Resource().Attributes().Get("service.instance.id")
			if seen[id.AsString()] || (keep != nil && !keep(rm)) {
				continue
			}
			seen[id.AsString()] = true
			rm.CopyTo(out.ResourceMetrics().AppendEmpty())
		}
	}
	return out
}

// hasStalePoint reports whether a scrape holds a staleness marker.
func hasStalePoint(rm pmetric.ResourceMetrics) bool {
	sms := rm.ScopeMetrics()
	for i := 0; i < sms.Len(); i++ {
		ms := sms.At(i).Metrics()
		for j := 0; j < ms.Len(); j++ {
			if stale(ms.At(j)) {
				return true
			}
		}
	}
	return false
}

func stale(m pmetric.Metric) bool {
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		return m.Gauge().DataPoints().Len() > 0 && m.Gauge().DataPoints().At(0).Flags().NoRecordedValue()
	case pmetric.MetricTypeSum:
		return m.Sum().DataPoints().Len() > 0 && m.Sum().DataPoints().At(0).Flags().NoRecordedValue()
	case pmetric.MetricTypeHistogram:
		return m.Histogram().DataPoints().Len() > 0 && m.Histogram().DataPoints().At(0).Flags().NoRecordedValue()
	case pmetric.MetricTypeSummary:
		return m.Summary().DataPoints().Len() > 0 && m.Summary().DataPoints().At(0).Flags().NoRecordedValue()
	}
	return false
}
