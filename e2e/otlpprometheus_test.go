// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// prometheus3Bin is the Prometheus 3 binary `make test` builds (.cache/bin/prometheus-VERSION).
func prometheus3Bin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("PROMETHEUS3_BIN")
	if bin == "" {
		t.Fatal("PROMETHEUS3_BIN is not set: `make test` builds Prometheus 3 into .cache/bin and sets it")
	}
	return bin
}

// otlpOutage runs the embedded default with the OTLP override (and extra --configs) into
// Prometheus 3's OTLP receiver, stops Prometheus for outage, starts it again, and returns
// the scrapes served and the samples of one series Prometheus holds.
func otlpOutage(t *testing.T, outage time.Duration, extra ...string) (rounds, got int, log string) {
	t.Helper()
	prom := startPrometheus3(t)
	vllm := startEngine(t, "vllm", "vllm.prom", nil)
	env := oneEngineEnv(t, vllm.Addr, "MODELPLANE_OTLP_ENDPOINT=http://"+prom.addr+"/api/v1/otlp")
	col := startWithEnv(t, env, collectorBin, append([]string{"--config", "modelplane:default", "--config", "modelplane:otlp"}, extra...)...)
	const series = `modelplane_requests_preempted_total`
	eventually(t, "first samples", func() bool { return len(prom.query(t, series)) == 1 })
	prom.stop(t)
	time.Sleep(outage)
	prom.start(t)
	time.Sleep(20 * time.Second)
	require.NoError(t, vllm.e.Stop())
	rounds = vllm.e.Rounds()
	time.Sleep(10 * time.Second)
	if s := prom.query(t, "count_over_time("+series+"[30m])"); len(s) == 1 {
		got = int(s[0].Value)
	}
	return rounds, got, col.out.String()
}

// An OTLP backend that refuses a point older than the newest of its series (Prometheus 3's
// OTLP receiver here, Mimir's alike, without an out-of-order window), away for 30 s: with the
// collector's 10 consumers, the queue sent the backlog side by side when it came back, and
// the backend refused, for good (400), whichever batch of a series arrived after a later
// one: 9 of 52 samples lost on 2026-12-03. This distribution's OTLP exporters send with one
// consumer unless num_consumers says otherwise, and lose nothing.
func TestOTLPOutageLosesNothing(t *testing.T) {
	t.Run("one consumer, the default", func(t *testing.T) {
		rounds, got, _ := otlpOutage(t, 30*time.Second)
		t.Logf("scrapes %d, in Prometheus %d: lost %d", rounds, got, rounds-got)
		assert.Equal(t, rounds, got, "samples in Prometheus vs scrapes served")
	})
	t.Run("ten consumers, the collector's default", func(t *testing.T) {
		rounds, got, log := otlpOutage(t, 30*time.Second, "--config", "yaml:exporters::otlp_http::sending_queue::num_consumers: 10")
		t.Logf("scrapes %d, in Prometheus %d: lost %d", rounds, got, rounds-got)
		if got < rounds {
			// What is lost is what the backend refused: batches sent out of order.
			assert.Contains(t, log, "responded with HTTP Status Code 400")
		}
	})
}

// Prometheus' OTLP receiver (Mimir's alike) keeps a resource's attributes in target_info and
// puts on its series only those it is told to promote. The identity this distribution
// lifts to the resource (replica, engine, node, ...) is then on no series unless promoted:
// two vLLMs on one host gave one series, the second's points written over the first's. With
// the identity keys promoted, as docs/deploy.md says to configure such a backend, each
// replica has its own.
func TestOTLPIntoPrometheusNeedsTheIdentityPromoted(t *testing.T) {
	identity := []string{"cluster", "namespace", "deployment", "replica", "engine", "role", "node"}
	for _, c := range []struct {
		name    string
		promote []string
		want    int
	}{
		{"as Prometheus comes", nil, 1},
		{"identity promoted", identity, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			prom := startPrometheus3(t, c.promote...)
			first, second := startEngine(t, "vllm", "vllm.prom", nil), startBusierVLLM(t)
			env := oneEngineEnv(t, first.Addr+","+second.Addr, "MODELPLANE_CLUSTER=laptop",
				"MODELPLANE_OTLP_ENDPOINT=http://"+prom.addr+"/api/v1/otlp")
			startWithEnv(t, env, collectorBin, "--config", "modelplane:default", "--config", "modelplane:otlp")
			eventually(t, "the engines' queues", func() bool { return len(prom.query(t, `modelplane_requests_waiting`)) > 0 })
			time.Sleep(3 * time.Second) // three scrapes of each engine
			got := prom.query(t, `modelplane_requests_waiting`)
			require.Len(t, got, c.want, "%v", got)
			if c.want == 2 {
				for _, s := range got {
					assert.Equal(t, "laptop", s.Labels["cluster"], s.Labels)
					assert.Equal(t, "vllm", s.Labels["engine"], s.Labels)
					assert.Regexp(t, `^vllm-[0-9]+$`, s.Labels["replica"], s.Labels)
				}
				assert.NotEqual(t, got[0].Labels["replica"], got[1].Labels["replica"])
			} else {
				assert.NotContains(t, got[0].Labels, "replica", "no identity on the series")
			}
		})
	}
}
