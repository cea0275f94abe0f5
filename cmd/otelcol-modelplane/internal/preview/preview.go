// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package preview shows what otelcol-modelplane makes of one engine's /metrics page before
// a mapping is deployed: it fetches the page once, has the collector itself (a child process
// of the given executable, with a generated configuration) scrape it with the Prometheus
// receiver, map it with the built-ins, the given mapping files and, if asked, the cluster's
// MetricMapping objects, and returns the page that
// collector's Prometheus exporter then serves, with the embedded default's exporter settings.
// Running the real collector, rather than a copy of its pipeline, is what keeps the preview
// true to what a node will send.
package preview // import "github.com/modelplaneai/otelcol-modelplane/cmd/otelcol-modelplane/internal/preview"

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/template"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"
)

// Options say what to preview.
type Options struct {
	// Executable is the collector to run: otelcol-modelplane itself.
	Executable string
	// Source is an http(s) URL of a /metrics page, a file holding one, or "-" for Stdin.
	Source string
	// Stdin is read when Source is "-": a page piped from `kubectl exec ... -- curl`, say.
	Stdin io.Reader
	// MappingFiles are paths or globs of MetricMapping files, as mapping_files takes them.
	MappingFiles []string
	// NoBuiltins leaves out Modelplane's built-in mappings.
	NoBuiltins bool
	// Builtin names the built-in mappings to run, as the processor's builtin list takes them
	// ("default" for those on by default); empty: those on by default.
	Builtin []string
	// Job is the scrape job's name, the series' job label.
	Job string
	// Labels are target labels, as Kubernetes relabelling gives a pod's target (namespace,
	// deployment, replica, engine, role, node); the identity ones stay on every series.
	Labels map[string]string
	// ClusterMappings also applies the cluster's MetricMapping objects, read from the API
	// server as cluster_mappings reads them, with Kubeconfig (empty: $KUBECONFIG, then
	// ~/.kube/config, as kubectl).
	ClusterMappings bool
	Kubeconfig      string
	// Timeout bounds the whole preview.
	Timeout time.Duration
}

// Result is what the collector made of the page.
type Result struct {
	// Page is the Prometheus exporter's page: every modelplane_* series the page gives.
	Page []byte
	// In, Mapped and Dropped count data points through the mapping processor: all of the
	// scrape, those of metrics a mapping read, those dropped as not modelplane_*.
	In, Mapped, Dropped int64
	// Notes are the mapping entries an earlier one overrides, and what the page alone cannot
	// show: an off-by-default built-in that would read it, an engine label of its own that a
	// deployed job displaces, a page with no sample at all.
	Notes []string
}

