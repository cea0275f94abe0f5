// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/demofleet"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
)

// What `make run` does: the collector with no --config runs its embedded default against
// local engines (here on other ports, through the documented environment variables) and
// serves only modelplane_* series on its Prometheus endpoint, with no GPU on the machine.
func TestEmbeddedDefault(t *testing.T) {
	checkEmbeddedDefault(t, collectorBin)
}

// The same on linux/arm64 (Grace GPU nodes): the cross-compiled collector, run here under
// qemu-user with the arm64 C library of Debian's cross toolchain, does the whole job.
func TestEmbeddedDefaultOnArm64(t *testing.T) {
	bin := os.Getenv("OTELCOL_MODELPLANE_BIN_ARM64")
	if bin == "" {
		t.Skip("OTELCOL_MODELPLANE_BIN_ARM64 not set: run through `make test`, which cross-builds it")
	}
	qemu, err := exec.LookPath("qemu-aarch64")
	require.NoError(t, err, "qemu-aarch64 (Debian's qemu-user, `make cross-deps`)")
	checkEmbeddedDefault(t, qemu, "-L", "/usr/aarch64-linux-gnu", bin)
}

// embeddedDefault is a collector on its embedded default, scraping a vLLM, an SGLang and a
// dcgm-exporter through the documented environment variables, and serving on endpoint.
type embeddedDefault struct {
	vllm, sglang, dcgm *engine
	endpoint           string
	proc               *process
}

func startEmbeddedDefault(t *testing.T, command string, args ...string) *embeddedDefault {
	t.Helper()
	d := &embeddedDefault{
		vllm:     startEngine(t, "vllm", "vllm.prom", nil),
		sglang:   startEngine(t, "sglang", "sglang.prom", nil),
		dcgm:     startEngine(t, "dcgm-exporter", "dcgm-exporter.prom", nil),
		endpoint: freeport.Addr(t),
	}
	env := append(os.Environ(),
		"MODELPLANE_VLLM_TARGET="+d.vllm.Addr, "MODELPLANE_SGLANG_TARGET="+d.sglang.Addr,
		"MODELPLANE_DCGM_EXPORTER_TARGET="+d.dcgm.Addr, "MODELPLANE_PROMETHEUS_ENDPOINT="+d.endpoint,
		"MODELPLANE_SCRAPE_INTERVAL=1s", "MODELPLANE_CLUSTER=laptop")
	d.proc = startWithEnv(t, env, command, args...)
	return d
}

// oneEngineEnv is this process's environment for the embedded default scraping the vLLMs at
// vllmTargets (MODELPLANE_VLLM_TARGET) and nothing else, every second, serving on free
// ports, with more (NAME=value) added.
func oneEngineEnv(t *testing.T, vllmTargets string, more ...string) []string {
	t.Helper()
	return append(append(os.Environ(), "MODELPLANE_VLLM_TARGET="+vllmTargets, "MODELPLANE_SGLANG_TARGET=none",
		"MODELPLANE_DCGM_EXPORTER_TARGET=none", "MODELPLANE_PROMETHEUS_ENDPOINT="+freeport.Addr(t),
		"MODELPLANE_TELEMETRY_ENDPOINT="+freeport.Addr(t), "MODELPLANE_SCRAPE_INTERVAL=1s"), more...)
}

// Several vLLMs on one host, as one per GPU runs them: MODELPLANE_VLLM_TARGET lists them, and
// each is served as a replica of its own with its own queue. Before, the list was refused as
// "not host:port", and the way around it, a second target in the job's entry, merged the two
// engines' series into one.
func TestEmbeddedDefaultWithSeveralEngines(t *testing.T) {
	first, second := startEngine(t, "vllm", "vllm.prom", nil), startBusierVLLM(t)
	endpoint := freeport.Addr(t)
	env := append(os.Environ(), "MODELPLANE_VLLM_TARGET="+first.Addr+","+second.Addr,
		"MODELPLANE_SGLANG_TARGET="+freeport.Addr(t), "MODELPLANE_DCGM_EXPORTER_TARGET="+freeport.Addr(t),
		"MODELPLANE_PROMETHEUS_ENDPOINT="+endpoint, "MODELPLANE_SCRAPE_INTERVAL=1s")
	col := startWithEnv(t, env, collectorBin)
	want := map[string]string{}
	for addr, value := range map[string]string{first.Addr: "2", second.Addr: "77"} {
		_, port, _ := strings.Cut(addr, ":")
		want[`replica="vllm-`+port+`"`] = value
	}
	for _, line := range requestsWaiting(t, endpoint) {
		matched := false
		for replica, value := range want {
			if strings.Contains(line, replica) {
				matched = true
				assert.True(t, strings.HasSuffix(line, "} "+value), line)
			}
		}
		assert.True(t, matched, "a replica of each target: %s", line)
		assert.Contains(t, line, `engine_index="0"`)
	}
	assert.NotContains(t, col.out.String(), "one replica")
}

// startBusierVLLM starts a second vLLM whose page is the shared one with 77 requests waiting
// (the shared page has 2), so that the served queue tells which engine it came from.
func startBusierVLLM(t *testing.T) *engine {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(repoRoot(), "testdata", "exposition", "vllm.prom"))
	require.NoError(t, err)
	waiting := regexp.MustCompile(`(?m)^(vllm:num_requests_waiting\{[^}]*\}) 2\.0$`)
	require.Len(t, waiting.FindAll(page, -1), 1)
	busier := filepath.Join(t.TempDir(), "vllm.prom")
	require.NoError(t, os.WriteFile(busier, waiting.ReplaceAll(page, []byte("${1} 77")), 0o600))
	return startEngine(t, "vllm", busier, nil)
}

// checkEmbeddedDefault runs command with no --config against local engines and checks
// what it serves and logs.
func checkEmbeddedDefault(t *testing.T, command string, args ...string) {
	d := startEmbeddedDefault(t, command, args...)
	p, endpoint := d.proc, d.endpoint
	var names map[string]bool
	// Each target's first scrape comes at its own offset in the interval (Prometheus spreads
	// them by a hash of the target, whose port is random here): wait for every target's series,
	// not the first of them, before checking any (CI once checked vLLM's before they came).
	eventually(t, "every target's modelplane_ series on the embedded default's endpoint", func() bool {
		names = map[string]bool{}
		waiting := 0
		for _, line := range servedLines(t, endpoint) {
			names[strings.FieldsFunc(line, func(r rune) bool { return r == '{' || r == ' ' })[0]] = true
			if strings.HasPrefix(line, "modelplane_requests_waiting{") {
				waiting++
			}
		}
		return names["modelplane_gpu_memory_used_bytes"] && waiting == 2 && names["modelplane_kv_cache_utilization_ratio"]
	})
	for n := range names {
		assert.True(t, strings.HasPrefix(n, "modelplane_"), "not modelplane_*: %s", n)
	}
	// Without NODE_NAME the node label is the host's name, HOSTNAME's or, unset, the system's.
	host := os.Getenv("HOSTNAME")
	if host == "" {
		var err error
		host, err = os.Hostname()
		require.NoError(t, err)
	}
	for _, line := range servedLines(t, endpoint) {
		if strings.HasPrefix(line, "modelplane_requests_waiting{") {
			assert.Contains(t, line, `node="`+host+`"`)
		}
	}
	engineIndexKept(t, servedLines(t, endpoint))
	// No otel_scope_* labels, which name the receiver and this collector's version: every
	// series would change its label set at each upgrade.
	for _, line := range servedLines(t, endpoint) {
		assert.NotContains(t, line, "otel_scope_", line)
	}
	// The dcgm-exporter answers, so the GPU receiver leaves the GPUs to it and never looks for
	// NVML: each GPU is reported once.
	deferring := "A dcgm-exporter serves this host's GPUs"
	assert.Equal(t, 1, strings.Count(p.out.String(), deferring), "said once")
	assert.NotContains(t, p.out.String(), "NVML is not available")
	// vLLM and SGLang feed the same targets, and tokens in and out share one: each target has
	// one description, so the Prometheus exporter logs no conflict on every scrape.
	assert.NotContains(t, p.out.String(), "Instrument description conflict")
	assert.Contains(t, p.out.String(), "Scrape filter on", "the embedded default filters at scrape time")

	// Once the exporter stops, the receiver reads the GPUs itself; with no GPU here it says so
	// in one clear line.
	require.NoError(t, d.dcgm.e.Stop())
	eventually(t, "the GPU receiver looking for NVML once the exporter stopped", func() bool {
		return strings.Contains(p.out.String(), "NVML is not available")
	})
	assert.Equal(t, 1, strings.Count(p.out.String(), "The dcgm-exporter no longer answers"))
	assert.Equal(t, 1, strings.Count(p.out.String(), "NVML is not available"))
}

