// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

//go:build linux

// Command e2e compares whole collectors on the same work: otelcol-modelplane against the
// reference collector running the processors Modelplane renders for contrib. Both scrape the
// same demo fleet (engine replicas and GPUs from testdata/exposition, counters advancing)
// for the same time, export over OTLP/HTTP to local sinks, in alternating runs (or both at
// once, -together). It prints per run: CPU seconds, peak RSS, series and samples out,
// start-up time to first export; and checks that both exported the same series.
//
//	go run ./bench/e2e -ours bin/otelcol-modelplane -reference bin/otelcol-reference
//
// It runs on Linux only: it reads /proc and drops executables from the page cache.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/template"
	"time"

	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.yaml.in/yaml/v3"

	"github.com/modelplaneai/otelcol-modelplane/internal/points"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/demofleet"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/pagecache"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/procstat"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/scrapetest"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/syncbuffer"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/scrapefilter"
)

func main() {
	ours := flag.String("ours", "bin/otelcol-modelplane", "otelcol-modelplane binary")
	ref := flag.String("reference", "bin/otelcol-reference", "reference collector binary")
	sizes := flag.String("fleets", "8x8,64x8,256x16", "engines x GPUs, comma-separated")
	runFor := flag.Duration("run", 20*time.Second, "how long each collector scrapes after its first export")
	interval := flag.Duration("interval", 2*time.Second, "scrape interval")
	reps := flag.Int("reps", 3, "runs per collector and fleet, alternating")
	profiles := flag.String("profiles", "", "in the last run of each collector at the last fleet, write a CPU profile and then a heap profile of it to this folder (<binary>.pprof, <binary>.pprof.heap); that run lasts -profile-for longer")
	profileFor := flag.Duration("profile-for", 10*time.Second, "length of the CPU profile")
	idleFor := flag.Duration("idle", 10*time.Second, "how long each collector runs idle (one scrape job, no reachable target) before the fleets; 0 skips it")
	oursEnvFlag := flag.String("ours-env", "", "extra environment for our collector only, comma-separated KEY=VALUE (such as GOGC=50), to measure a runtime setting against the same reference")
	flag.StringVar(&oursFeatureGates, "ours-feature-gates", "", "--feature-gates for our collector only (such as pdata.useProtoPooling), to measure a collector feature gate against the same reference")
	refEnvFlag := flag.String("reference-env", "", "extra environment for the reference collector only, as -ours-env (give both the same to measure a setting on both)")
	flag.BoolVar(&openMetrics, "openmetrics", false, "vLLM and SGLang engines answer in OpenMetrics, as the real ones do when the Prometheus receiver asks (both collectors); the text format otherwise")
	flag.BoolVar(&oursKeptPages, "ours-kept-pages", false, "an experiment: our collector gets pages that hold only the lines its keep rule keeps (the reference still gets whole pages), to measure what never sending, or skipping before parsing, the rest would save")
	flag.BoolVar(&minimalPages, "minimal-pages", false, "an experiment: both collectors get pages that hold one mapped gauge per engine and GPU exporter and nothing else (vLLM's and SGLang's running requests, the GPUs' temperature; the gateway's and picker's pages empty), to measure the fixed cost of scraping the fleet's targets, which no saving per line moves")
	both := flag.Bool("together", false, "run both collectors at once in each repetition, on the same fleet and over the same window, instead of one after the other: both meet the same load of the machine, so the ratio of a pair no longer moves with it (start-up then overlaps the other collector's scraping); not with -profiles")
	busy := flag.Int("busy", 0, "run this many busy loops (processes that only spin) for the whole run, as a node whose engines keep some cores busy")
	spin := flag.Bool("spin", false, "spin until killed (what -busy runs)")
	flag.Parse()
	if minimalPages && oursKeptPages {
		log.Fatal("-minimal-pages and -ours-kept-pages choose the pages two ways: give one")
	}
	if *spin {
		for {
			spun.Add(1)
		}
	}
	if *busy > 0 {
		stop, err := spinners(*busy)
		if err != nil {
			log.Fatal(err)
		}
		defer stop()
	}
	for which, f := range map[string]string{"ours": *oursEnvFlag, "reference": *refEnvFlag} {
		if f == "" {
			continue
		}
		extraEnv[which] = strings.Split(f, ",")
		for _, kv := range extraEnv[which] {
			if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
				log.Fatalf("-%s-env: %q is not KEY=VALUE", which, kv)
			}
		}
	}

	if *both && *profiles != "" {
		log.Fatal("-together and -profiles: profile in runs one after the other")
	}
	bins := map[string]string{"ours": *ours, "reference": *ref}
	// repetition runs both collectors once, as -together says, in order.
	repetition := func(r int, targets []target, runFor time.Duration, prof func(which string) profile) (map[string]result, error) {
		if *both {
			return together(bins, order(r), targets, *interval, runFor)
		}
		out := map[string]result{}
		for _, which := range order(r) {
			res, err := run(bins[which], which, targets, *interval, runFor, prof(which))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", which, err)
			}
			out[which] = res
		}
		return out, nil
	}

	if *profiles != "" {
		if err := os.MkdirAll(*profiles, 0o755); err != nil {
			log.Fatal(err)
		}
	}

	fmt.Printf("| fleet | collector | CPU s | CPU s after first export | peak RSS MiB | peak anon MiB | series | samples | start-up to first export |\n|---|---|---|---|---|---|---|---|---|\n")
	if *idleFor > 0 {
		var runs ratios
		for r := 0; r < *reps; r++ {
			res, err := repetition(r, nil, *idleFor, func(string) profile { return profile{} })
			if err != nil {
				log.Fatalf("idle: %v", err)
			}
			for _, which := range order(r) {
				fmt.Printf("| idle | %s | %.2f | | %.1f | %.1f | | | |\n", which, res[which].cpu, mib(res[which].peakRSS), mib(res[which].peakAnon))
				runs.add(which, r, res[which])
			}
		}
		fmt.Printf("| idle | %s | %s | | %s | %s | | | |\n", ratioLabel, runs.of(cpuWhole), runs.of(rssPeak), runs.of(anonPeak))
	}
	sizeList := strings.Split(*sizes, ",")
	for _, size := range sizeList {
		var engines, gpus int
		if _, err := fmt.Sscanf(size, "%dx%d", &engines, &gpus); err != nil {
			log.Fatalf("fleet %q: want ENGINESxGPUS", size)
		}
		var keep func(metric string) bool
		if minimalPages {
			keep = minimalLines
		}
		if oursKeptPages {
			var err error
			if keep, err = keptLines(); err != nil {
				log.Fatal(err)
			}
		}
		targets, stop, err := startFleet(engines, gpus, keep)
		if err != nil {
			log.Fatal(err)
		}
		series := map[string]map[string]bool{}
		var runs ratios
		for r := 0; r < *reps; r++ {
			last := size == sizeList[len(sizeList)-1] && r == *reps-1
			prof := func(which string) profile {
				if *profiles == "" || !last {
					return profile{}
				}
				return profile{out: filepath.Join(*profiles, filepath.Base(bins[which])+".pprof"), length: *profileFor}
			}
			res, err := repetition(r, targets, *runFor, prof)
			if err != nil {
				log.Fatalf("%s: %v", size, err)
			}
			for _, which := range order(r) {
				label := which
				if prof(which).out != "" {
					label += " (profiled)"
				}
				fmt.Printf("| %d engines, %d GPUs | %s | %.2f | %.2f | %.1f | %.1f | %d | %d | %v |\n", engines, gpus, label,
					res[which].cpu, res[which].cpuSteady, mib(res[which].peakRSS), mib(res[which].peakAnon), len(res[which].series), res[which].samples, res[which].startup.Round(10*time.Millisecond))
				series[which] = res[which].series
				if prof(which).out == "" {
					runs.add(which, r, res[which])
				}
			}
		}
		fmt.Printf("| %d engines, %d GPUs | %s | %s | %s | %s | %s | | | |\n", engines, gpus, ratioLabel,
			runs.of(cpuWhole), runs.of(cpuAfterFirst), runs.of(rssPeak), runs.of(anonPeak))
		missing, extra := diff(series["reference"], series["ours"])
		fmt.Printf("| %d engines, %d GPUs | same series? | %v | | | | only in reference: %d | only in ours: %d | |\n", engines, gpus, missing == 0 && extra == 0, missing, extra)
		stop()
	}
}