// Run previews o.Source. A mapping file with a problem fails it with the collector's
// `validate` message, which names the file, the document, the field and the value.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Job == "" {
		o.Job = "preview"
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()

	page, contentType, instance, err := fetch(ctx, o.Source, o.Stdin)
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("%w: no answer within --timeout %s", err, o.Timeout)
	}
	if err != nil {
		return nil, err
	}
	served, err := serve(page, contentType)
	if err != nil {
		return nil, err
	}
	defer served.Close()

	dir, err := os.MkdirTemp("", "otelcol-modelplane-preview-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	exporter, telemetry := fmt.Sprintf("127.0.0.1:%d", ports[0]), ports[1]
	labels := map[string]string{"instance": instance}
	for k, v := range o.Labels {
		labels[k] = v
	}
	files := make([]string, len(o.MappingFiles))
	for i, f := range o.MappingFiles {
		if files[i], err = filepath.Abs(f); err != nil {
			return nil, err
		}
		// A running collector waits for a file to appear; a preview of none is a typo.
		if matches, err := filepath.Glob(files[i]); err != nil || len(matches) == 0 {
			return nil, fmt.Errorf("mapping %q: no such file", f)
		}
	}
	kubeconfig := o.Kubeconfig
	if kubeconfig != "" {
		if kubeconfig, err = filepath.Abs(kubeconfig); err != nil {
			return nil, err
		}
	}
	cfgPath := filepath.Join(dir, "preview.yaml")
	if err := writeConfig(cfgPath, map[string]any{
		"Job": o.Job, "Target": served.Addr().String(), "Labels": labels, "Builtins": builtinValue(o),
		"MappingFiles": files, "Exporter": exporter, "Telemetry": telemetry,
		"Cluster": o.ClusterMappings || kubeconfig != "", "Kubeconfig": kubeconfig,
		"Limits": defaultconfig.ScrapeLimits(),
	}); err != nil {
		return nil, err
	}

	// validate fails on any problem in a mapping file, where a running collector skips the
	// document with a warning: a preview must not hide one.
	if out, err := exec.CommandContext(ctx, o.Executable, "validate", "--config="+cfgPath).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("the mappings do not load:\n%s", strings.TrimSpace(string(out)))
	}

	logs, err := os.Create(filepath.Join(dir, "collector.log"))
	if err != nil {
		return nil, err
	}
	defer logs.Close()
	cmd := exec.Command(o.Executable, "--config="+cfgPath)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	child := &process{cmd: cmd, done: make(chan struct{})}
	go func() { child.err = cmd.Wait(); close(child.done) }()
	defer child.stop()

	counts, err := waitForScrape(ctx, telemetry, child)
	if err != nil {
		return nil, fmt.Errorf("%w\nthe collector's log:\n%s", err, strings.TrimSpace(readLog(logs)))
	}
	// The batch processor forwards the scrape within its timeout; read the page after it, and
	// the log the collector writes to its file, too.
	time.Sleep(2 * batchTimeout)
	if err := scrapeError(readLog(logs)); err != nil {
		return nil, err
	}
	// Mapping files were validated above; what the processor warns about now is the
	// cluster's objects (one it cannot use, or none read at all), which fails the preview,
	// and entries that earlier ones override, which the page shows and the notes explain.
	notes, err := processorWarnings(readLog(logs))
	if err != nil {
		return nil, err
	}
	body, err := get(ctx, "http://"+exporter+"/metrics", "")
	if err != nil {
		return nil, err
	}
	mine, _ := modelplanemapping.MappingFiles(files)
	notes = append(notes, unreadEntryNotes(page, mine)...)
	notes = append(notes, idleMappingNotes(page, o, counts["mapped"])...)
	notes = append(notes, engineLabelNote(page, body.data, o)...)
	notes = append(notes, emptyPageNote(page)...)
	return &Result{Page: body.data, In: counts["in"], Mapped: counts["mapped"], Dropped: counts["dropped"], Notes: notes}, nil
}

const batchTimeout = 200 * time.Millisecond

var configTemplate = template.Must(template.New("preview").Funcs(template.FuncMap{"quote": strconv.Quote}).Parse(`
receivers:
  node_scrape:
    config:
      # The embedded default's per-target limits: a page the collector would refuse, the
      # preview refuses too.
      global:
        body_size_limit: {{ quote .Limits.BodySize }}
        sample_limit: {{ .Limits.Samples }}
      scrape_configs:
        - job_name: {{ quote .Job }}
          scrape_interval: 1s
          static_configs:
            - targets: [{{ quote .Target }}]
              labels:
{{- range $k, $v := .Labels }}
                {{ quote $k }}: {{ quote $v }}
{{- end }}
          # As the chart's engines job, the embedded default and the standalone config: vLLM's
          # own engine label (its engine index), displaced by a target label engine, stays as
          # engine_index.
          metric_relabel_configs:
            - {source_labels: [exported_engine], regex: "(.+)", target_label: engine_index}
            - {regex: exported_engine, action: labeldrop}
processors:
  modelplane_mapping:
    builtin: {{ .Builtins }}
    mapping_files: [{{ range $i, $f := .MappingFiles }}{{ if $i }}, {{ end }}{{ quote $f }}{{ end }}]
{{- if .Cluster }}
    cluster_mappings:
      enabled: true
      auth_type: kubeConfig
{{- if .Kubeconfig }}
      kubeconfig: {{ quote .Kubeconfig }}
{{- end }}
{{- end }}
  batch:
    timeout: 200ms
exporters:
  prometheus:
    endpoint: {{ quote .Exporter }}
    resource_constant_labels:
      included: ["*"]
    without_scope_info: true
service:
  telemetry:
    logs:
      level: warn
      encoding: json
    metrics:
      level: normal
      readers:
        - pull:
            exporter:
              prometheus:
                host: 127.0.0.1
                port: {{ .Telemetry }}
  pipelines:
    metrics:
      receivers: [node_scrape]
      processors: [modelplane_mapping, batch]
      exporters: [prometheus]
`))