// The collector `make build` wrote names the commit it was built from, so a fleet can tell
// which build each node runs.
func TestVersionNamesTheCommit(t *testing.T) {
	if os.Getenv("OTELCOL_MODELPLANE_BIN") == "" {
		t.Skip("OTELCOL_MODELPLANE_BIN not set: the commit is passed by `make build`, which `make test` runs")
	}
	head, err := exec.Command("git", "-C", repoRoot(), "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		t.Skipf("no git checkout to compare with: %v", err)
	}
	out, err := exec.Command(collectorBin, "--version").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "otelcol-modelplane version 0.1.0 (commit "+strings.TrimSpace(string(head)))
	mod, err := os.ReadFile(filepath.Join(repoRoot(), "go.mod"))
	require.NoError(t, err)
	otelcol := regexp.MustCompile(`(?m)^\s*go\.opentelemetry\.io/collector/otelcol (v\S+)`).FindSubmatch(mod)
	require.NotNil(t, otelcol, "go.mod requires go.opentelemetry.io/collector/otelcol")
	assert.Contains(t, string(out), "OpenTelemetry Collector "+string(otelcol[1])+")")
}

// The built binary's help starts with what the collector's own help cannot say, that it runs
// an embedded default, and lists this distribution's commands beside the collector's.
func TestHelpNamesOurCommands(t *testing.T) {
	for _, arg := range []string{"--help", "help"} {
		out, err := exec.Command(collectorBin, arg).CombinedOutput()
		require.NoError(t, err, string(out))
		help := string(out)
		assert.True(t, strings.HasPrefix(help, "otelcol-modelplane, the OpenTelemetry Collector for GPU inference fleets."), help)
		assert.Contains(t, help, "127.0.0.1:9464/metrics", arg)
		assert.Less(t, strings.Index(help, "127.0.0.1:9464/metrics"), strings.Index(help, "Usage:"))
		assert.Contains(t, help, "--version", arg)
		for _, cmd := range []string{"default-config", "preview", "validate", "validate-mappings", "version", "components"} {
			assert.Regexp(t, `(?m)^\s+`+regexp.QuoteMeta(cmd)+`\s`, help, arg)
		}
	}
}

// A bad value in one of the embedded default's variables stops the collector at start, and
// fails `validate`, with a message naming the variable and its value rather than the field
// of the component it lands in.
func TestEmbeddedDefaultNamesABadVariable(t *testing.T) {
	for _, args := range [][]string{nil, {"validate"}} {
		out, err := runToExit(t, []string{"MODELPLANE_SCRAPE_INTERVAL=abc", "MODELPLANE_VLLM_TARGET=http://10.0.3.7:8000/metrics"}, args...)
		require.Error(t, err, "%v", args)
		assert.Contains(t, out, `MODELPLANE_SCRAPE_INTERVAL="abc": not a duration such as 15s, 1m or 1m30s`, "%v", args)
		assert.Contains(t, out, `MODELPLANE_VLLM_TARGET="http://10.0.3.7:8000/metrics": not host:port`, "%v", args)
	}
}

// A GPU host where Jupyter, or another collector, already listens on 8888: the embedded
// default stops naming the address and the variable that moves it (the collector's own
// error named only the address, "binding address localhost:8888 for Prometheus exporter"),
// and serves its own metrics where that variable says.
func TestEmbeddedDefaultNamesATakenPort(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = taken.Close() })
	elsewhere := []string{"MODELPLANE_PROMETHEUS_ENDPOINT=" + freeport.Addr(t), "MODELPLANE_VLLM_TARGET=" + freeport.Addr(t),
		"MODELPLANE_SGLANG_TARGET=" + freeport.Addr(t), "MODELPLANE_DCGM_EXPORTER_TARGET=" + freeport.Addr(t)}
	out, err := runToExit(t, append([]string{"MODELPLANE_TELEMETRY_ENDPOINT=" + taken.Addr().String()}, elsewhere...))
	require.Error(t, err)
	assert.Contains(t, out, taken.Addr().String()+", where the embedded default serves the collector's own metrics, is taken by another process (Jupyter and other collectors listen on 8888 by default): set MODELPLANE_TELEMETRY_ENDPOINT to a free host:port, such as 127.0.0.1:PORT")

	// Both on one address: the second listener's "address already in use" sent the reader
	// looking for another process.
	same := freeport.Addr(t)
	out, err = runToExit(t, []string{"MODELPLANE_TELEMETRY_ENDPOINT=" + same, "MODELPLANE_PROMETHEUS_ENDPOINT=" + same})
	require.Error(t, err)
	assert.Contains(t, out, `MODELPLANE_PROMETHEUS_ENDPOINT="`+same+`" and MODELPLANE_TELEMETRY_ENDPOINT="`+same+`" share port`)

	telemetry := freeport.Addr(t)
	startWithEnv(t, append(append(os.Environ(), "MODELPLANE_TELEMETRY_ENDPOINT="+telemetry), elsewhere...), collectorBin)
	eventually(t, "the collector's own metrics at MODELPLANE_TELEMETRY_ENDPOINT", func() bool {
		resp, err := http.Get("http://" + telemetry + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return strings.Contains(string(body), "otelcol_process_uptime")
	})
}

// A host that runs a vLLM and nothing else: MODELPLANE_SGLANG_TARGET=none and
// MODELPLANE_DCGM_EXPORTER_TARGET=none leave those jobs out, so the log is not a failed scrape
// of each every interval (before, none was refused as not host:port, and the jobs could only
// be left out with a config file of one's own), and the GPU receiver has no exporter to defer
// to. NODE_NAME set but empty asks for no node label, as the default's header says (the
// collector did not start: the resource processor refused the node action without a value).
func TestEmbeddedDefaultWithoutSomeTargets(t *testing.T) {
	vllm := startEngine(t, "vllm", "vllm.prom", nil)
	endpoint, telemetry := freeport.Addr(t), freeport.Addr(t)
	col := startWithEnv(t, append(os.Environ(), "MODELPLANE_VLLM_TARGET="+vllm.Addr, "MODELPLANE_SGLANG_TARGET=none",
		"MODELPLANE_DCGM_EXPORTER_TARGET=none", "MODELPLANE_PROMETHEUS_ENDPOINT="+endpoint,
		"MODELPLANE_TELEMETRY_ENDPOINT="+telemetry, "MODELPLANE_SCRAPE_INTERVAL=1s", "NODE_NAME="), collectorBin)
	requestsWaitingOf := func() int { return count(servedLines(t, endpoint), "modelplane_requests_waiting{") }
	eventually(t, "the vLLM's series", func() bool { return requestsWaitingOf() == 1 })
	for _, l := range servedLines(t, endpoint) {
		assert.NotContains(t, l, "node=", l)
		assert.Contains(t, l, `cluster="standalone"`, l)
	}
	time.Sleep(3 * time.Second) // three more scrape intervals
	out := col.out.String()
	assert.NotContains(t, out, "Failed to scrape Prometheus endpoint")
	assert.NotContains(t, out, "A dcgm-exporter serves this host's GPUs", "nothing to defer to")
	assert.Contains(t, out, `"jobName": "vllm"`)
	assert.NotContains(t, out, `"jobName": "sglang"`)
	assert.Zero(t, count(servedLines(t, telemetry), "otelcol_processor_modelplane_mapping_scrapes_failed{"))
}

