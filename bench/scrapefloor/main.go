// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Command scrapefloor is the least a Go collector can do for a scrape config, to measure the
// floor under any collector on the same fleet and machine: it scrapes every target of every
// job each scrape_interval over HTTP with keep-alive (as Prometheus does), reads the page and
// counts its sample lines, and exports one gauge per target over OTLP/HTTP every second (as
// the batch processor of bench/e2e's pipelines does). It parses, relabels, caches and maps
// nothing, and reports no `up` or `scrape_*` series.
//
// bench/e2e runs it in place of a collector, since it reads the same --config:
//
//	go build -o bin/scrapefloor ./bench/scrapefloor
//	go run ./bench/e2e -ours bin/otelcol-modelplane -reference bin/scrapefloor -fleets 8x8 -idle 0
//
// SCRAPEFLOOR_LOOPS in its environment chooses how scrapes are scheduled: "target" (the
// default) gives each target a goroutine and a ticker of its own, offset across the interval,
// as Prometheus' scrape manager does; "job" scrapes a job's targets one after the other from
// one goroutine, the design a dedicated reader could choose to wake up less often.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.yaml.in/yaml/v3"
)

func main() {
	path := flag.String("config", "", "collector config, as bench/e2e renders it")
	flag.String("feature-gates", "", "accepted and ignored, as bench/e2e may pass it")
	flag.Parse()
	cfg, err := load(*path)
	if err != nil {
		log.Fatal(err)
	}
	perJob := false
	switch loops := os.Getenv("SCRAPEFLOOR_LOOPS"); loops {
	case "", "target":
	case "job":
		perJob = true
	default:
		log.Fatalf("SCRAPEFLOOR_LOOPS: %q is neither target nor job", loops)
	}
	f := newFloor(cfg)
	f.start(perJob)
	select {} // until bench/e2e's SIGTERM
}

// config is the part of a collector config that scrapefloor reads.
type config struct {
	Receivers struct {
		Prometheus struct {
			Config struct {
				ScrapeConfigs []job `yaml:"scrape_configs"`
			} `yaml:"config"`
		} `yaml:"prometheus"`
	} `yaml:"receivers"`
	Exporters struct {
		OTLPHTTP struct {
			Endpoint string `yaml:"endpoint"`
		} `yaml:"otlp_http"`
	} `yaml:"exporters"`
}

type job struct {
	Name          string              `yaml:"job_name"`
	Interval      string              `yaml:"scrape_interval"`
	Params        map[string][]string `yaml:"params"`
	StaticConfigs []struct {
		Targets []string `yaml:"targets"`
	} `yaml:"static_configs"`
}

func load(path string) (config, error) {
	var cfg config
	raw, err := os.ReadFile(path)
	if err != nil {
		return cfg, err
	}
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		return cfg, fmt.Errorf("%s: %w", path, err)
	}
	if cfg.Exporters.OTLPHTTP.Endpoint == "" {
		return cfg, fmt.Errorf("%s: exporters.otlp_http.endpoint is empty", path)
	}
	for _, j := range cfg.Receivers.Prometheus.Config.ScrapeConfigs {
		if _, err := time.ParseDuration(j.Interval); err != nil {
			return cfg, fmt.Errorf("%s: job %s: scrape_interval %q: %w", path, j.Name, j.Interval, err)
		}
	}
	return cfg, nil
}

// target is one page to scrape, with the sample lines its last scrape counted.
type target struct {
	job, instance, url string
	body               bytes.Buffer
	samples            int
	// ok: its last scrape succeeded. Only such targets are exported, so a failing target
	// shows in bench/e2e's samples column, not only in a log the driver does not print.
	ok bool
}

// scrapeJob is one scrape job's targets and interval.
type scrapeJob struct {
	interval time.Duration
	targets  []*target
}

type floor struct {
	client   *http.Client
	endpoint string
	jobs     []scrapeJob

	done chan struct{}

	mu      sync.Mutex
	scraped bool // since the last export
	failed  int  // scrapes that failed since the last export, logged then
	lastErr error
}

