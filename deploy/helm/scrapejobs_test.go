// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package helm

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/common/promslog"
	promconfig "github.com/prometheus/prometheus/config"
	_ "github.com/prometheus/prometheus/discovery/kubernetes" // the chart's jobs discover pods
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/relabel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yamlv2 "go.yaml.in/yaml/v2"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig"
)

// scrapeJob is one rendered scrape job's relabelling, as Prometheus reads it.
type scrapeJob struct {
	Name          string            `yaml:"job_name"`
	Relabel       []*relabel.Config `yaml:"relabel_configs"`
	MetricRelabel []*relabel.Config `yaml:"metric_relabel_configs"`
}

// scrapeJobs reads the scrape jobs of a rendered collector config with Prometheus' own
// relabelling types, by job name.
func scrapeJobs(t *testing.T, out map[string]string) map[string]scrapeJob {
	t.Helper()
	// The collector's config expands $$ to $ before Prometheus reads it.
	cfg := strings.ReplaceAll(collectorConfigOf(t, out), "$$", "$")
	var doc struct {
		Receivers struct {
			Scraper struct {
				Config struct {
					ScrapeConfigs []scrapeJob `yaml:"scrape_configs"`
				} `yaml:"config"`
			} `yaml:"node_scrape"`
		} `yaml:"receivers"`
	}
	require.NoError(t, yamlv2.Unmarshal([]byte(cfg), &doc))
	jobs := map[string]scrapeJob{}
	for _, j := range doc.Receivers.Scraper.Config.ScrapeConfigs {
		for _, c := range append(append([]*relabel.Config(nil), j.Relabel...), j.MetricRelabel...) {
			require.NoError(t, c.Validate(model.UTF8Validation), j.Name)
		}
		jobs[j.Name] = j
	}
	return jobs
}

// target is what a job makes of a target that Kubernetes discovery describes by meta, and
// whether it scrapes it.
func (j scrapeJob) target(meta ...string) (labels.Labels, bool) {
	lb := labels.NewBuilder(labels.FromStrings(append([]string{"__meta_kubernetes_pod_phase", "Running"}, meta...)...))
	keep := relabel.ProcessBuilder(lb, j.Relabel...)
	return lb.Labels(), keep
}

// series is what a job makes of one sample, labelled page (its __name__ included) on the
// page of a target that Kubernetes discovery describes by meta, and whether it keeps it: the
// target's labels over the page's, where a page label the target also sets becomes
// exported_<name> (Prometheus without honor_labels), then the job's metric relabelling.
func (j scrapeJob) series(meta []string, page ...string) (labels.Labels, bool) {
	target, keep := j.target(meta...)
	if !keep {
		return labels.EmptyLabels(), false
	}
	lb := labels.NewBuilder(labels.FromStrings(page...))
	target.Range(func(l labels.Label) {
		if strings.HasPrefix(l.Name, "__") {
			return
		}
		if v := lb.Get(l.Name); v != "" {
			lb.Set("exported_"+l.Name, v)
		}
		lb.Set(l.Name, l.Value)
	})
	keep = relabel.ProcessBuilder(lb, j.MetricRelabel...)
	return lb.Labels(), keep
}

// scrapes reports whether a job scrapes a target that Kubernetes discovery describes by meta.
func (j scrapeJob) scrapes(meta ...string) bool {
	_, keep := j.target(meta...)
	return keep
}

// keeps is the names, of those given, whose series the job keeps after scraping.
func (j scrapeJob) keeps(names []string) []string {
	var kept []string
	for _, n := range names {
		if relabel.ProcessBuilder(labels.NewBuilder(labels.FromStrings("__name__", n)), j.MetricRelabel...) {
			kept = append(kept, n)
		}
	}
	return kept
}

// pageNames is the metric names of a recorded exposition's samples.
func pageNames(t *testing.T, file string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "exposition", file))
	require.NoError(t, err)
	defer f.Close()
	seen := map[string]bool{}
	var names []string
	for s := bufio.NewScanner(f); s.Scan(); {
		line := s.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		n := line[:strings.IndexAny(line, "{ ")]
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return names
}