// A host that runs a vLLM, and an SGLang target that does not answer (the variable left at
// an address nothing serves, or an engine still loading its model): the built collector logs
// the failure once, with a note saying that repeats are condensed, not at every scrape
// (receiver/prometheusreceiver, which builder-config.yaml puts in place of contrib's), while
// the failed-scrape count goes on counting each one.
func TestEmbeddedDefaultLogsADownTargetOnce(t *testing.T) {
	vllm := startEngine(t, "vllm", "vllm.prom", nil)
	endpoint, telemetry, down := freeport.Addr(t), freeport.Addr(t), freeport.Addr(t)
	col := startWithEnv(t, append(os.Environ(), "MODELPLANE_VLLM_TARGET="+vllm.Addr, "MODELPLANE_SGLANG_TARGET="+down,
		"MODELPLANE_DCGM_EXPORTER_TARGET=none", "MODELPLANE_PROMETHEUS_ENDPOINT="+endpoint,
		"MODELPLANE_TELEMETRY_ENDPOINT="+telemetry, "MODELPLANE_SCRAPE_INTERVAL=1s"), collectorBin)
	failed := regexp.MustCompile(`otelcol_processor_modelplane_mapping_scrapes_failed\{[^}]*scrape_job="sglang"[^}]*\} (\d+)`)
	var n int
	eventually(t, "five failed scrapes of the SGLang target counted", func() bool {
		for _, l := range servedLines(t, telemetry) {
			if m := failed.FindStringSubmatch(l); m != nil {
				n, _ = strconv.Atoi(m[1])
			}
		}
		return n >= 5
	})
	out := col.out.String()
	assert.Equal(t, 1, strings.Count(out, "Failed to scrape Prometheus endpoint"), "%d failed scrapes, one line", n)
	assert.Contains(t, out, down)
	assert.Contains(t, out, "its failed scrapes are logged once every 5m0s")
	assert.Equal(t, 1, count(servedLines(t, endpoint), "modelplane_requests_waiting{"), "the vLLM's series go on")

	components, err := exec.Command(collectorBin, "components").CombinedOutput()
	require.NoError(t, err, string(components))
	assert.Regexp(t, `(?s)name: prometheus\s+module: github.com/modelplaneai/otelcol-modelplane `, string(components))
}

// A host whose dcgm-exporter starts after the collector (at boot, or installed later), with
// MODELPLANE_DCGM_EXPORTER_TARGET unset: the default leaves the exporter out while nothing
// answers at 127.0.0.1:9400, and the GPU receiver reads the GPUs (here: no NVML, so none).
// Once the exporter answers, the collector reloads itself and scrapes it, as it would have
// from the start, and the GPU receiver defers to it. Before, only a reload by hand or a
// restart took the exporter up.
func TestEmbeddedDefaultTakesUpALateExporter(t *testing.T) {
	const exporterAddr = "127.0.0.1:9400" // the default's, which the test must use
	skipIfTaken(t, exporterAddr)
	vllm := startEngine(t, "vllm", "vllm.prom", nil)
	endpoint, telemetry := freeport.Addr(t), freeport.Addr(t)
	col := startWithEnv(t, append(os.Environ(), "MODELPLANE_VLLM_TARGET="+vllm.Addr, "MODELPLANE_SGLANG_TARGET=none",
		"MODELPLANE_PROMETHEUS_ENDPOINT="+endpoint, "MODELPLANE_TELEMETRY_ENDPOINT="+telemetry,
		"MODELPLANE_SCRAPE_INTERVAL=1s", "NODE_NAME=gpu-1"), collectorBin)
	eventually(t, "the vLLM's series", func() bool { return count(servedLines(t, endpoint), "modelplane_requests_waiting{") == 1 })
	assert.Zero(t, count(servedLines(t, endpoint), "modelplane_gpu_"))
	assert.Contains(t, col.out.String(), "No dcgm-exporter answers on this host")

	startEngineAt(t, exporterAddr, "dcgm-exporter", "dcgm-exporter.prom")

	eventually(t, "the exporter's GPU series", func() bool {
		return count(servedLines(t, endpoint), "modelplane_gpu_memory_used_bytes{", `node="gpu-1"`) == 2
	})
	out := col.out.String()
	assert.Contains(t, out, "A dcgm-exporter answers now: reloading the configuration to scrape it")
	assert.Contains(t, out, "A dcgm-exporter serves this host's GPUs", "the GPU receiver defers to it")
	assert.Equal(t, 1, strings.Count(out, "Config updated, performing partial receiver reload"), "one reload, of the receivers")
	assert.Equal(t, 1, count(servedLines(t, endpoint), "modelplane_requests_waiting{"), "the vLLM's series go on")
	assert.Zero(t, count(servedLines(t, telemetry), "otelcol_processor_modelplane_mapping_scrapes_failed{", `scrape_job="dcgm-exporter"`))
}

// A vLLM host whose SGLang variable is left unset, as on every host that runs one engine: the
// default scrapes no SGLang while none serves its page at 127.0.0.1:30000, so no scrape fails
// and none is counted, and says so once. An SGLang that starts later is taken up by a reload,
// as a late dcgm-exporter is. Before, the default scraped 127.0.0.1:30000 from the start and
// failed there every interval.
//
// loading: the SGLang has bound its port but does not answer yet, as an engine loading its
// model does (vLLM binds its port first); the log says what was found. Before, the collector
// took a connection for an engine and failed every scrape until the model was loaded, which
// takes minutes.
func TestEmbeddedDefaultTakesUpALateEngine(t *testing.T) {
	for _, loading := range []bool{false, true} {
		t.Run(map[bool]string{false: "late", true: "loading"}[loading], func(t *testing.T) { takesUpALateSGLang(t, loading) })
	}
}

func takesUpALateSGLang(t *testing.T, loading bool) {
	const sglangAddr = "127.0.0.1:30000" // the default's, which the test must use
	skipIfTaken(t, sglangAddr)
	var listening net.Listener
	if loading {
		var err error
		listening, err = net.Listen("tcp", sglangAddr) // bound, listening, never answering
		require.NoError(t, err)
		t.Cleanup(func() { _ = listening.Close() })
	}
	vllm := startEngine(t, "vllm", "vllm.prom", nil)
	endpoint, telemetry := freeport.Addr(t), freeport.Addr(t)
	col := startWithEnv(t, append(os.Environ(), "MODELPLANE_VLLM_TARGET="+vllm.Addr, "MODELPLANE_DCGM_EXPORTER_TARGET=none",
		"MODELPLANE_PROMETHEUS_ENDPOINT="+endpoint, "MODELPLANE_TELEMETRY_ENDPOINT="+telemetry,
		"MODELPLANE_SCRAPE_INTERVAL=1s"), collectorBin)
	eventually(t, "the vLLM's series", func() bool { return count(servedLines(t, endpoint), "modelplane_requests_waiting{") == 1 })
	time.Sleep(4 * time.Second) // four scrape intervals in which an SGLang job would have failed
	assert.Zero(t, count(servedLines(t, telemetry), "otelcol_processor_modelplane_mapping_scrapes_failed{"), "no failed scrape counted")
	out := col.out.String()
	assert.Equal(t, 1, strings.Count(out, "No SGLang answers on this host: the default scrapes none"))
	if loading {
		assert.Contains(t, out, "it accepts connections but did not answer GET /metrics within 3s")
		require.NoError(t, listening.Close()) // loaded: it serves
	}
	assert.NotContains(t, out, "Failed to scrape Prometheus endpoint")

	startEngineAt(t, sglangAddr, "sglang", "sglang.prom")

	eventually(t, "the SGLang's series", func() bool {
		return count(servedLines(t, endpoint), "modelplane_requests_waiting{", `engine="sglang"`) == 1
	})
	out = col.out.String()
	assert.Contains(t, out, "An SGLang answers now: reloading the configuration to scrape it")
	assert.Equal(t, 1, strings.Count(out, "Config updated, performing partial receiver reload"), "one reload, of the receivers")
	assert.Equal(t, 1, count(servedLines(t, endpoint), "modelplane_requests_waiting{", `engine="vllm"`), "the vLLM's series go on")
	assert.Zero(t, count(servedLines(t, telemetry), "otelcol_processor_modelplane_mapping_scrapes_failed{"))
}