// builtinValue is the processor's builtin setting for o, as YAML.
func builtinValue(o Options) string {
	if o.NoBuiltins {
		return "[]"
	}
	if len(o.Builtin) == 0 {
		return "[default]"
	}
	quoted := make([]string, len(o.Builtin))
	for i, n := range o.Builtin {
		quoted[i] = strconv.Quote(n)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

func writeConfig(path string, values map[string]any) error {
	var cfg bytes.Buffer
	if err := configTemplate.Execute(&cfg, values); err != nil {
		return err
	}
	return os.WriteFile(path, cfg.Bytes(), 0o600)
}

// fetch reads the page from a URL (asking for the text format, which every engine serves),
// a file or stdin ("-"). instance is what the series' instance label says: the URL's host,
// the file's name, or "stdin".
func fetch(ctx context.Context, source string, stdin io.Reader) (page []byte, contentType, instance string, err error) {
	if u, perr := url.Parse(source); perr == nil && (u.Scheme == "http" || u.Scheme == "https") {
		if u.Path == "" {
			// An engine's address alone: its page is at /metrics, where a scrape job without
			// metrics_path reads it (the address's root answers 404 on vLLM and SGLang).
			u.Path = "/metrics"
		}
		body, err := get(ctx, u.String(), "text/plain;version=0.0.4")
		var status *statusError
		if errors.As(err, &status) && status.code == http.StatusNotFound && u.Path == "/metrics" {
			// The engines that answer 404 there, and why: a bare 404 does not say.
			return nil, "", "", fmt.Errorf("%w: no page at /metrics; SGLang serves it only when started with --enable-metrics, and a NIM serves its metrics at /v1/metrics", err)
		}
		if err != nil {
			return nil, "", "", err
		}
		return body.data, body.contentType, u.Host, nil
	}
	instance = filepath.Base(source)
	if source == "-" && stdin != nil {
		page, err = io.ReadAll(stdin)
		instance = "stdin"
	} else {
		page, err = os.ReadFile(source)
	}
	if errors.Is(err, fs.ErrNotExist) {
		if _, port, splitErr := net.SplitHostPort(source); splitErr == nil && port != "" {
			// host:port, as a scrape target is written, read as a file name.
			return nil, "", "", fmt.Errorf("read the page: %w; for an engine, give its URL: http://%s/metrics", err, source)
		}
	}
	if err != nil {
		return nil, "", "", fmt.Errorf("read the page: %w", err)
	}
	contentType = "text/plain; version=0.0.4; charset=utf-8"
	if bytes.HasSuffix(bytes.TrimSpace(page), []byte("# EOF")) {
		contentType = "application/openmetrics-text; version=1.0.0; charset=utf-8"
	}
	return page, contentType, instance, nil
}

type response struct {
	data        []byte
	contentType string
}

func get(ctx context.Context, target, accept string) (*response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, err
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", target, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", target, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, &statusError{target: target, status: resp.Status, code: resp.StatusCode}
	}
	return &response{data: data, contentType: resp.Header.Get("Content-Type")}, nil
}

// statusError is an answer other than 200 OK.
type statusError struct {
	target, status string
	code           int
}

func (e *statusError) Error() string { return fmt.Sprintf("GET %s: %s", e.target, e.status) }

// serve serves page on loopback for the collector to scrape, once or many times.
func serve(page []byte, contentType string) (net.Listener, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(page)
	})}
	go func() { _ = srv.Serve(l) }()
	return l, nil
}

