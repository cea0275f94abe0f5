// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package e2e runs the built collector against real components on loopback: demo engines
// serving the recorded expositions, and Prometheus from Debian's package with its
// remote-write receiver. Assertions go through Prometheus's HTTP API.
package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/demofleet"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/syncbuffer"
)

var collectorBin string

func TestMain(m *testing.M) {
	collectorBin = os.Getenv("OTELCOL_MODELPLANE_BIN")
	if collectorBin == "" {
		// Build once for the whole package, as `make build` does.
		dir, err := os.MkdirTemp("", "e2e-bin")
		if err != nil {
			panic(err)
		}
		collectorBin = filepath.Join(dir, "otelcol-modelplane")
		cmd := exec.Command("go", "build", "-tags", "remove_all_sd,enable_kubernetes_sd,grpcnotrace", "-o", collectorBin, "../cmd/otelcol-modelplane")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			panic(err)
		}
		defer os.RemoveAll(dir)
	}
	os.Exit(m.Run())
}

func repoRoot() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..")
}

// process is a started program that is stopped at the end of the test.
type process struct {
	cmd *exec.Cmd
	out *syncbuffer.Buffer
}

func start(t *testing.T, name string, args ...string) *process {
	t.Helper()
	return startWithEnv(t, nil, name, args...)
}

// startWithEnv starts name with env (nil: this process's environment).
func startWithEnv(t *testing.T, env []string, name string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(name, args...), out: new(syncbuffer.Buffer)}
	p.cmd.Env = env
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	require.NoError(t, p.cmd.Start(), name)
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = p.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", filepath.Base(name), tail(withoutScrapeFailures(p.out.String()), 6000))
		}
	})
	return p
}

// withoutScrapeFailures drops the scrape failures a stopped engine causes, which would
// bury everything else in a failed test's log.
func withoutScrapeFailures(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.Contains(l, "Failed to scrape Prometheus endpoint") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// prometheus is a real Prometheus with its remote-write receiver on (and, for Prometheus 3,
// its OTLP receiver).
type prometheus struct {
	addr, dir string
	bin       string // "": Debian's prometheus
	config    string // the configuration file's text; "" for one that scrapes nothing
	proc      *process
}

func startPrometheus(t *testing.T) *prometheus {
	t.Helper()
	p := &prometheus{addr: freeport.Addr(t), dir: t.TempDir()}
	p.start(t)
	return p
}

// startPrometheus3 starts the Prometheus 3 that `make test` builds, whose OTLP receiver
// takes OTLP/HTTP at /api/v1/otlp/v1/metrics (Debian's 2.42 has none), with the resource
// attributes promote names made labels of every series of their resource.
func startPrometheus3(t *testing.T, promote ...string) *prometheus {
	t.Helper()
	p := &prometheus{addr: freeport.Addr(t), dir: t.TempDir(), bin: prometheus3Bin(t)}
	if len(promote) > 0 {
		p.config = "otlp:\n  promote_resource_attributes: [" + strings.Join(promote, ", ") + "]\n"
	}
	p.start(t)
	return p
}

// start runs Prometheus on p's address and data folder, so a restart keeps its data.
func (p *prometheus) start(t *testing.T) {
	t.Helper()
	bin, flags := p.bin, []string{"--web.enable-otlp-receiver"}
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("prometheus"); err != nil {
			t.Fatal("prometheus is not installed: `make test` installs Debian's prometheus package (make e2e-deps)")
		}
		flags = nil
	}
	cfg := filepath.Join(p.dir, "prometheus.yml")
	require.NoError(t, os.WriteFile(cfg, []byte("global:\n  scrape_interval: 1h\nscrape_configs: []\n"+p.config), 0o600))
	p.proc = start(t, bin, append([]string{"--config.file=" + cfg, "--storage.tsdb.path=" + filepath.Join(p.dir, "data"),
		"--web.listen-address=" + p.addr, "--web.enable-remote-write-receiver", "--log.level=warn"}, flags...)...)
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + p.addr + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 100*time.Millisecond, "prometheus did not become ready")
}