// An SGLang started with --port 8000, vLLM's default, and both variables unset: the default
// tells it by its page and scrapes it with the sglang job, labelled engine=sglang, with no
// vLLM job. Before, the vLLM job read it, labelling every series engine=vllm.
func TestEmbeddedDefaultSGLangOnVLLMsPort(t *testing.T) {
	const addr = "127.0.0.1:8000" // vLLM's default, which the test must use
	skipIfTaken(t, addr)
	skipIfTaken(t, "127.0.0.1:30000") // SGLang's own, which must be free
	startEngineAt(t, addr, "sglang", "sglang.prom")
	endpoint, telemetry := freeport.Addr(t), freeport.Addr(t)
	col := startWithEnv(t, append(os.Environ(), "MODELPLANE_DCGM_EXPORTER_TARGET=none",
		"MODELPLANE_PROMETHEUS_ENDPOINT="+endpoint, "MODELPLANE_TELEMETRY_ENDPOINT="+telemetry,
		"MODELPLANE_SCRAPE_INTERVAL=1s"), collectorBin)
	eventually(t, "the SGLang's series", func() bool { return count(servedLines(t, endpoint), "modelplane_requests_waiting{") == 1 })
	lines := servedLines(t, endpoint)
	assert.Zero(t, count(lines, `engine="vllm"`), "not read as a vLLM")
	assert.Equal(t, count(lines, "modelplane_"), count(lines, `engine="sglang"`))
	assert.Equal(t, 1, count(lines, "modelplane_requests_waiting{", `replica="sglang"`))
	out := col.out.String()
	assert.Contains(t, out, "An SGLang answers at vLLM's default address: the sglang job scrapes it there, and there is no vllm job")
	assert.NotContains(t, out, "No SGLang answers on this host")
	assert.Zero(t, count(servedLines(t, telemetry), "otelcol_processor_modelplane_mapping_scrapes_failed{"))
}

// A host running NVIDIA NIM for LLMs: MODELPLANE_NIM_TARGET names it (on vLLM's port, so the
// vLLM job is none), and the default reads its /v1/metrics with the modelplane-nim mapping,
// as any other engine's series, labelled engine nim.
func TestEmbeddedDefaultWithANIM(t *testing.T) {
	e := startNIM(t)
	endpoint, telemetry := freeport.Addr(t), freeport.Addr(t)
	col := startWithEnv(t, append(os.Environ(), "MODELPLANE_NIM_TARGET="+e.Addr, "MODELPLANE_VLLM_TARGET=none",
		"MODELPLANE_SGLANG_TARGET=none", "MODELPLANE_DCGM_EXPORTER_TARGET=none", "MODELPLANE_PROMETHEUS_ENDPOINT="+endpoint,
		"MODELPLANE_TELEMETRY_ENDPOINT="+telemetry, "MODELPLANE_SCRAPE_INTERVAL=1s", "NODE_NAME=gpu-1"), collectorBin)
	var lines []string
	eventually(t, "the NIM's series", func() bool {
		lines = servedLines(t, endpoint)
		return count(lines, "modelplane_responses_total{") == 2
	})
	for _, l := range lines {
		if strings.HasPrefix(l, "modelplane_requests_running{") {
			assert.Contains(t, l, `engine="nim"`)
			assert.Contains(t, l, `replica="nim"`)
			assert.Contains(t, l, `model_name="meta/llama-3.1-8b-instruct"`)
			assert.True(t, strings.HasSuffix(l, " 3"), l)
		}
	}
	assert.Equal(t, 1, count(lines, "modelplane_kv_cache_utilization_ratio{"))
	assert.Equal(t, 2, count(lines, "modelplane_tokens_total{"))
	assert.Zero(t, count(servedLines(t, telemetry), "otelcol_processor_modelplane_mapping_scrapes_failed{"))
	assert.Contains(t, col.out.String(), `"jobName": "nim"`)
}

// A NIM on vLLM's port, as NIM serves, named by MODELPLANE_NIM_TARGET alone: the vLLM
// variable, left unset, yields its default address to it, so the default has no vLLM job
// and says so. Before, the start was refused until MODELPLANE_VLLM_TARGET=none was set too.
func TestEmbeddedDefaultNIMOnVLLMsPort(t *testing.T) {
	const nimAddr = "127.0.0.1:8000" // vLLM's default, which the test must use
	skipIfTaken(t, nimAddr)
	startNIMAt(t, nimAddr)
	endpoint, telemetry := freeport.Addr(t), freeport.Addr(t)
	col := startWithEnv(t, append(os.Environ(), "MODELPLANE_NIM_TARGET="+nimAddr,
		"MODELPLANE_SGLANG_TARGET=none", "MODELPLANE_DCGM_EXPORTER_TARGET=none", "MODELPLANE_PROMETHEUS_ENDPOINT="+endpoint,
		"MODELPLANE_TELEMETRY_ENDPOINT="+telemetry, "MODELPLANE_SCRAPE_INTERVAL=1s"), collectorBin)
	eventually(t, "the NIM's series", func() bool { return count(servedLines(t, endpoint), "modelplane_responses_total{") == 2 })
	lines := servedLines(t, endpoint)
	assert.Zero(t, count(lines, `engine="vllm"`), "the NIM is not read again as a vLLM")
	assert.Equal(t, count(lines, "modelplane_"), count(lines, `engine="nim"`))
	out := col.out.String()
	assert.Contains(t, out, "MODELPLANE_VLLM_TARGET is unset, and MODELPLANE_NIM_TARGET names its default address: no vllm job")
	assert.NotContains(t, out, `"jobName": "vllm"`)
	assert.Zero(t, count(servedLines(t, telemetry), "otelcol_processor_modelplane_mapping_scrapes_failed{"))
}

// The same NIM with MODELPLANE_NIM_TARGET left unset too: its port answers /metrics with 404,
// so the default does not read it as a vLLM, counts no failed scrape, and says how to read it.
// Before, the vLLM job scraped it and failed every interval.
func TestEmbeddedDefaultNIMUnnamed(t *testing.T) {
	const nimAddr = "127.0.0.1:8000"
	skipIfTaken(t, nimAddr)
	startNIMAt(t, nimAddr)
	sglang := startEngine(t, "sglang", "sglang.prom", nil) // a job that runs, so that scrapes are counted
	endpoint, telemetry := freeport.Addr(t), freeport.Addr(t)
	col := startWithEnv(t, append(os.Environ(), "MODELPLANE_SGLANG_TARGET="+sglang.Addr, "MODELPLANE_DCGM_EXPORTER_TARGET=none",
		"MODELPLANE_PROMETHEUS_ENDPOINT="+endpoint, "MODELPLANE_TELEMETRY_ENDPOINT="+telemetry, "MODELPLANE_SCRAPE_INTERVAL=1s"), collectorBin)
	eventually(t, "the other job's series", func() bool { return count(servedLines(t, endpoint), "modelplane_requests_waiting{") == 1 })
	time.Sleep(3 * time.Second)
	out := col.out.String()
	assert.Contains(t, out, "No vLLM answers on this host")
	assert.Contains(t, out, "GET /metrics answered 404 Not Found; a vLLM serves /metrics; an NVIDIA NIM, which serves on this port too, has its metrics at /v1/metrics, read with MODELPLANE_NIM_TARGET=127.0.0.1:8000")
	assert.NotContains(t, out, `"jobName": "vllm"`)
	assert.Zero(t, count(servedLines(t, telemetry), "otelcol_processor_modelplane_mapping_scrapes_failed{", `scrape_job="vllm"`))
}

// skipIfTaken skips a test that must serve at one of the default's addresses where something
// else already listens there.
func skipIfTaken(t *testing.T, addr string) {
	t.Helper()
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		_ = c.Close()
		t.Skip("something already listens on " + addr + ", one of the default's addresses, which this test must serve at")
	}
}

// startNIM serves the NIM page written for the catalog's test as a NIM does: at /v1/metrics,
// in OpenMetrics when asked.
func startNIM(t *testing.T) *demofleet.Engine { t.Helper(); return startNIMAt(t, "127.0.0.1:0") }

func startNIMAt(t *testing.T, addr string) *demofleet.Engine {
	t.Helper()
	e, err := demofleet.NewEngine("nim", addr, filepath.Join(repoRoot(), "processor", "modelplanemapping", "testdata", "pages", "nim-llm.prom"))
	require.NoError(t, err)
	e.Path, e.OpenMetrics = "/v1/metrics", demofleet.SpeaksOpenMetrics("nim")
	require.NoError(t, e.Start())
	t.Cleanup(func() { _ = e.Stop() })
	return e
}

// runToExit runs the collector with env added to this process's environment and returns its
// output and its exit error; a collector still running after 30 s fails the test.
func runToExit(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(collectorBin, args...)
	cmd.Env = append(os.Environ(), env...)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%v with %v: still running after 30 s", args, env)
	}
	return string(out), err
}

// startStandalone runs the shipped standalone config (deploy/standalone/config.yaml) against
// a local vLLM and SGLang, with env as the collector's whole environment, and returns where
// it serves.
func startStandalone(t *testing.T, env []string, edits ...func(string) string) (*process, string) {
	t.Helper()
	path, endpoint := standaloneConfig(t, edits...)
	return startWithEnv(t, env, collectorBin, "--config="+path), endpoint
}

