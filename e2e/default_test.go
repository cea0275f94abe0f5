package e2e

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// checkEmbeddedDefault runs command with no --config against local engines and checks
// what it serves and logs.
func checkEmbeddedDefault(t *testing.T, command string, args ...string) {
	vllm := startEngine(t, "vllm", "vllm.prom", nil)
	sglang := startEngine(t, "sglang", "sglang.prom", nil)
	dcgm := startEngine(t, "dcgm-exporter", "dcgm-exporter.prom", nil)
	endpoint := freePort(t)
	env := append(os.Environ(),
		"MODELPLANE_VLLM_TARGET="+vllm.Addr, "MODELPLANE_SGLANG_TARGET="+sglang.Addr,
		"MODELPLANE_DCGM_EXPORTER_TARGET="+dcgm.Addr, "MODELPLANE_PROMETHEUS_ENDPOINT="+endpoint,
		"MODELPLANE_SCRAPE_INTERVAL=1s", "MODELPLANE_CLUSTER=laptop")
	p := startWithEnv(t, env, command, args...)
	var names map[string]bool
	eventually(t, "modelplane_ series on the embedded default's endpoint", func() bool {
		names = map[string]bool{}
		resp, err := http.Get("http://" + endpoint + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if line == "" || line[0] == '#' {
				continue
			}
			names[strings.FieldsFunc(line, func(r rune) bool { return r == '{' || r == ' ' })[0]] = true
		}
		return names["modelplane_gpu_memory_used_bytes"] && names["modelplane_requests_waiting"] && names["modelplane_kv_cache_utilization_ratio"]
	})
	for n := range names {
		assert.True(t, strings.HasPrefix(n, "modelplane_"), "not modelplane_*: %s", n)
	}
	assert.Contains(t, p.out.String(), "NVML is not available", "one clear line where there is no GPU")
	assert.Equal(t, 1, strings.Count(p.out.String(), "NVML is not available"))
	// vLLM and SGLang feed the same targets, and tokens in and out share one: each target has
	// one description, so the Prometheus exporter logs no conflict on every scrape.
	assert.NotContains(t, p.out.String(), "Instrument description conflict")
	assert.Contains(t, p.out.String(), "Scrape filter on", "the embedded default filters at scrape time")
}