func newFloor(cfg config) *floor {
	endpoint := cfg.Exporters.OTLPHTTP.Endpoint
	if !strings.Contains(endpoint, "://") {
		endpoint = "http://" + endpoint
	}
	f := &floor{client: &http.Client{Timeout: 10 * time.Second}, endpoint: strings.TrimSuffix(endpoint, "/") + "/v1/metrics", done: make(chan struct{})}
	for _, j := range cfg.Receivers.Prometheus.Config.ScrapeConfigs {
		var ts []*target
		query := url.Values(j.Params).Encode()
		for _, sc := range j.StaticConfigs {
			for _, addr := range sc.Targets {
				u := "http://" + addr + "/metrics"
				if query != "" {
					u += "?" + query
				}
				ts = append(ts, &target{job: j.Name, instance: addr, url: u})
			}
		}
		interval, _ := time.ParseDuration(j.Interval) // checked by load
		f.jobs = append(f.jobs, scrapeJob{interval: interval, targets: ts})
	}
	return f
}

// start schedules the scrapes and the export. Offsets spread the wake-ups across the
// interval, as Prometheus spreads its targets'.
func (f *floor) start(perJob bool) {
	loops := 0 // how many loops the offsets spread over
	for _, j := range f.jobs {
		if perJob {
			loops++
		} else {
			loops += len(j.targets)
		}
	}
	spread := func(k int, interval time.Duration) time.Duration {
		return time.Duration(k) * interval / time.Duration(loops)
	}
	k := 0
	for _, j := range f.jobs {
		if perJob {
			go f.every(j.interval, spread(k, j.interval), func() {
				for _, t := range j.targets {
					f.scrape(t)
				}
			})
			k++
			continue
		}
		for _, t := range j.targets {
			go f.every(j.interval, spread(k, j.interval), func() { f.scrape(t) })
			k++
		}
	}
	go f.every(time.Second, 0, f.export)
}

// stop ends the loops start began, each after what it is doing now.
func (f *floor) stop() { close(f.done) }

func (f *floor) every(interval, offset time.Duration, do func()) {
	select {
	case <-time.After(offset):
	case <-f.done:
		return
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		do()
		select {
		case <-tick.C:
		case <-f.done:
			return
		}
	}
}

// scrape reads t's page and counts its sample lines (neither empty nor a comment).
func (f *floor) scrape(t *target) {
	n, err := t.fetch(f.client)
	f.mu.Lock()
	defer f.mu.Unlock()
	t.ok = err == nil
	if err != nil {
		f.failed++
		f.lastErr = err
		return
	}
	t.samples = n
	f.scraped = true
}

func (t *target) fetch(client *http.Client) (int, error) {
	req, err := http.NewRequest(http.MethodGet, t.url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s: %s", t.url, resp.Status)
	}
	t.body.Reset()
	if _, err := t.body.ReadFrom(resp.Body); err != nil {
		return 0, fmt.Errorf("%s: %w", t.url, err)
	}
	n := 0
	for line := range bytes.Lines(t.body.Bytes()) {
		if len(line) > 1 && line[0] != '#' {
			n++
		}
	}
	return n, nil
}

// export sends one gauge per target whose last scrape succeeded, its count of sample lines,
// if anything was scraped since the last export.
func (f *floor) export() {
	md := pmetric.NewMetrics()
	f.mu.Lock()
	if f.failed > 0 {
		log.Printf("%d scrapes failed since the last export, the last: %v", f.failed, f.lastErr)
		f.failed = 0
	}
	if !f.scraped {
		f.mu.Unlock()
		return
	}
	f.scraped = false
	m := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("scrapefloor_samples")
	g := m.SetEmptyGauge()
	now := pcommon.NewTimestampFromTime(time.Now())
	for _, j := range f.jobs {
		for _, t := range j.targets {
			if !t.ok {
				continue
			}
			p := g.DataPoints().AppendEmpty()
			p.SetTimestamp(now)
			p.SetIntValue(int64(t.samples))
			p.Attributes().PutStr("job", t.job)
			p.Attributes().PutStr("instance", t.instance)
		}
	}
	f.mu.Unlock()
	body, err := pmetricotlp.NewExportRequestFromMetrics(md).MarshalProto()
	if err != nil {
		log.Print(err)
		return
	}
	resp, err := f.client.Post(f.endpoint, "application/x-protobuf", bytes.NewReader(body))
	if err != nil {
		log.Print(err)
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}