// Discovered pods, as Kubernetes discovery labels them: annotated for scraping and one of a
// dcgm-exporter, an endpoint picker, or something else.
var (
	annotatedDCGMExporter = []string{"__address__", "10.0.0.4:9400", "__meta_kubernetes_pod_ip", "10.0.0.4", "__meta_kubernetes_pod_annotation_prometheus_io_scrape", "true",
		"__meta_kubernetes_pod_annotation_prometheus_io_port", "9400", "__meta_kubernetes_pod_container_port_number", "9400",
		"__meta_kubernetes_pod_label_app", "nvidia-dcgm-exporter"}
	annotatedPicker = []string{"__address__", "10.0.0.5:9090", "__meta_kubernetes_pod_ip", "10.0.0.5", "__meta_kubernetes_pod_annotation_prometheus_io_scrape", "true",
		"__meta_kubernetes_pod_container_port_number", "9090", "__meta_kubernetes_pod_label_modelplane_ai_component", "endpoint-picker"}
	annotatedOther = []string{"__address__", "10.0.0.6:8080", "__meta_kubernetes_pod_ip", "10.0.0.6", "__meta_kubernetes_pod_annotation_prometheus_io_scrape", "true",
		"__meta_kubernetes_pod_container_port_number", "8080", "__meta_kubernetes_pod_label_app", "kv-cache-indexer"}
)

// Each GPU and each target is reported once. The dcgm receiver and a dcgm-exporter job would
// report every GPU twice, so the chart refuses both; the annotated job leaves the pods a
// dedicated job scrapes to that job, and with a GPU source chosen it drops the GPU fields an
// annotated pod (a dcgm-exporter someone annotated for Prometheus) would add again.
func TestOneSourcePerGPUAndTarget(t *testing.T) {
	_, err := renderValues(t, "scrape: {dcgmExporter: {enabled: true}}\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dcgm.enabled: true and scrape.dcgmExporter.enabled: true would both report this node's GPUs")

	dcgmPage := pageNames(t, "dcgm-exporter.prom")
	pickerPage := pageNames(t, "epp.prom")
	require.NotEmpty(t, dcgmPage)

	// Defaults: the dcgm receiver reads the GPUs.
	out, err := renderValues(t, "")
	require.NoError(t, err)
	jobs := scrapeJobs(t, out)
	annotated := jobs["annotated"]
	assert.True(t, jobs["endpoint-picker"].scrapes(annotatedPicker...))
	assert.False(t, annotated.scrapes(annotatedPicker...), "the picker job scrapes the picker")
	assert.True(t, annotated.scrapes(annotatedOther...))
	assert.True(t, annotated.scrapes(annotatedDCGMExporter...), "no dcgm-exporter job: the annotated job scrapes the pod")
	assert.Empty(t, annotated.keeps(dcgmPage), "but not its GPU fields: the receiver reads the GPUs")
	assert.Equal(t, pickerPage, annotated.keeps(pickerPage), "only GPU fields are dropped")
	validateCollectorConfig(t, out)

	// dcgm-exporter instead of the receiver: its job scrapes the exporter, the annotated one
	// neither the pod nor GPU fields from elsewhere.
	out, err = renderValues(t, "dcgm: {enabled: false}\nscrape: {dcgmExporter: {enabled: true}}\n")
	require.NoError(t, err)
	jobs = scrapeJobs(t, out)
	assert.True(t, jobs["dcgm-exporter"].scrapes(annotatedDCGMExporter...))
	assert.Equal(t, dcgmPage, jobs["dcgm-exporter"].keeps(dcgmPage))
	assert.False(t, jobs["annotated"].scrapes(annotatedDCGMExporter...))
	assert.Empty(t, jobs["annotated"].keeps(dcgmPage))
	validateCollectorConfig(t, out)

	// Neither: an annotated dcgm-exporter is the node's only GPU source, and is kept whole.
	out, err = renderValues(t, "dcgm: {enabled: false}\n")
	require.NoError(t, err)
	jobs = scrapeJobs(t, out)
	assert.True(t, jobs["annotated"].scrapes(annotatedDCGMExporter...))
	assert.Equal(t, dcgmPage, jobs["annotated"].keeps(dcgmPage))

	// A dedicated job whose selector is not label=value cannot be mirrored by a relabel rule:
	// the annotated job then scrapes its pods too, as the values file says.
	out, err = renderValues(t, "scrape: {endpointPicker: {podLabel: 'modelplane.ai/component in (endpoint-picker)'}}\n")
	require.NoError(t, err)
	assert.True(t, scrapeJobs(t, out)["annotated"].scrapes(annotatedPicker...))
}