// scrapeError is the Prometheus receiver's complaint about the page, if the collector's
// JSON log holds one: a page it cannot parse reaches the processor only as the scrape's own
// `up` and `scrape_*` series, which a preview would otherwise show as nothing mapped.
func scrapeError(log string) error {
	for _, line := range strings.Split(log, "\n") {
		var entry struct {
			Msg   string `json:"msg"`
			Error string `json:"error"`
		}
		if json.Unmarshal([]byte(line), &entry) != nil || entry.Msg != "Failed to scrape Prometheus endpoint" {
			continue
		}
		if strings.HasSuffix(entry.Error, "limit exceeded") {
			return fmt.Errorf("the collector would refuse the page: %s (its per-target limits, as the embedded default, the host config and the chart set them: %s; docs/reliability.md)", entry.Error, defaultconfig.ScrapeLimits())
		}
		return fmt.Errorf("the Prometheus receiver cannot read the page: %s", entry.Error)
	}
	return nil
}

// processorWarnings are the mapping processor's warnings in the collector's JSON log: the
// overlaps between entries and misleading names as notes, the others, each with its error, as one error.
func processorWarnings(log string) ([]string, error) {
	var errs []error
	var notes []string
	for _, line := range strings.Split(log, "\n") {
		var entry struct {
			Level     string `json:"level"`
			Component string `json:"otelcol.component.id"`
			Msg       string `json:"msg"`
			Error     string `json:"error"`
			Overlap   string `json:"overlap"`
			Note      string `json:"note"`
		}
		if json.Unmarshal([]byte(line), &entry) != nil || entry.Level != "warn" || entry.Component != "modelplane_mapping" {
			continue
		}
		switch entry.Msg {
		case modelplanemapping.OverlapMessage:
			notes = append(notes, entry.Overlap)
			continue
		case modelplanemapping.NameMessage:
			notes = append(notes, entry.Note)
			continue
		}
		if entry.Error != "" {
			entry.Msg += ": " + entry.Error
		}
		errs = append(errs, errors.New(entry.Msg))
	}
	if len(errs) == 0 {
		return notes, nil
	}
	return nil, fmt.Errorf("the mapping processor warned:\n%w", errors.Join(errs...))
}

// processorCounters are the mapping processor's point counters on the collector's own
// metrics endpoint, by the names Result uses.
var processorCounters = map[string]string{
	"otelcol_processor_modelplane_mapping_datapoints_in":      "in",
	"otelcol_processor_modelplane_mapping_datapoints_mapped":  "mapped",
	"otelcol_processor_modelplane_mapping_datapoints_dropped": "dropped",
}

// waitForScrape polls the collector's own metrics until the mapping processor has seen the
// scrape, and returns its point counters.
func waitForScrape(ctx context.Context, port int, child *process) (map[string]int64, error) {
	target := fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	for {
		if body, err := get(ctx, target, ""); err == nil {
			if counts := countersOf(body.data); counts["in"] > 0 {
				return counts, nil
			}
		}
		select {
		case <-child.done:
			return nil, fmt.Errorf("the collector stopped: %v", child.err)
		case <-ctx.Done():
			return nil, errors.New("the page did not reach the mapping processor in time")
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// countersOf sums the processor's counters on a page of the collector's own metrics.
func countersOf(page []byte) map[string]int64 {
	counts := map[string]int64{}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(page))
	if err != nil {
		return counts
	}
	for name, f := range families {
		key, ok := processorCounters[strings.TrimSuffix(name, "_total")]
		if !ok {
			continue
		}
		for _, m := range f.GetMetric() { // a counter, or untyped where the page says no type
			counts[key] += int64(m.GetCounter().GetValue() + m.GetUntyped().GetValue())
		}
	}
	return counts
}

// process is the running collector; err is set when done closes.
// freePorts are loopback ports nothing listens on now, for the collector the preview starts.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port on 127.0.0.1: %w", err)
		}
		defer ln.Close() // held until all are picked, so the n differ
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// readLog is what the collector has written to its log file so far.
func readLog(f *os.File) string {
	data, _ := os.ReadFile(f.Name())
	return string(data)
}

type process struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// stop ends the collector: SIGTERM, then SIGKILL if it has not exited within 5 s.
func (p *process) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}
