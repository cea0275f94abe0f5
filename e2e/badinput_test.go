package e2e

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/freeport"
)

// An engine serving garbage, an enormous label, duplicate series or NaN fails at most its
// own scrape; the other targets keep flowing.
func TestBadInputFailsOnlyItsTarget(t *testing.T) {
	dir := t.TempDir()
	page := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	huge := strings.Repeat("x", 200_000)
	bad := map[string]string{
		"garbage":   page("garbage.prom", "<html>this is not an exposition {{{\n\x00\x01 ]]]\n"),
		"huge":      page("huge.prom", "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\""+huge+"\"} 1\n"),
		"duplicate": page("dup.prom", "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"a\"} 1\nvllm:num_requests_waiting{model_name=\"a\"} 2\n"),
		"nan":       page("nan.prom", "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"nan\"} NaN\n"),
	}
	prom := startPrometheus(t)
	good := startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0"))
	engines := []*engine{good}
	for name, p := range bad {
		engines = append(engines, startEngine(t, "bad", p, map[string]string{"deployment": name, "replica": name + "-0", "engine": "vllm"}))
	}
	col := startCollector(t, collectorSetup{Engines: engines, Prometheus: prom.addr, MappingDir: t.TempDir(), Health: freeport.Addr(t)})
	eventually(t, "the good engine's series", func() bool {
		return len(prom.query(t, `modelplane_requests_waiting{replica="llama-0"}`)) == 1
	})
	time.Sleep(5 * time.Second)
	s := prom.query(t, `count_over_time(modelplane_requests_waiting{replica="llama-0"}[4s])`)
	require.Len(t, s, 1)
	assert.GreaterOrEqual(t, s[0].Value, 2.0, "the good target keeps flowing")

	nan := prom.query(t, `modelplane_requests_waiting{replica="nan-0"}`)
	require.Len(t, nan, 1, "a NaN gauge is a value like any other")
	assert.True(t, math.IsNaN(nan[0].Value))
	assert.Empty(t, prom.query(t, `modelplane_requests_waiting{replica="garbage-0"}`))
	// The collector keeps running and says which target failed.
	assert.Nil(t, col.cmd.ProcessState)
	t.Logf("huge label series: %d; duplicate-series target: %d series",
		len(prom.query(t, `modelplane_requests_waiting{replica="huge-0"}`)), len(prom.query(t, `modelplane_requests_waiting{replica="duplicate-0"}`)))
}