// standaloneConfig writes the shipped standalone config, edited, for a local vLLM and SGLang
// it starts, and returns its path and where it serves.
func standaloneConfig(t *testing.T, edits ...func(string) string) (path, endpoint string) {
	t.Helper()
	vllm := startEngine(t, "vllm", "vllm.prom", nil)
	sglang := startEngine(t, "sglang", "sglang.prom", nil)
	endpoint = freeport.Addr(t)
	shipped, err := os.ReadFile(filepath.Join(repoRoot(), "deploy", "standalone", "config.yaml"))
	require.NoError(t, err)
	cfg := strings.NewReplacer(
		"127.0.0.1:8000", vllm.Addr, "127.0.0.1:30000", sglang.Addr,
		"127.0.0.1:9464", endpoint, "127.0.0.1:13133", freeport.Addr(t),
		"scrape_interval: 15s", "scrape_interval: 1s",
		"/var/lib/otelcol-modelplane", t.TempDir(), "/etc/otelcol-modelplane/mappings", plainTempDir(t),
	).Replace(string(shipped))
	for _, edit := range edits {
		cfg = edit(cfg)
	}
	path = filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o600))
	return path, endpoint
}

// plainTempDir is a temporary folder whose path YAML reads the same in a flow sequence:
// t.TempDir() names it after the test, and a subtest's name may hold a comma, which split the
// shipped config's mapping_files list into paths that do not exist.
func plainTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "e2e")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// engineIndexKept checks served lines for vLLM's own engine label, its engine's index
// (engine="0" on its page), which the target's engine label displaces to exported_engine: the
// shipped configs keep it as engine_index, and no series carries an exported_ label.
func engineIndexKept(t *testing.T, lines []string) {
	t.Helper()
	vllm := 0
	for _, line := range lines {
		assert.NotContains(t, line, "exported_")
		if strings.Contains(line, `engine="vllm"`) {
			vllm++
			assert.Contains(t, line, `engine_index="0"`)
		}
	}
	assert.Positive(t, vllm, "vLLM's series")
}

// requestsWaiting returns the modelplane_requests_waiting lines served at endpoint once both
// engines have theirs.
func requestsWaiting(t *testing.T, endpoint string) []string {
	t.Helper()
	var waiting []string
	eventually(t, "modelplane_requests_waiting of both engines", func() bool {
		waiting = waiting[:0]
		for _, line := range servedLines(t, endpoint) {
			if strings.HasPrefix(line, "modelplane_requests_waiting{") {
				waiting = append(waiting, line)
			}
		}
		return len(waiting) == 2
	})
	return waiting
}

// The shipped standalone config reads the cluster, the deployment and the node from
// environment variables. Their values reach the series as written: with the collector's own
// env provider, cluster 01 became cluster="1", deployment 0042 deployment="34" (read as
// octal) and host 1e3 node="1000" (cmd/otelcol-modelplane/internal/envprovider).
func TestVariablesKeepTheirText(t *testing.T) {
	env := append(os.Environ(), "MODELPLANE_CLUSTER=01", "MODELPLANE_DEPLOYMENT=0042", "HOSTNAME=1e3")
	p, endpoint := startStandalone(t, env)
	for _, line := range requestsWaiting(t, endpoint) {
		for _, label := range []string{`cluster="01"`, `deployment="0042"`, `node="1e3"`, `replica="1e3-`} {
			assert.Contains(t, line, label)
		}
	}
	engineIndexKept(t, servedLines(t, endpoint))
	// Each variable kept as text is said once, however often the config reads it.
	for _, name := range []string{"MODELPLANE_CLUSTER", "MODELPLANE_DEPLOYMENT", "HOSTNAME"} {
		assert.Equal(t, 1, strings.Count(p.out.String(), `"name": "`+name+`"`), name)
	}
}

// Under the systemd unit the standalone config runs with the environment systemd gives a
// service, which has no HOSTNAME: every host then sent node="localhost" and replica
// "local-vllm", the same series from each, colliding in the backend. The unit sets HOSTNAME
// to the host's name (%H), and where nothing sets it (cron, supervisord, a Debian shell,
// which does not export it) or sets it empty, the env provider gives the host's name.
func TestStandaloneNamesTheHost(t *testing.T) {
	host, err := os.Hostname()
	require.NoError(t, err)
	unit, err := os.ReadFile(filepath.Join(repoRoot(), "deploy", "standalone", "otelcol-modelplane.service"))
	require.NoError(t, err)
	underSystemd := []string{"PATH=" + os.Getenv("PATH")}
	for _, line := range strings.Split(string(unit), "\n") {
		if kv, ok := strings.CutPrefix(line, "Environment="); ok {
			kv = strings.ReplaceAll(kv, "%H", host)
			require.NotContains(t, kv, "%", "a systemd specifier this test does not resolve: %s", line)
			underSystemd = append(underSystemd, kv)
		}
	}
	require.Contains(t, underSystemd, "HOSTNAME="+host, "the unit sets HOSTNAME")
	for name, env := range map[string][]string{
		"the unit's environment": underSystemd,
		"no HOSTNAME":            {"PATH=" + os.Getenv("PATH")},
		// An environment file's HOSTNAME= whose value did not expand: the collector did not
		// start (the resource processor refused a node without a value).
		"HOSTNAME empty": {"PATH=" + os.Getenv("PATH"), "HOSTNAME="},
	} {
		t.Run(name, func(t *testing.T) {
			_, endpoint := startStandalone(t, env)
			for _, line := range requestsWaiting(t, endpoint) {
				assert.Contains(t, line, `node="`+host+`"`)
				assert.Regexp(t, `replica="`+regexp.QuoteMeta(host)+`-(vllm|sglang)"`, line)
			}
		})
	}
}

// A second vLLM on a host, added to the standalone config's vllm targets, took that entry's
// labels and was one replica with the first: the two engines' queues were served as one
// modelplane_requests_waiting series, carrying either's value, and nothing said so. validate
// and the collector's log now name the targets and the fix; done as the config's comment
// says (an entry of its own), each engine's series is served under its own replica.
func TestStandaloneSecondEngine(t *testing.T) {
	second := startBusierVLLM(t)
	env := append(os.Environ(), "HOSTNAME=h1")
	vllmWaiting := func(endpoint string) []string {
		var lines []string
		for _, line := range servedLines(t, endpoint) {
			if strings.HasPrefix(line, "modelplane_requests_waiting{") && strings.Contains(line, `engine="vllm"`) {
				lines = append(lines, line)
			}
		}
		return lines
	}
	validate := func(path string) string {
		cmd := exec.Command(collectorBin, "validate", "--config="+path)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}

	t.Run("added to the first's targets", func(t *testing.T) {
		const entry = "\"]\n              labels: {engine: vllm,"
		path, endpoint := standaloneConfig(t, func(cfg string) string {
			require.Equal(t, 1, strings.Count(cfg, entry))
			return strings.Replace(cfg, entry, `", "`+second.Addr+entry, 1)
		})
		warning := `of job vllm are one replica to processors::modelplane_mapping (deployment="local", replica="h1-vllm", engine="vllm", role="unified")`
		out := validate(path)
		assert.Contains(t, out, "warning: receivers::node_scrape: targets ")
		assert.Contains(t, out, " and "+second.Addr+" "+warning)
		assert.Contains(t, out, "Give each target its own static_configs entry with its own replica label")
		col := startWithEnv(t, env, collectorBin, "--config="+path)
		// What it warns of: both engines scraped, one series served.
		eventually(t, "vLLM's queue served", func() bool { return len(vllmWaiting(endpoint)) > 0 })
		time.Sleep(3 * time.Second) // three scrapes of each
		assert.Len(t, vllmWaiting(endpoint), 1)
		assert.Contains(t, col.out.String(), "Scrape targets labelled as one replica: receivers::node_scrape: targets ")
	})

	t.Run("an entry of its own, as the config's comment says", func(t *testing.T) {
		path, endpoint := standaloneConfig(t, func(cfg string) string {
			commented := "            # - targets: [\"127.0.0.1:8001\"]\n            #   labels:"
			require.Equal(t, 1, strings.Count(cfg, commented))
			return strings.Replace(cfg, commented, "            - targets: [\""+second.Addr+"\"]\n              labels:", 1)
		})
		assert.Empty(t, validate(path))
		col := startWithEnv(t, env, collectorBin, "--config="+path)
		var lines []string
		eventually(t, "both vLLMs' queues served", func() bool { lines = vllmWaiting(endpoint); return len(lines) == 2 })
		slices.Sort(lines)
		assert.Contains(t, lines[0], `replica="h1-vllm"`)
		assert.True(t, strings.HasSuffix(lines[0], "} 2"), lines[0])
		assert.Contains(t, lines[1], `replica="h1-vllm-2"`)
		assert.True(t, strings.HasSuffix(lines[1], "} 77"), lines[1])
		assert.NotContains(t, col.out.String(), "one replica")
	})
}