// An engine pod is scraped on its container port named "metrics", or on the port its
// modelplane.ai/metrics-port annotation names: vLLM serves /metrics on its API port, which
// pods often name "http". Discovery gives one target per container port; with the
// annotation, every one of them points at the annotated port with the same labels, and
// Prometheus keeps one of identical targets.
func TestEnginePort(t *testing.T) {
	out, err := renderValues(t, "")
	require.NoError(t, err)
	engines := scrapeJobs(t, out)["engines"]
	podOn := func(ip, port, name string, more ...string) []string {
		return append([]string{"__address__", net.JoinHostPort(ip, port), "__meta_kubernetes_pod_ip", ip,
			"__meta_kubernetes_pod_container_port_number", port,
			"__meta_kubernetes_pod_container_port_name", name, "__meta_kubernetes_pod_label_modelplane_ai_engine", "vllm",
			"__meta_kubernetes_namespace", "inference", "__meta_kubernetes_pod_name", "llama-0"}, more...)
	}
	pod := func(port, name string, more ...string) []string { return podOn("10.0.0.7", port, name, more...) }
	address := func(meta []string) string {
		l, keep := engines.target(meta...)
		if !keep {
			return "not scraped"
		}
		return l.Get("__address__")
	}
	assert.Equal(t, "10.0.0.7:8000", address(pod("8000", "metrics")))
	assert.Equal(t, "not scraped", address(pod("8000", "http")), "no metrics port, no annotation")
	annotated := []string{"__meta_kubernetes_pod_annotation_modelplane_ai_metrics_port", "8000"}
	assert.Equal(t, "10.0.0.7:8000", address(pod("8000", "http", annotated...)))
	assert.Equal(t, "10.0.0.7:8000", address(pod("5557", "zmq", annotated...)), "another port of the annotated pod")
	http, _ := engines.target(pod("8000", "http", annotated...)...)
	zmq, _ := engines.target(pod("5557", "zmq", annotated...)...)
	strip := func(l labels.Labels) labels.Labels {
		b := labels.NewBuilder(l)
		l.Range(func(lbl labels.Label) {
			if strings.HasPrefix(lbl.Name, "__meta_") || strings.HasPrefix(lbl.Name, "__tmp_") {
				b.Del(lbl.Name)
			}
		})
		return b.Labels()
	}
	assert.Equal(t, strip(http), strip(zmq), "identical targets once discovery's labels go: Prometheus scrapes the pod once")
	assert.Equal(t, "llama-0", strip(http).Get("replica"))
	assert.Equal(t, "not scraped", address(pod("8000", "http", "__meta_kubernetes_pod_annotation_modelplane_ai_metrics_port", "http")),
		"an annotation that is no port number")

	// An IPv6 pod (an IPv6 or dual-stack cluster): the annotated port goes with the address in
	// brackets. The rule taking the host from the discovered address as everything up to the
	// first colon left "[fd00:10:244::7]:5557" as it was: the wrong port.
	assert.Equal(t, "[fd00:10:244::7]:8000", address(podOn("fd00:10:244::7", "8000", "metrics")))
	assert.Equal(t, "[fd00:10:244::7]:8000", address(podOn("fd00:10:244::7", "5557", "zmq", annotated...)))
	assert.Equal(t, "[fd00:10:244::7]:8000", address(podOn("fd00:10:244::7", "8000", "http", annotated...)))

	// The path: /metrics (Prometheus sets __metrics_path__ from the job before relabelling),
	// or the one modelplane.ai/metrics-path names, as NVIDIA NIM serves /v1/metrics. A
	// value that is no path leaves /metrics.
	path := func(meta ...string) string {
		l, keep := engines.target(append([]string{"__metrics_path__", "/metrics"}, meta...)...)
		require.True(t, keep)
		return l.Get("__metrics_path__")
	}
	assert.Equal(t, "/metrics", path(pod("8000", "metrics")...))
	assert.Equal(t, "/v1/metrics", path(pod("8000", "http", append(annotated, "__meta_kubernetes_pod_annotation_modelplane_ai_metrics_path", "/v1/metrics")...)...))
	assert.Equal(t, "/metrics", path(pod("8000", "metrics", "__meta_kubernetes_pod_annotation_modelplane_ai_metrics_path", "v1/metrics")...))
}

