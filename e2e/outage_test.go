package e2e

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/freeport"
)

// outage is how long the backend is down; E2E_OUTAGE shortens it for a quick local run.
func outage() time.Duration {
	if s := os.Getenv("E2E_OUTAGE"); s != "" {
		if d, err := time.ParseDuration(s); err == nil {
			return d
		}
	}
	return 2 * time.Minute
}

// With the backend down for two minutes and then back, Prometheus ends up with one sample
// per scrape: nothing scraped during the outage is lost.
func TestBackendOutageLosesNothing(t *testing.T) {
	prom := startPrometheus(t)
	vllm := startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0"))
	startCollector(t, collectorSetup{Engines: []*engine{vllm}, Prometheus: prom.addr, MappingDir: t.TempDir(), Health: freeport.Addr(t)})
	eventually(t, "first samples", func() bool {
		return len(prom.query(t, `modelplane_requests_preempted_total{replica="llama-0"}`)) == 1
	})

	prom.stop(t)
	before := vllm.e.Rounds()
	time.Sleep(outage())
	during := vllm.e.Rounds() - before
	prom.start(t)
	t.Logf("backend down for %v; %d scrapes meanwhile", outage(), during)
	require.Positive(t, during)

	// Stop scraping and wait for the queue to drain into the restarted backend.
	require.NoError(t, vllm.e.Stop())
	rounds := vllm.e.Rounds()
	q := `count_over_time(modelplane_requests_preempted_total{replica="llama-0"}[30m])`
	deadline := time.Now().Add(60 * time.Second)
	var got float64
	for time.Now().Before(deadline) {
		if s := prom.query(t, q); len(s) == 1 {
			got = s[0].Value
			if got == float64(rounds) {
				break
			}
		}
		time.Sleep(time.Second)
	}
	assert.Equal(t, float64(rounds), got, "samples in Prometheus after recovery vs scrapes served ("+strconv.Itoa(during)+" during the outage)")
}