// The shipped config's NIM job, uncommented as its comment says (and modelplane-nim added to
// the built-ins): the NIM is read at /v1/metrics beside the vLLM, as an engine of its own.
func TestStandaloneNIM(t *testing.T) {
	nim := startNIM(t)
	path, endpoint := standaloneConfig(t, func(cfg string) string {
		cfg = uncommentBlock(t, cfg, "- job_name")
		// The example names NIM at vLLM's port, which the test's vLLM holds.
		nimEntry := regexp.MustCompile(`targets: \["[^"]+"\]\n(\s+)labels: \{engine: nim,`)
		require.Len(t, nimEntry.FindAllString(cfg, -1), 1)
		cfg = nimEntry.ReplaceAllString(cfg, `targets: ["`+nim.Addr+`"]`+"\n${1}labels: {engine: nim,")
		require.Equal(t, 1, strings.Count(cfg, "    builtin: [default]\n"))
		return strings.Replace(cfg, "    builtin: [default]\n", "    builtin: [default, modelplane-nim]\n", 1)
	})
	env := append(os.Environ(), "HOSTNAME=h1")
	cmd := exec.Command(collectorBin, "validate", "--config="+path)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	startWithEnv(t, env, collectorBin, "--config="+path)
	running := map[string]string{}
	eventually(t, "the NIM's and the vLLM's series", func() bool {
		for _, line := range servedLines(t, endpoint) {
			if strings.HasPrefix(line, "modelplane_requests_running{") {
				for _, e := range []string{"nim", "vllm"} {
					if strings.Contains(line, `engine="`+e+`"`) {
						running[e] = line
					}
				}
			}
		}
		return len(running) == 2
	})
	assert.Contains(t, running["nim"], `replica="h1-nim"`)
	assert.True(t, strings.HasSuffix(running["nim"], "} 3"), running["nim"])
}

// uncommentBlock does what the shipped config's comments ask of a user: it uncomments the
// commented YAML block that starts with `# key:`, that line and the lines under it, indented
// deeper. A block inside it stays commented until uncommented by its own key.
func uncommentBlock(t *testing.T, cfg, key string) string {
	t.Helper()
	lines := strings.Split(cfg, "\n")
	for i, line := range lines {
		indent, rest, ok := strings.Cut(line, "# "+key+":")
		if !ok || strings.TrimSpace(indent) != "" {
			continue
		}
		lines[i] = indent + key + ":" + rest
		for j := i + 1; j < len(lines) && strings.HasPrefix(lines[j], indent+"#   "); j++ {
			lines[j] = indent + lines[j][len(indent)+2:]
		}
		return strings.Join(lines, "\n")
	}
	t.Fatalf("the config has no commented %q block", key)
	return ""
}

// appendToList adds name to the flow-style list that follows prefix, once.
func appendToList(t *testing.T, cfg, prefix, name string) string {
	t.Helper()
	require.Equal(t, 1, strings.Count(cfg, prefix+"["), "one %q list", prefix)
	i := strings.Index(cfg, prefix+"[")
	end := i + strings.Index(cfg[i:], "]")
	return cfg[:end] + ", " + name + cfg[end:]
}

// The ways out that the standalone example leaves commented work as their comments say:
// uncommented, with the token in the environment as the comment has it, remote write
// reaches Prometheus through a proxy that checks the token, and OTLP/HTTP reaches an OTLP
// backend through the queue on disk. Before, the commented remote write had none of the
// delivery settings (a backend away for 20 s lost batches) and no way to give a token.
func TestStandaloneExampleSends(t *testing.T) {
	host, err := os.Hostname()
	require.NoError(t, err)
	env := append(os.Environ(), "HOSTNAME="+host, "MODELPLANE_BACKEND_TOKEN=secret-1")

	t.Run("remote write with a token", func(t *testing.T) {
		prom := startPrometheus(t)
		proxy := startTokenProxy(t, prom.addr, "secret-1")
		col, _ := startStandalone(t, env, func(cfg string) string {
			return remoteWriteWithToken(t, cfg, "http://"+proxy.addr+"/api/v1/write")
		})
		eventually(t, "both engines' queues in Prometheus", func() bool {
			return len(prom.query(t, `modelplane_requests_waiting{node="`+host+`"}`)) == 2
		})
		assert.Positive(t, proxy.uses("secret-1"))
		assert.Zero(t, proxy.refused.Load(), "no write refused for its token")
		assert.NotContains(t, col.out.String(), "401 Unauthorized")
	})

	// Uncommented without the token in the environment, the example does not start and says
	// which variable to set and where; before, the extension's own "no bearer token
	// provided" named neither.
	t.Run("token not set", func(t *testing.T) {
		shipped, err := os.ReadFile(filepath.Join(repoRoot(), "deploy", "standalone", "config.yaml"))
		require.NoError(t, err)
		path := filepath.Join(t.TempDir(), "config.yaml")
		cfg := strings.ReplaceAll(remoteWriteWithToken(t, string(shipped), "http://127.0.0.1:9090/api/v1/write"), "/etc/otelcol-modelplane/mappings", t.TempDir())
		require.NoError(t, os.WriteFile(path, []byte(cfg), 0o600))
		validate := exec.Command(collectorBin, "validate", "--config="+path)
		validate.Env = withoutEnv(env, "MODELPLANE_BACKEND_TOKEN")
		out, err := validate.CombinedOutput()
		require.Error(t, err, string(out))
		assert.Contains(t, string(out), "environment variable MODELPLANE_BACKEND_TOKEN is not set: set it in /etc/otelcol-modelplane/environment")
	})

	t.Run("OTLP with the queue on disk", func(t *testing.T) {
		sink := startOTLPSink(t)
		startStandalone(t, env, func(cfg string) string {
			cfg = uncommentBlock(t, cfg, "otlp_http")
			cfg = appendToList(t, cfg, "      exporters: ", "otlp_http")
			return strings.Replace(cfg, "https://otlp.example.com", "http://"+sink.addr, 1)
		})
		eventually(t, "vLLM's preemptions at the OTLP backend", func() bool {
			return sink.timestamps("modelplane_requests_preempted_total", host+"-vllm") > 1
		})
	})
}

// remoteWriteWithToken uncomments the standalone example's remote write to endpoint and the
// bearer token it sends, as the comments say.
func remoteWriteWithToken(t *testing.T, cfg, endpoint string) string {
	t.Helper()
	cfg = uncommentBlock(t, cfg, "prometheus_remote_write")
	sameDeliverySettings(t, cfg)
	cfg = uncommentBlock(t, cfg, "auth")
	cfg = uncommentBlock(t, cfg, "bearertokenauth")
	cfg = appendToList(t, cfg, "  extensions: ", "bearertokenauth")
	cfg = appendToList(t, cfg, "      exporters: ", "prometheus_remote_write")
	return strings.Replace(cfg, "https://mimir.example.com/api/v1/push", endpoint, 1)
}