// The annotated job scrapes the port prometheus.io/port names, on an IPv4 or an IPv6 pod.
func TestAnnotatedPort(t *testing.T) {
	out, err := renderValues(t, "")
	require.NoError(t, err)
	annotated := scrapeJobs(t, out)["annotated"]
	for ip, want := range map[string]string{"10.0.0.6": "10.0.0.6:9100", "fd00:10:244::6": "[fd00:10:244::6]:9100"} {
		l, keep := annotated.target("__address__", net.JoinHostPort(ip, "8080"), "__meta_kubernetes_pod_ip", ip,
			"__meta_kubernetes_pod_annotation_prometheus_io_scrape", "true", "__meta_kubernetes_pod_annotation_prometheus_io_port", "9100",
			"__meta_kubernetes_pod_container_port_number", "8080", "__meta_kubernetes_pod_label_app", "kv-cache-indexer")
		require.True(t, keep, ip)
		assert.Equal(t, want, l.Get("__address__"), ip)
	}
}

// vLLM labels its series with its engine's index (engine="0", one per data-parallel rank),
// which the pod's engine label displaces: Prometheus makes it exported_engine. The engines job
// keeps it as engine_index; a series without it (SGLang's) keeps its labels.
func TestEngineIndexLabel(t *testing.T) {
	out, err := renderValues(t, "")
	require.NoError(t, err)
	engines := scrapeJobs(t, out)["engines"]
	pod := func(engine string) []string {
		return []string{"__address__", "10.0.0.7:8000", "__meta_kubernetes_pod_ip", "10.0.0.7",
			"__meta_kubernetes_pod_container_port_name", "metrics", "__meta_kubernetes_pod_label_modelplane_ai_engine", engine,
			"__meta_kubernetes_namespace", "inference", "__meta_kubernetes_pod_name", "llama-0", "__meta_kubernetes_pod_node_name", "node-1"}
	}
	vllm, keep := engines.series(pod("vllm"), "__name__", "vllm:num_requests_waiting", "engine", "0", "model_name", "m")
	require.True(t, keep)
	assert.Equal(t, labels.FromStrings("__name__", "vllm:num_requests_waiting", "engine", "vllm", "engine_index", "0", "model_name", "m",
		"namespace", "inference", "node", "node-1", "replica", "llama-0"), vllm)
	sglang, keep := engines.series(pod("sglang"), "__name__", "sglang:num_queue_reqs", "tp_rank", "0")
	require.True(t, keep)
	assert.Equal(t, labels.FromStrings("__name__", "sglang:num_queue_reqs", "engine", "sglang", "tp_rank", "0",
		"namespace", "inference", "node", "node-1", "replica", "llama-0"), sglang)
}

// A dcgm-exporter's series describe GPUs, and carry the pod holding each GPU as labels
// (namespace, pod, container), as the dcgm receiver's do. The dcgm-exporter job gave them the
// exporter pod's own namespace and name (namespace="gpu-operator", replica="nvidia-dcgm-...")
// and pushed the GPU's namespace to exported_namespace, so per-namespace GPU queries counted
// every GPU of the node under the exporter's namespace. It keeps the page's pod labels, the
// node from discovery. So does the annotated job, where an annotated dcgm-exporter is the
// node's GPU source; its other pods' series keep the pod's identity.
func TestDCGMExporterJobKeepsTheGPUsPod(t *testing.T) {
	exporter := append([]string{"__meta_kubernetes_namespace", "gpu-operator", "__meta_kubernetes_pod_name", "nvidia-dcgm-exporter-x7k2p",
		"__meta_kubernetes_pod_node_name", "node-1"}, annotatedDCGMExporter...)
	for values, job := range map[string]string{
		"dcgm: {enabled: false}\nscrape: {dcgmExporter: {enabled: true}}\n": "dcgm-exporter",
		"dcgm: {enabled: false}\n": "annotated",
	} {
		out, err := renderValues(t, values)
		require.NoError(t, err)
		j := scrapeJobs(t, out)[job]
		held, keep := j.series(exporter,
			"__name__", "DCGM_FI_DEV_FB_USED", "gpu", "0", "namespace", "ml-training", "pod", "llama-finetune-0", "container", "trainer")
		require.True(t, keep, job)
		assert.Equal(t, labels.FromStrings("__name__", "DCGM_FI_DEV_FB_USED", "gpu", "0", "namespace", "ml-training", "pod", "llama-finetune-0",
			"container", "trainer", "node", "node-1"), held, job)
		idle, keep := j.series(exporter, "__name__", "DCGM_FI_DEV_FB_USED", "gpu", "1")
		require.True(t, keep, job)
		assert.Equal(t, labels.FromStrings("__name__", "DCGM_FI_DEV_FB_USED", "gpu", "1", "node", "node-1"), idle, "%s: a GPU no pod holds: no pod labels", job)
	}
	out, err := renderValues(t, "dcgm: {enabled: false}\n")
	require.NoError(t, err)
	other := append([]string{"__meta_kubernetes_namespace", "kv", "__meta_kubernetes_pod_name", "indexer-0"}, annotatedOther...)
	indexer, keep := scrapeJobs(t, out)["annotated"].series(other, "__name__", "kv_blocks", "namespace", "default")
	require.True(t, keep)
	assert.Equal(t, labels.FromStrings("__name__", "kv_blocks", "namespace", "kv", "exported_namespace", "default", "replica", "indexer-0"), indexer,
		"another pod's series: as before")
}

