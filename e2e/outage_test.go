// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
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
// per scrape: nothing scraped during the outage is lost. The log says so as it happens: one
// line when the writes find no one listening (contrib's exporter retried them without a
// word until the batch's timeout) and one when the backend accepts them again.
func TestBackendOutageLosesNothing(t *testing.T) {
	prom := startPrometheus(t)
	vllm := startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0"))
	col := startCollector(t, collectorSetup{Engines: []*engine{vllm}, Prometheus: prom.addr, MappingDir: t.TempDir(), Health: freeport.Addr(t)})
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
	got := samplesOnceDrained(t, prom, rounds)
	assert.Equal(t, float64(rounds), got, "samples in Prometheus after recovery vs scrapes served ("+strconv.Itoa(during)+" during the outage)")

	log := col.out.String()
	// A line per cause, not per retry (about 25 retries here): a kept-alive connection may end
	// with a reset before new ones are refused.
	lines := strings.Count(log, "Export endpoint does not answer")
	assert.GreaterOrEqual(t, lines, 1, "no line for the refused writes:\n%s", log)
	assert.LessOrEqual(t, lines, 2, "more lines than causes:\n%s", log)
	assert.Contains(t, log, "connection refused")
	assert.Equal(t, 1, strings.Count(log, "Export endpoint accepts data again"), "the end of the outage, one line")
}

// samplesOnceDrained waits up to a minute for Prometheus to hold want samples of replica
// llama-0's preemption counter, one per scrape, as the exporter's queue drains into it, and
// returns how many it holds.
func samplesOnceDrained(t *testing.T, prom *prometheus, want int) float64 {
	t.Helper()
	q := `count_over_time(modelplane_requests_preempted_total{replica="llama-0"}[30m])`
	deadline := time.Now().Add(60 * time.Second)
	var got float64
	for time.Now().Before(deadline) {
		if s := prom.query(t, q); len(s) == 1 {
			if got = s[0].Value; got == float64(want) {
				break
			}
		}
		time.Sleep(time.Second)
	}
	return got
}

// rateLimiter sits in front of Prometheus and, while limiting, refuses every write with 429
// Too Many Requests, as Mimir does for a tenant over its ingestion rate.
type rateLimiter struct {
	addr     string
	limiting atomic.Bool
	refused  atomic.Int64
}

func startRateLimiter(t *testing.T, upstream string) *rateLimiter {
	t.Helper()
	l := &rateLimiter{}
	l.addr = startProxy(t, upstream, func(w http.ResponseWriter, _ *http.Request) bool {
		if !l.limiting.Load() {
			return false
		}
		l.refused.Add(1)
		w.Header().Set("Retry-After", "1")
		http.Error(w, "the request has been rejected because the tenant exceeded the ingestion rate limit", http.StatusTooManyRequests)
		return true
	})
	return l
}

// A backend that answers 429 for a while and then accepts writes again ends up with one
// sample per scrape: the refused batches are retried. The remote-write exporter takes a 429
// as a permanent error and drops the batch unless its RetryOn429 gate is on, which
// otelcol-modelplane turns on by default (cmd/otelcol-modelplane/modelplane.go).
func TestRateLimitedBackendLosesNothing(t *testing.T) {
	prom := startPrometheus(t)
	limiter := startRateLimiter(t, prom.addr)
	vllm := startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0"))
	col := startCollector(t, collectorSetup{Engines: []*engine{vllm}, Prometheus: limiter.addr, MappingDir: t.TempDir(), Health: freeport.Addr(t)})
	eventually(t, "first samples", func() bool {
		return len(prom.query(t, `modelplane_requests_preempted_total{replica="llama-0"}`)) == 1
	})

	limiter.limiting.Store(true)
	before := vllm.e.Rounds()
	time.Sleep(15 * time.Second)
	during := vllm.e.Rounds() - before
	limiter.limiting.Store(false)
	t.Logf("backend answered 429 to %d writes over 15 s; %d scrapes meanwhile", limiter.refused.Load(), during)
	require.Positive(t, limiter.refused.Load())

	require.NoError(t, vllm.e.Stop())
	rounds := vllm.e.Rounds()
	got := samplesOnceDrained(t, prom, rounds)
	assert.Equal(t, float64(rounds), got, "samples in Prometheus vs scrapes served (%d while the backend answered 429)", during)
	log := col.out.String()
	assert.Zero(t, strings.Count(log, "Dropping data"), "batches dropped")
	// Contrib's exporter logged an error at every retry of a 429; ours once, and the end.
	assert.Equal(t, 1, strings.Count(log, "failed to send WriteRequest to remote endpoint"), "refused writes, one line:\n%s", log)
	assert.Equal(t, 1, strings.Count(log, "Export endpoint accepts data again"), "the end of the refusals, one line")
	// The recommended delivery settings start without the exporter's warning about
	// num_consumers changing meaning in a future release.
	assert.Zero(t, strings.Count(log, "num_consumers"), "a warning about num_consumers")
}

// A reload during a backend outage, here the one the scrape filter asks for when a new
// mapping reads a metric it dropped, restarts only the receivers: the remote-write exporter
// keeps its queue and the scrapes go on, so nothing scraped during the outage is lost, the new
// series included. Before (a full reload), the collector first shut the exporter down, which
// waited for its queue to reach the backend: no scrape happened until the backend was back
// (or, longer away, for the request timeout of 10 minutes), and what was queued was at risk.
func TestReloadDuringOutageLosesNothing(t *testing.T) {
	prom := startPrometheus(t)
	vllm := startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0"))
	dir := t.TempDir()
	col := startCollector(t, collectorSetup{Engines: []*engine{vllm}, Prometheus: prom.addr, MappingDir: dir,
		Health: freeport.Addr(t), ScrapeFilter: true})
	eventually(t, "first samples", func() bool {
		return len(prom.query(t, `modelplane_requests_preempted_total{replica="llama-0"}`)) == 1
	})

	prom.stop(t)
	time.Sleep(5 * time.Second) // writes of the scrapes since are retried, in flight
	addNewSourceMapping(t, dir)
	eventually(t, "the reload", func() bool {
		return strings.Contains(col.out.String(), "Config updated, performing partial receiver reload")
	})
	before := vllm.e.Rounds()
	time.Sleep(15 * time.Second)
	during := vllm.e.Rounds() - before
	t.Logf("%d scrapes in the 15 s after the reload, the backend down", during)
	assert.GreaterOrEqual(t, during, 5, "scraping goes on (every 1 s)")
	prom.start(t)

	require.NoError(t, vllm.e.Stop())
	rounds := vllm.e.Rounds()
	assert.Equal(t, float64(rounds), samplesOnceDrained(t, prom, rounds), "samples in Prometheus after recovery vs scrapes served")
	// Over time: the stopped engine's series have ended.
	newSeries := prom.query(t, `count_over_time(modelplane_e2e_open_fds{replica="llama-0"}[30m])`)
	require.Len(t, newSeries, 1, "the newly mapped series")
	assert.Positive(t, newSeries[0].Value)
	assert.Contains(t, col.out.String(), "Config updated, performing partial receiver reload")
	assert.NotContains(t, col.out.String(), "Config updated, restart service", "only the receivers restarted")
}