// spun is what a spinner counts, so that its loop is not empty.
var spun atomic.Uint64

// spinners starts n processes of this program that spin, and returns what stops them; they
// also end with the driver (a log.Fatal skips deferred calls).
func spinners(n int) (func(), error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var cmds []*exec.Cmd
	stop := func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}
	for range n {
		c := exec.Command(self, "-spin")
		c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := c.Start(); err != nil {
			stop()
			return nil, err
		}
		cmds = append(cmds, c)
	}
	return stop, nil
}

// profile asks a run for a CPU profile of length, then a heap profile, written to out and
// out.heap; a zero profile asks for none.
type profile struct {
	out    string
	length time.Duration
}

// order alternates which collector runs first, so neither always meets a warmer machine.
func order(rep int) []string {
	if rep%2 == 1 {
		return []string{"reference", "ours"}
	}
	return []string{"ours", "reference"}
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

type result struct {
	cpu       float64 // user+system seconds, the whole run
	cpuSteady float64 // of which after the first export: the scraping a long-running collector pays
	peakRSS   int64
	peakAnon  int64 // largest RssAnon seen, sampled every 100 ms
	series    map[string]bool
	samples   int
	startup   time.Duration
}

func diff(a, b map[string]bool) (onlyA, onlyB int) {
	for k := range a {
		if !b[k] {
			onlyA++
		}
	}
	for k := range b {
		if !a[k] {
			onlyB++
		}
	}
	return onlyA, onlyB
}

// sink is an OTLP/HTTP receiver that counts what it gets.
type sink struct {
	mu      sync.Mutex
	first   time.Time
	series  map[string]bool
	samples int
}

func (s *sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := pmetricotlp.NewExportRequest()
	if err := req.UnmarshalProto(body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	if s.first.IsZero() {
		s.first = time.Now()
	}
	count(req.Metrics(), s.series, &s.samples)
	s.mu.Unlock()
	out, _ := pmetricotlp.NewExportResponse().MarshalProto()
	_, _ = w.Write(out)
}

// count adds md's series (name, type and attributes; empty values left out as Prometheus
// does) and points.
func count(md pmetric.Metrics, series map[string]bool, samples *int) {
	key := func(m pcommon.Map) string {
		var kv []string
		for k, v := range m.All() {
			if s := v.AsString(); s != "" {
				kv = append(kv, k+"="+s)
			}
		}
		sort.Strings(kv)
		return strings.Join(kv, ",")
	}
	points.Walk(md, func(res pcommon.Map, m pmetric.Metric, attrs pcommon.Map) {
		series[m.Name()+"{"+key(res)+"|"+key(attrs)+"}"] = true
		*samples++
	})
}

var config = template.Must(template.New("c").Parse(`
receivers:
  {{ .Receiver }}:
    config:
      scrape_configs:
{{- range $job, $ts := .Jobs }}
        - job_name: {{ $job }}
          scrape_interval: {{ $.Interval }}
{{- if $.KeptPages }}
          params: {only: [kept]}
{{- end }}
          static_configs:
{{- range $ts }}
            - targets: ["{{ .Addr }}"]
              labels: { {{- range $k, $v := .Labels }}{{ $k }}: "{{ $v }}", {{ end -}} }
{{- end }}
{{- end }}
processors:
  memory_limiter:
    check_interval: 1s
    limit_mib: 4000
{{ .Processors }}
  batch:
    timeout: 1s
exporters:
  otlp_http:
    endpoint: http://{{ .Sink }}
    compression: none
{{- if .Pprof }}
extensions:
  pprof:
    endpoint: {{ .Pprof }}
{{- end }}
service:
{{- if .Pprof }}
  extensions: [pprof]
{{- end }}
  telemetry:
    metrics:
      level: none
  pipelines:
    metrics:
      receivers: [{{ .Receiver }}]
      processors: [{{ .Pipeline }}]
      exporters: [otlp_http]
`))

type target struct {
	Job, Addr string
	Labels    map[string]string
}

// builtinsFile holds Modelplane's built-in mappings, which ours is given as a file so that
// both collectors do the same mapping work.
const builtinsFile = "testdata/anchor/modelplane-builtins.yaml"

func processors(which string) (string, string, error) {
	if which == "ours" {
		return `  resource/cluster:
    attributes:
      - {key: cluster, value: bench, action: upsert}
  modelplane_mapping:
    builtin: []
    mapping_files: [` + builtinsFile + `]
    scrape_filter: true`, "memory_limiter, resource/cluster, modelplane_mapping, batch", nil
	}
	raw, err := os.ReadFile("testdata/anchor/modelplane-pipeline.yaml")
	if err != nil {
		return "", "", err
	}
	var doc struct {
		Processors map[string]any `yaml:"processors"`
	}
	if err := yaml.Unmarshal(bytes.ReplaceAll(raw, []byte("${env:CLUSTER_NAME}"), []byte("bench")), &doc); err != nil {
		return "", "", err
	}
	out, err := yaml.Marshal(doc.Processors)
	if err != nil {
		return "", "", err
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		b.WriteString("  " + l + "\n")
	}
	return strings.TrimRight(b.String(), "\n"), "memory_limiter, resource/cluster, transform/identity, transform/modelplane, groupbyattrs/identity, filter/modelplane, batch", nil
}

// openMetrics is -openmetrics.
var openMetrics bool

// oursKeptPages is -ours-kept-pages.
var oursKeptPages bool

// minimalPages is -minimal-pages; minimalLines is what its pages keep.
var minimalPages bool

func minimalLines(metric string) bool {
	switch metric {
	case "vllm:num_requests_running", "sglang:num_running_reqs", "DCGM_FI_DEV_GPU_TEMP":
		return true
	}
	return false
}

// keptLines reports whether our keep rule keeps a metric name, the rule as the converter
// builds it from the mapping file our collector is given.
func keptLines() (func(metric string) bool, error) {
	conf := confmap.NewFromStringMap(map[string]any{"builtin": []any{}, "mapping_files": []any{builtinsFile}, "scrape_filter": true})
	names, _, err := modelplanemapping.ScrapeSources(conf, nil)
	if err != nil {
		return nil, err
	}
	return scrapefilter.KeepMatcher(names).MatchString, nil
}

// startFleet serves the demo fleet both collectors scrape, so they see the same targets;
// keep, when set, is what an engine sends to a scrape that asks for kept lines only.
func startFleet(engines, gpus int, keep func(metric string) bool) ([]target, func(), error) {
	var fleet []*demofleet.Engine
	stop := func() {
		for _, e := range fleet {
			_ = e.Stop()
		}
	}
	var targets []target
	for _, t := range scrapetest.Fleet(engines, gpus) {
		e, err := demofleet.NewEngine(t.Job, "127.0.0.1:0", filepath.Join("testdata", "exposition", t.File))
		if err != nil {
			stop()
			return nil, nil, err
		}
		e.Keep = keep
		e.OpenMetrics = openMetrics && demofleet.SpeaksOpenMetrics(t.Job)
		if err := e.Start(); err != nil {
			stop()
			return nil, nil, err
		}
		fleet = append(fleet, e)
		targets = append(targets, target{Job: t.Job, Addr: e.Addr, Labels: t.Labels})
	}
	return targets, stop, nil
}

// fetchProfile writes the CPU profile p asks for, then a heap profile.
func fetchProfile(addr string, p profile) error {
	if err := fetch(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, int(p.length.Seconds())), p.out); err != nil {
		return err
	}
	return fetch("http://"+addr+"/debug/pprof/heap", p.out+".heap")
}

func fetch(url, out string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(f, resp.Body)
	return err
}

// extraEnv is -ours-env and -reference-env: added to that collector's environment.
var extraEnv = map[string][]string{}

// oursFeatureGates is -ours-feature-gates: our collector's --feature-gates.
var oursFeatureGates string

// renderConfig is the configuration a collector runs under: its processors, one scrape job
// per kind of target (or, with no targets, the idle job), exporting to sink.
func renderConfig(which string, targets []target, interval time.Duration, sink, pprof string) ([]byte, error) {
	procs, pipeline, err := processors(which)
	if err != nil {
		return nil, err
	}
	// One scrape job per kind of target, as a DaemonSet's config has (one per engine kind,
	// each over the node's pods), not one per target.
	jobs := map[string][]target{}
	for _, t := range targets {
		jobs[t.Job] = append(jobs[t.Job], t)
	}
	if len(targets) == 0 { // one job whose target refuses connections: the collector's fixed cost
		jobs["idle"] = []target{{Job: "idle", Addr: "127.0.0.1:1"}}
	}
	// Each scrapes with its default's receiver: ours node_scrape, the reference Prometheus'.
	receiver := "prometheus"
	if which == "ours" {
		receiver = "node_scrape"
	}
	var cfg bytes.Buffer
	err = config.Execute(&cfg, map[string]any{"Receiver": receiver, "Jobs": jobs, "Interval": interval, "Sink": sink, "Processors": procs, "Pipeline": pipeline, "Pprof": pprof, "KeptPages": which == "ours" && oursKeptPages || minimalPages})
	return cfg.Bytes(), err
}

func run(bin, which string, targets []target, interval, runFor time.Duration, prof profile) (result, error) {
	c, err := launch(bin, which, targets, interval, prof)
	if err != nil {
		return result{}, err
	}
	defer c.close()
	time.Sleep(runFor)
	if err := c.read(); err != nil {
		return result{}, err
	}
	return c.finish(), nil
}

// collector is one collector process started on a fleet, exporting to a sink of its own.
type collector struct {
	cmd         *exec.Cmd
	sink        *sink
	began       time.Time
	cpuAtFirst  float64
	peakAnon    *atomic.Int64
	endSampling func()
	cleanups    []func()
	cpu         float64
	rss         int64
}

// close stops the collector if finish did not, and removes what launch made for it.
func (c *collector) close() {
	for i := len(c.cleanups) - 1; i >= 0; i-- {
		c.cleanups[i]()
	}
}

// launch starts which's collector on targets, and returns once it has exported (right away
// for an idle run, one with no targets), and after the profile prof asks for.
func launch(bin, which string, targets []target, interval time.Duration, prof profile) (_ *collector, err error) {
	c := &collector{sink: &sink{series: map[string]bool{}}, peakAnon: new(atomic.Int64)}
	defer func() {
		if err != nil {
			c.close()
		}
	}()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: c.sink, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	c.cleanups = append(c.cleanups, func() { srv.Close() })

	pprof := ""
	if prof.out != "" {
		pl, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		pprof = pl.Addr().String()
		pl.Close()
	}
	idle := len(targets) == 0
	cfg, err := renderConfig(which, targets, interval, ln.Addr().String(), pprof)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "bench-e2e")
	if err != nil {
		return nil, err
	}
	c.cleanups = append(c.cleanups, func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, cfg, 0o600); err != nil {
		return nil, err
	}
	// Every run starts from an executable the page cache does not hold, as on a node that has
	// just pulled the image: how many file pages a fault maps, and so RSS, depends on how the
	// file came into the cache.
	if err := pagecache.Evict(bin); err != nil {
		return nil, err
	}
	args := []string{"--config=" + path}
	if which == "ours" && oursFeatureGates != "" {
		args = append(args, "--feature-gates="+oursFeatureGates)
	}
	c.cmd = exec.Command(bin, args...)
	if env := extraEnv[which]; len(env) > 0 {
		c.cmd.Env = append(os.Environ(), env...)
	}
	var logs syncbuffer.Buffer
	c.cmd.Stdout, c.cmd.Stderr = &logs, &logs
	c.began = time.Now()
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	c.cleanups = append(c.cleanups, func() {
		if c.cmd.ProcessState == nil {
			_ = c.cmd.Process.Kill()
			_ = c.cmd.Wait()
		}
	})
	sampled := make(chan struct{})
	stopSampling := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			if anon, _, err := procstat.Resident(c.cmd.Process.Pid); err == nil && anon > c.peakAnon.Load() {
				c.peakAnon.Store(anon)
			}
			select {
			case <-stopSampling:
				return
			case <-tick.C:
			}
		}
	}()
	c.endSampling = sync.OnceFunc(func() { close(stopSampling); <-sampled })
	c.cleanups = append(c.cleanups, c.endSampling)
	deadline := time.Now().Add(60 * time.Second)
	for !idle {
		c.sink.mu.Lock()
		first := c.sink.first
		c.sink.mu.Unlock()
		if !first.IsZero() {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no export within 60s:\n%s", tail(logs.String()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := c.markSteady(); err != nil {
		return nil, err
	}
	if pprof != "" {
		if err := fetchProfile(pprof, prof); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// markSteady starts the window of the run's CPU after first export now.
func (c *collector) markSteady() error {
	cpu, _, err := procstat.Read(c.cmd.Process.Pid)
	c.cpuAtFirst = cpu
	return err
}

// read ends the run's window: its CPU and peak RSS now.
func (c *collector) read() error {
	c.endSampling()
	var err error
	c.cpu, c.rss, err = procstat.Read(c.cmd.Process.Pid)
	return err
}

// finish stops the collector and returns the run's figures, as read took them.
func (c *collector) finish() result {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	_ = c.cmd.Wait()
	s := c.sink
	s.mu.Lock()
	defer s.mu.Unlock()
	return result{cpu: c.cpu, cpuSteady: c.cpu - c.cpuAtFirst, peakRSS: c.rss, peakAnon: c.peakAnon.Load(), series: s.series, samples: s.samples, startup: s.first.Sub(c.began)}
}

// together runs both collectors at once on the same fleet for one repetition: started in
// order, one after the other has exported, then measured over the same window of runFor, so
// that both meet the same load of the machine.
func together(bins map[string]string, order []string, targets []target, interval, runFor time.Duration) (map[string]result, error) {
	cs := map[string]*collector{}
	defer func() {
		for _, c := range cs {
			c.close()
		}
	}()
	for _, which := range order {
		c, err := launch(bins[which], which, targets, interval, profile{})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", which, err)
		}
		cs[which] = c
	}
	for _, which := range order {
		if err := cs[which].markSteady(); err != nil {
			return nil, err
		}
	}
	time.Sleep(runFor)
	for _, which := range order {
		if err := cs[which].read(); err != nil {
			return nil, err
		}
	}
	out := map[string]result{}
	for _, which := range order {
		out[which] = cs[which].finish()
	}
	return out, nil
}

func tail(s string) string {
	if len(s) > 3000 {
		return s[len(s)-3000:]
	}
	return s
}

// ratioLabel names the row that sums up a fleet: ours over the reference.
const ratioLabel = "ours / reference: mean (range and median of the runs paired by repetition)"

// A measure picks one figure of a run.
type measure func(result) float64

func cpuWhole(r result) float64      { return r.cpu }
func cpuAfterFirst(r result) float64 { return r.cpuSteady }
func rssPeak(r result) float64       { return float64(r.peakRSS) }
func anonPeak(r result) float64      { return float64(r.peakAnon) }

// ratios keeps the unprofiled runs of one fleet, by collector and repetition, so the
// summary row is computed here rather than by hand from the rows above it.
type ratios map[string]map[int]result

func (rs *ratios) add(which string, rep int, res result) {
	if *rs == nil {
		*rs = ratios{}
	}
	if (*rs)[which] == nil {
		(*rs)[which] = map[int]result{}
	}
	(*rs)[which][rep] = res
}

// of formats ours/reference for m: the mean of our runs over the mean of the reference's,
// then the lowest and highest ratio of the two runs of one repetition (the two collectors
// run back to back, so a pair shares the machine's load of the moment).
func (rs ratios) of(m measure) string {
	mean := func(runs map[int]result) float64 {
		var sum float64
		for _, r := range runs {
			sum += m(r)
		}
		return sum / float64(len(runs))
	}
	ours, ref := rs["ours"], rs["reference"]
	if len(ours) == 0 || len(ref) == 0 || mean(ref) == 0 {
		return "n/a"
	}
	out := fmt.Sprintf("%.2fx", mean(ours)/mean(ref))
	var pairs []float64
	for rep, o := range ours {
		if r, ok := ref[rep]; ok && m(r) != 0 {
			pairs = append(pairs, m(o)/m(r))
		}
	}
	if len(pairs) == 0 {
		return out
	}
	sort.Float64s(pairs)
	out += fmt.Sprintf(" (%.2f-%.2f", pairs[0], pairs[len(pairs)-1])
	if len(pairs) >= 3 {
		// With a few runs the mean follows a run the machine slowed; the median pair does not.
		median := pairs[len(pairs)/2]
		if len(pairs)%2 == 0 {
			median = (pairs[len(pairs)/2-1] + median) / 2
		}
		out += fmt.Sprintf(", median %.2f", median)
	}
	return out + ")"
}