// Every job, those of the chart and any added under config, has the per-target limits of
// values.scrape, as Prometheus reads the rendered config: a target over one fails its own
// scrape, not the collector.
func TestScrapeLimits(t *testing.T) {
	limits := func(t *testing.T, values string) map[string][2]int64 {
		t.Helper()
		out, err := renderValues(t, values)
		require.NoError(t, err)
		validateCollectorConfig(t, out)
		var doc struct {
			Receivers struct {
				Scraper struct {
					Config map[string]any `yaml:"config"`
				} `yaml:"node_scrape"`
			} `yaml:"receivers"`
		}
		require.NoError(t, yamlv2.Unmarshal([]byte(strings.ReplaceAll(collectorConfigOf(t, out), "$$", "$")), &doc))
		raw, err := yamlv2.Marshal(doc.Receivers.Scraper.Config)
		require.NoError(t, err)
		cfg, err := promconfig.Load(string(raw), promslog.NewNopLogger())
		require.NoError(t, err)
		got := map[string][2]int64{}
		for _, j := range cfg.ScrapeConfigs {
			got[j.JobName] = [2]int64{int64(j.BodySizeLimit), int64(j.SampleLimit)}
		}
		return got
	}
	for job, l := range limits(t, "config: {receivers: {prometheus: {config: {scrape_configs: [{job_name: mine, static_configs: [{targets: ['127.0.0.1:9100']}]}]}}}}\n") {
		assert.Equal(t, [2]int64{16 << 20, 20000}, l, job)
	}
	for job, l := range limits(t, "scrape: {bodySizeLimit: 64MiB, sampleLimit: 100000}\n") {
		assert.Equal(t, [2]int64{64 << 20, 100000}, l, job)
	}
	for job, l := range limits(t, "scrape: {bodySizeLimit: \"0\", sampleLimit: 0}\n") {
		assert.Equal(t, [2]int64{0, 0}, l, job, "0 turns a limit off")
	}
	_, err := renderValues(t, "scrape: {bodySizeLimit: 16 MB}\n")
	assert.ErrorContains(t, err, "bodySizeLimit")

	// The chart's defaults are the embedded default's.
	values, err := chartutil.ReadValuesFile(chartDir + "/values.yaml")
	require.NoError(t, err)
	scrape := values["scrape"].(map[string]any)
	want := defaultconfig.ScrapeLimits()
	assert.Equal(t, want.BodySize, scrape["bodySizeLimit"])
	assert.EqualValues(t, want.Samples, scrape["sampleLimit"])
}

// An annotated pod that scrape.annotated.exclude selects is not scraped; other annotated
// pods still are.
func TestAnnotatedExclude(t *testing.T) {
	out, err := renderValues(t, "scrape: {annotated: {enabled: true, exclude: [app.kubernetes.io/name=kube-state-metrics]}}\n")
	require.NoError(t, err)
	validateCollectorConfig(t, out)
	annotated := scrapeJobs(t, out)["annotated"]
	pod := func(name string) []string {
		return []string{"__address__", "10.0.0.8:8080", "__meta_kubernetes_pod_ip", "10.0.0.8",
			"__meta_kubernetes_pod_annotation_prometheus_io_scrape", "true", "__meta_kubernetes_pod_label_app_kubernetes_io_name", name}
	}
	_, keep := annotated.target(pod("kube-state-metrics")...)
	assert.False(t, keep, "excluded")
	_, keep = annotated.target(pod("kv-cache-indexer")...)
	assert.True(t, keep, "still scraped")

	_, err = renderValues(t, "scrape: {annotated: {enabled: true, exclude: [app in (a, b)]}}\n")
	assert.ErrorContains(t, err, "exclude")
}