// stop ends Prometheus, as an outage of the backend.
func (p *prometheus) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, p.proc.cmd.Process.Signal(os.Interrupt))
	_, _ = p.proc.cmd.Process.Wait()
}

type sample struct {
	Labels map[string]string
	Value  float64
}

// query runs an instant query.
func (p *prometheus) query(t *testing.T, q string) []sample {
	t.Helper()
	resp, err := http.Get("http://" + p.addr + "/api/v1/query?query=" + url.QueryEscape(q))
	require.NoError(t, err)
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.Equal(t, "success", body.Status, body.Error)
	out := make([]sample, 0, len(body.Data.Result))
	for _, r := range body.Data.Result {
		v, err := strconv.ParseFloat(r.Value[1].(string), 64)
		require.NoError(t, err)
		out = append(out, sample{Labels: r.Metric, Value: v})
	}
	return out
}

// engine is one demo target with the labels Kubernetes relabelling would give it.
type engine struct {
	Job    string
	Addr   string
	Labels map[string]string
	e      *demofleet.Engine
}

func startEngine(t *testing.T, job, file string, labels map[string]string) *engine {
	t.Helper()
	e := startEngineAt(t, "127.0.0.1:0", job, file)
	e.Labels = labels
	return e
}

// startEngineAt serves the page at addr, such as one of the embedded default's addresses.
func startEngineAt(t *testing.T, addr, job, file string) *engine {
	t.Helper()
	path := file
	if !filepath.IsAbs(path) {
		path = filepath.Join(repoRoot(), "testdata", "exposition", file)
	}
	e, err := demofleet.NewEngine(job, addr, path)
	require.NoError(t, err)
	e.OpenMetrics = demofleet.SpeaksOpenMetrics(job) // as the real engines answer the receiver
	require.NoError(t, e.Start())
	t.Cleanup(func() { _ = e.Stop() })
	return &engine{Job: job, Addr: e.Addr, e: e}
}