// sameDeliverySettings checks that cfg's remote write exporter is the one
// docs/reliability.md recommends with a queue on disk, endpoint included.
func sameDeliverySettings(t *testing.T, cfg string) {
	t.Helper()
	var example struct {
		Exporters map[string]map[string]any `yaml:"exporters"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(cfg), &example))
	assert.Equal(t, recommendedRemoteWriteIn(t, "## Restarts during an outage"), example.Exporters["prometheus_remote_write"])
}

// recommendedRemoteWrite is the remote write exporter of docs/reliability.md's delivery
// settings.
func recommendedRemoteWrite(t *testing.T) map[string]any {
	t.Helper()
	return recommendedRemoteWriteIn(t, "## Delivery settings")
}

// recommendedRemoteWriteIn is the remote write exporter of the first YAML block of
// docs/reliability.md's section.
func recommendedRemoteWriteIn(t *testing.T, section string) map[string]any {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(repoRoot(), "docs", "reliability.md"))
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(doc), section)
	require.True(t, ok)
	_, block, ok = strings.Cut(block, "```yaml\n")
	require.True(t, ok)
	block, _, _ = strings.Cut(block, "```")
	var recommended struct {
		Exporters map[string]map[string]any `yaml:"exporters"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(block), &recommended))
	return recommended.Exporters["prometheus_remote_write"]
}

// The embedded default with its remote write overrides (modelplane:remote-write) merged over
// it, as the README says: the default's scrapes and local endpoint go on, and the same series reach
// Prometheus through remote write, with reliability.md's delivery settings.
func TestEmbeddedDefaultWithRemoteWrite(t *testing.T) {
	var file struct {
		Exporters map[string]map[string]any `yaml:"exporters"`
	}
	require.NoError(t, yaml.Unmarshal(defaultconfig.RemoteWriteYAML, &file))
	rw := file.Exporters["prometheus_remote_write"]
	assert.True(t, strings.HasPrefix(rw["endpoint"].(string), "${env:MODELPLANE_REMOTE_WRITE_ENDPOINT:?"), rw["endpoint"])
	delete(rw, "endpoint")
	recommended := recommendedRemoteWrite(t)
	delete(recommended, "endpoint")
	assert.Equal(t, recommended, rw, "reliability.md's delivery settings")

	prom := startPrometheus(t)
	t.Setenv("MODELPLANE_REMOTE_WRITE_ENDPOINT", "http://"+prom.addr+"/api/v1/write")
	d := startEmbeddedDefault(t, collectorBin, "--config", "modelplane:default", "--config", "modelplane:remote-write")
	// Each target's first scrape comes at its own offset in the interval: wait for all three
	// (CI once asked for the GPUs as the engines' series had come, and before theirs had).
	eventually(t, "both engines' queues and the dcgm-exporter page's two GPUs in Prometheus", func() bool {
		return len(prom.query(t, `modelplane_requests_waiting{cluster="laptop"}`)) == 2 &&
			len(prom.query(t, `modelplane_gpu_memory_used_bytes{cluster="laptop"}`)) == 2
	})
	assert.Len(t, requestsWaiting(t, d.endpoint), 2, "the local endpoint still serves")
	assert.Empty(t, prom.query(t, `{__name__=~".+", __name__!~"modelplane_.*"}`), "only modelplane_* leaves the host")
	// No otel_scope_name and otel_scope_version (the Prometheus receiver and this collector's
	// version): with them, every series changed its label set at each upgrade.
	assert.Empty(t, prom.query(t, `{otel_scope_name!=""}`))
	assert.Empty(t, prom.query(t, `{otel_scope_version!=""}`))
	assert.NotEmpty(t, prom.query(t, `{__name__=~"modelplane_.*"}`))
}

// A backend that wants a token, from a container with nothing mounted: the header is one more
// --config, through the yaml provider, the token read from the environment, as
// docs/deploy.md gives it.
func TestEmbeddedDefaultWithRemoteWriteToken(t *testing.T) {
	prom := startPrometheus(t)
	proxy := startTokenProxy(t, prom.addr, "secret-2")
	t.Setenv("MODELPLANE_REMOTE_WRITE_ENDPOINT", "http://"+proxy.addr+"/api/v1/write")
	t.Setenv("MODELPLANE_BACKEND_TOKEN", "secret-2")
	startEmbeddedDefault(t, collectorBin, "--config", "modelplane:default", "--config", "modelplane:remote-write",
		"--config", tokenHeader)
	eventually(t, "both engines' queues in Prometheus through the token check", func() bool {
		return len(prom.query(t, `modelplane_requests_waiting{cluster="laptop"}`)) == 2
	})
	assert.Positive(t, proxy.uses("secret-2"))
	assert.Zero(t, proxy.refused.Load(), "no write refused for its token")
}

// tokenHeader is docs/deploy.md's --config that gives remote write a bearer token.
const tokenHeader = `yaml:exporters::prometheus_remote_write::headers::Authorization: Bearer ${env:MODELPLANE_BACKEND_TOKEN:?the token your backend wants}`

// modelplane:remote-write without MODELPLANE_REMOTE_WRITE_ENDPOINT (unset, or set but empty) does
// not start, and says which variable to set and where it is read; the exporter's own error
// was "invalid endpoint", naming neither.
func TestEmbeddedDefaultWithRemoteWriteNeedsItsEndpoint(t *testing.T) {
	for _, env := range [][]string{{}, {"MODELPLANE_REMOTE_WRITE_ENDPOINT="}} {
		for _, out := range refusedWith(t, "remote-write", append(withoutEnv(os.Environ(), "MODELPLANE_REMOTE_WRITE_ENDPOINT"), env...)) {
			assert.Contains(t, out, "environment variable MODELPLANE_REMOTE_WRITE_ENDPOINT is not set: set it to your backend's remote write URL, such as https://mimir.example.com/api/v1/push (modelplane:remote-write, exporters::prometheus_remote_write::endpoint)", env)
			assert.NotContains(t, out, "invalid endpoint")
		}
	}
}

// refusedWith runs the collector, then validate, on the embedded default with the embedded
// overrides named (remote-write, otlp) in env, requires each to exit with an error, and
// returns what each printed.
func refusedWith(t *testing.T, overrides string, env []string) []string {
	t.Helper()
	var outs []string
	for _, command := range [][]string{{}, {"validate"}} {
		args := append(command, "--config", "modelplane:default", "--config", "modelplane:"+overrides)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, collectorBin, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		cancel()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%v: %s", args, out)
		outs = append(outs, string(out))
	}
	return outs
}

// modelplane:otlp adds OTLP/HTTP to the default, as modelplane:remote-write adds remote write:
// the same series reach an OTLP backend, here through a proxy that wants a token, given as
// docs/deploy.md does; the local endpoint still serves. Without MODELPLANE_OTLP_ENDPOINT it
// does not start, and names it; with host:port only, or the whole metrics URL, it names the
// field and the value.
func TestEmbeddedDefaultWithOTLP(t *testing.T) {
	sink := startOTLPSink(t)
	proxy := startTokenProxy(t, sink.addr, "secret-3")
	t.Setenv("MODELPLANE_OTLP_ENDPOINT", "http://"+proxy.addr)
	t.Setenv("MODELPLANE_BACKEND_TOKEN", "secret-3")
	d := startEmbeddedDefault(t, collectorBin, "--config", "modelplane:default", "--config", "modelplane:otlp",
		"--config", strings.ReplaceAll(tokenHeader, "prometheus_remote_write", "otlp_http"))
	eventually(t, "both engines' queues and the GPUs over OTLP", func() bool {
		l := sink.latest()
		return len(l["modelplane_requests_waiting"]) == 2 && len(l["modelplane_gpu_memory_used_bytes"]) == 2
	})
	for name := range sink.latest() {
		assert.True(t, strings.HasPrefix(name, "modelplane_"), "not modelplane_*: %s", name)
	}
	assert.Positive(t, proxy.uses("secret-3"))
	assert.Zero(t, proxy.refused.Load(), "no export refused for its token")
	assert.Len(t, requestsWaiting(t, d.endpoint), 2, "the local endpoint still serves")

	for _, c := range []struct{ value, want string }{
		{"", "environment variable MODELPLANE_OTLP_ENDPOINT is not set: set it to your backend's OTLP/HTTP URL, such as https://otlp.example.com (modelplane:otlp, exporters::otlp_http::endpoint)"},
		{"otlp.example.com:4318", `exporters::otlp_http::endpoint: "otlp.example.com:4318" has no scheme: write http:// or https:// before it`},
		// The metrics URL a vendor's page gives: the exporter appends /v1/metrics again.
		{"https://otlp.example.com/v1/metrics", `exporters::otlp_http::endpoint: "https://otlp.example.com/v1/metrics" ends in /v1/metrics, and this exporter appends /v1/metrics itself (it would post to https://otlp.example.com/v1/metrics/v1/metrics): write "https://otlp.example.com"`},
	} {
		env := append(withoutEnv(os.Environ(), "MODELPLANE_OTLP_ENDPOINT"), "MODELPLANE_OTLP_ENDPOINT="+c.value, "MODELPLANE_PROMETHEUS_ENDPOINT="+freeport.Addr(t))
		for _, out := range refusedWith(t, "otlp", env) {
			assert.Contains(t, out, c.want, c.value)
		}
	}
}

// Remote write and OTLP together: each embedded override sets the exporter list, so the later
// one's replaces the earlier one's whatever the order, and validate warns of the exporter left
// out. The warning gives the --config that lists every exporter; with it, both backends get
// the series.
func TestEmbeddedDefaultWithRemoteWriteAndOTLP(t *testing.T) {
	prom, sink := startPrometheus(t), startOTLPSink(t)
	t.Setenv("MODELPLANE_REMOTE_WRITE_ENDPOINT", "http://"+prom.addr+"/api/v1/write")
	t.Setenv("MODELPLANE_OTLP_ENDPOINT", "http://"+sink.addr)
	both := []string{"--config", "modelplane:default", "--config", "modelplane:remote-write", "--config", "modelplane:otlp"}
	out, err := exec.Command(collectorBin, append([]string{"validate"}, both...)...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	const warning = "warning: exporters::prometheus_remote_write: in no pipeline: "
	require.Contains(t, string(out), warning)
	_, suggested, ok := strings.Cut(string(out), "or one more --config names them all: --config '")
	require.True(t, ok, "%s", out)
	suggested, _, _ = strings.Cut(suggested, "'")
	assert.Equal(t, "yaml:service::pipelines::metrics::exporters: [prometheus, otlp_http, prometheus_remote_write]", suggested)

	out, err = exec.Command(collectorBin, append(append([]string{"validate"}, both...), "--config", suggested)...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Empty(t, string(out))
	d := startEmbeddedDefault(t, collectorBin, append(both, "--config", suggested)...)
	eventually(t, "both engines' queues in Prometheus and over OTLP", func() bool {
		return len(prom.query(t, `modelplane_requests_waiting{cluster="laptop"}`)) == 2 &&
			len(sink.latest()["modelplane_requests_waiting"]) == 2
	})
	assert.Len(t, requestsWaiting(t, d.endpoint), 2, "the local endpoint still serves")
}

// MODELPLANE_QUEUE_DIR puts the overrides' queues on disk (TestRestartDuringOutageEmbeddedRemoteWriteQueueDir):
// with both overrides, validate accepts the one directory they share; a relative one fails
// the start and validate, naming the variable, the value and the override.
func TestEmbeddedOverridesQueueDir(t *testing.T) {
	t.Setenv("MODELPLANE_REMOTE_WRITE_ENDPOINT", "http://127.0.0.1:9/api/v1/write")
	t.Setenv("MODELPLANE_OTLP_ENDPOINT", "http://127.0.0.1:9")
	t.Setenv(defaultconfig.QueueDirVariable, filepath.Join(t.TempDir(), "queue"))
	out, err := exec.Command(collectorBin, "validate", "--config", "modelplane:default", "--config", "modelplane:remote-write",
		"--config", "modelplane:otlp", "--config", "yaml:service::pipelines::metrics::exporters: [prometheus, otlp_http, prometheus_remote_write]").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Empty(t, string(out))

	env := append(withoutEnv(os.Environ(), defaultconfig.QueueDirVariable), defaultconfig.QueueDirVariable+"=queue")
	for _, out := range refusedWith(t, "remote-write", env) {
		assert.Contains(t, out, `modelplane:remote-write: MODELPLANE_QUEUE_DIR="queue": not an absolute path`)
	}
}

// An embedded overlay given without the default it adds to: the collector said only "no
// receiver configuration specified in config". Both the start and validate now say where the
// default goes.
func TestEmbeddedOverlayWithoutTheDefault(t *testing.T) {
	t.Setenv("MODELPLANE_REMOTE_WRITE_ENDPOINT", "http://127.0.0.1:9/api/v1/write")
	t.Setenv("MODELPLANE_OTLP_ENDPOINT", "http://127.0.0.1:9")
	for _, overlay := range []string{"remote-write", "otlp"} {
		for _, args := range [][]string{{"--config", "modelplane:" + overlay}, {"validate", "--config", "modelplane:" + overlay}} {
			cmd := exec.Command(collectorBin, args...)
			out, err := cmd.CombinedOutput()
			require.Error(t, err, "%v: %s", args, out)
			assert.Contains(t, string(out), "no --config configures", args)
			assert.Contains(t, string(out), "(--config modelplane:default --config modelplane:"+overlay+")", args)
		}
	}
}

// An endpoint without its scheme, host:port/path as a Prometheus user writes a target, stops
// the start and validate, naming the field and the value. The exporter took it (read as the
// scheme "prometheus"), validate passed, and every batch was dropped with "unsupported
// protocol scheme". So does one without the receiver's path, a Prometheus's address alone,
// where Prometheus answers 405 and the exporter dropped every batch.
func TestRemoteWriteEndpointWithoutScheme(t *testing.T) {
	for value, want := range map[string]string{
		"prometheus:9090/api/v1/write": `exporters::prometheus_remote_write::endpoint: "prometheus:9090/api/v1/write" has no scheme: write http:// or https:// before it`,
		"http://prometheus:9090":       `exporters::prometheus_remote_write::endpoint: "http://prometheus:9090" has no path: remote write goes to the receiver's, such as http://prometheus:9090/api/v1/write (Prometheus, VictoriaMetrics) or /api/v1/push (Mimir)`,
	} {
		env := append(os.Environ(), "MODELPLANE_REMOTE_WRITE_ENDPOINT="+value, "MODELPLANE_PROMETHEUS_ENDPOINT="+freeport.Addr(t))
		for _, out := range refusedWith(t, "remote-write", env) {
			assert.Contains(t, out, want)
		}
	}
}

// A remote write exporter of one's own, written as its README's first example is (an
// endpoint and nothing else): the mapping processor keeps each series' identity on its
// resource, this exporter makes resource attributes labels only where told, and two vLLM
// replicas' series arrived in Prometheus as one, with no cluster, node, replica or engine
// label, while the collector said nothing (tried by hand, 2026-12-01). Now the start and
// validate stop, naming the exporter, the labels and the setting; with it, it validates.
func TestRemoteWriteWithoutIdentityLabels(t *testing.T) {
	own := []string{"--config", "modelplane:default",
		"--config", "yaml:exporters::prometheus_remote_write::endpoint: http://127.0.0.1:9/api/v1/write",
		"--config", "yaml:service::pipelines::metrics::exporters: [prometheus, prometheus_remote_write]"}
	env := append(os.Environ(), "MODELPLANE_PROMETHEUS_ENDPOINT="+freeport.Addr(t))
	for _, command := range [][]string{{}, {"validate"}} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, collectorBin, append(command, own...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		cancel()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "%v: %s", command, out)
		assert.Contains(t, string(out), `exporters::prometheus_remote_write: would send the series of processors::modelplane_mapping without the identity labels cluster, namespace, deployment, replica, engine, role, node`)
		assert.Contains(t, string(out), `Set exporters::prometheus_remote_write::resource_constant_labels: {included: ["*"]}`)
	}
	cmd := exec.Command(collectorBin, append(append([]string{"validate"}, own...), "--config", `yaml:exporters::prometheus_remote_write::resource_constant_labels: {included: ["*"]}`)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// The overrides before the default (--config modelplane:remote-write --config
// modelplane:default) end with the default's exporter list: the remote write exporter is
// valid and gets nothing. The collector said nothing; now validate and the collector's log
// name it, and the order that works.
func TestOverridesBeforeTheDefaultAreWarned(t *testing.T) {
	for _, c := range []struct {
		order []string
		warn  bool
	}{
		{[]string{"modelplane:remote-write", "modelplane:default"}, true},
		{[]string{"modelplane:default", "modelplane:remote-write"}, false},
	} {
		cmd := exec.Command(collectorBin, "validate", "--config", c.order[0], "--config", c.order[1])
		cmd.Env = append(os.Environ(), "MODELPLANE_REMOTE_WRITE_ENDPOINT=http://127.0.0.1:9090/api/v1/write")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%v: %s", c.order, out)
		const warning = "warning: exporters::prometheus_remote_write: in no pipeline: nothing is sent to it. A list in a later --config replaces the earlier one's, so overrides go last (--config modelplane:default --config modelplane:remote-write)"
		if c.warn {
			assert.Contains(t, string(out), warning, c.order)
		} else {
			assert.Empty(t, string(out), c.order)
		}
	}
}

// withoutEnv returns env without the variable name.
func withoutEnv(env []string, name string) []string {
	var kept []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			kept = append(kept, kv)
		}
	}
	return kept
}