var collectorConfig = template.Must(template.New("c").Parse(`
receivers:
  prometheus:
    config:
      scrape_configs:
{{- range $i, $e := .Engines }}
        - job_name: {{ $e.Job }}-{{ $i }}
          scrape_interval: {{ if $.Interval }}{{ $.Interval }}{{ else }}1s{{ end }}
          static_configs:
            - targets: ["{{ $e.Addr }}"]
              labels:
{{- range $k, $v := $e.Labels }}
                {{ $k }}: "{{ $v }}"
{{- end }}
          # As the chart's engines job: vLLM's own engine label (its engine index), displaced
          # by the target's engine label, stays as engine_index.
          metric_relabel_configs:
            - {source_labels: [exported_engine], regex: "(.+)", target_label: engine_index}
            - {regex: exported_engine, action: labeldrop}
{{- end }}
processors:
  memory_limiter:
    check_interval: 1s
    limit_mib: {{ .MemoryLimitMiB }}
  resource/cluster:
    attributes:
      - {key: cluster, value: e2e, action: upsert}
  modelplane_mapping:
    mapping_files: ["{{ .MappingDir }}/*.yaml"]
    reload_interval: 200ms
    scrape_filter: {{ .ScrapeFilter }}
{{- with .KeepSources }}
    keep_sources:
{{- range . }}
      - {{ printf "%q" . }}
{{- end }}
{{- end }}
{{- if .Kubeconfig }}
    cluster_mappings:
      enabled: true
      auth_type: kubeConfig
      kubeconfig: {{ .Kubeconfig }}
{{- end }}
  batch:
    timeout: 200ms
exporters:
{{- if .Prometheus }}
  prometheus_remote_write:
    endpoint: http://{{ .Prometheus }}/api/v1/write
    resource_constant_labels:
      included: ["*"]
    target_info:
      enabled: false
    # The delivery settings otelcol-modelplane recommends (docs/reliability.md): one request
    # at a time keeps samples in order across retries, and retries never give up on a down
    # backend.
    remote_write_queue:
      queue_size: 10000
    max_batch_request_parallelism: 1
    retry_on_failure:
      enabled: true
      initial_interval: 1s
      max_interval: 5s
      max_elapsed_time: 0
    # The exporter's retries run inside its per-request timeout (default 5s), so the timeout
    # is what bounds an outage: 10 minutes.
    timeout: 10m
{{- if .QueueDir }}
    # This distribution's sending queue on disk: batches not yet written survive a restart.
    sending_queue:
      enabled: true
      storage: file_storage
      queue_size: 10000
{{- end }}
{{- if .TokenFile }}
    auth:
      authenticator: bearertokenauth
{{- end }}
{{- end }}
{{- if .OTLP }}
  otlp_http:
    endpoint: http://{{ .OTLP }}
    compression: none
{{- if .QueueDir }}
    retry_on_failure:
      enabled: true
      initial_interval: 1s
      max_interval: 5s
      max_elapsed_time: 0
    sending_queue:
      enabled: true
      storage: file_storage
      queue_size: 10000
{{- end }}
{{- end }}
extensions:
  health_check:
    endpoint: {{ .Health }}
{{- if .TokenFile }}
  bearertokenauth:
    filename: {{ .TokenFile }}
    # As the chart renders it: a token file missing at start fails the start.
    wait_for_token_file: true
    retry_on_failure: {enabled: true, max_retries: 5, interval: 1s}
{{- end }}
{{- if .QueueDir }}
  file_storage:
    directory: {{ .QueueDir }}
{{- end }}
service:
  extensions: [health_check{{ if .TokenFile }}, bearertokenauth{{ end }}{{ if .QueueDir }}, file_storage{{ end }}]
  telemetry:
    metrics:
      level: none
  pipelines:
    metrics:
      receivers: [prometheus]
      processors: [memory_limiter, resource/cluster, modelplane_mapping, batch]
      exporters: [{{ if .Prometheus }}prometheus_remote_write{{ end }}{{ if and .Prometheus .OTLP }}, {{ end }}{{ if .OTLP }}otlp_http{{ end }}]
`))

type collectorSetup struct {
	Engines    []*engine
	Prometheus string // remote-write target host:port, if any
	OTLP       string // OTLP/HTTP target host:port, if any
	TokenFile  string // bearer token file for remote write, if any
	MappingDir string
	Health     string
	Interval   string // scrape interval; default 1s
	QueueDir   string // file_storage folder for the exporters' persistent sending queues, if any
	// ScrapeFilter drops unmapped series at scrape time (modelplane_mapping scrape_filter).
	ScrapeFilter bool
	// Kubeconfig, if set, has the processor read MetricMapping objects from that cluster.
	Kubeconfig string
	// KeepSources are the processor's keep_sources, if any.
	KeepSources []string
}

// MemoryLimitMiB is the memory_limiter's limit, the same in every test.
func (collectorSetup) MemoryLimitMiB() int { return memoryLimitMiB }

const memoryLimitMiB = 400

func startCollector(t *testing.T, setup collectorSetup) *process {
	t.Helper()
	return startCollectorFrom(t, collectorBin, nil, setup)
}

// startCollectorFrom starts the collector binary bin with env (nil: this process's).
func startCollectorFrom(t *testing.T, bin string, env []string, setup collectorSetup) *process {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, collectorConfig.Execute(&buf, setup))
	cfg := filepath.Join(t.TempDir(), "collector.yaml")
	require.NoError(t, os.WriteFile(cfg, buf.Bytes(), 0o600))
	p := startWithEnv(t, env, bin, "--config="+cfg)
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + setup.Health)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 100*time.Millisecond, "collector did not become healthy")
	return p
}

func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
