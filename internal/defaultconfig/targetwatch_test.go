// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// exporterHost is a host whose targets answer from when the test says (its vLLM from the
// start, its dcgm-exporter once answering is set, its SGLang once sglang is), and a
// collector that counts the reloads it is asked for.
type exporterHost struct {
	answering atomic.Bool
	sglang    atomic.Bool
	reloads   atomic.Int32
}

func (h *exporterHost) probe(addr string) finding {
	switch {
	case addr == "127.0.0.1:8000",
		addr == "127.0.0.1:30000" && h.sglang.Load(),
		addr == "127.0.0.1:9400" && h.answering.Load():
		return ownPage(addr)
	}
	return finding{why: "nothing listens there"}
}

func (h *exporterHost) reload() { h.reloads.Add(1) }

func retrieveOn(t *testing.T, h *exporterHost, reload func()) (*confmap.Retrieved, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zapcore.InfoLevel)
	r, err := provider{logger: zap.New(core)}.retrieveEmbedded(lookupOf(map[string]string{"MODELPLANE_SCRAPE_INTERVAL": "10ms"}), h.probe, reload)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, r.Close(context.Background())) })
	return r, logs
}

func jobsOf(t *testing.T, r *confmap.Retrieved) []string {
	raw, err := r.AsRaw()
	require.NoError(t, err)
	return jobNames(confmap.NewFromStringMap(raw.(map[string]any)))
}

// A dcgm-exporter that starts after the collector (at boot, or installed later) is taken up:
// the default left it out, and the collector is asked to reload once, when it answers, every
// scrape interval looking. The reload loads the default again, which then scrapes it.
func TestLateExporterIsTakenUp(t *testing.T) {
	h := new(exporterHost)
	r, logs := retrieveOn(t, h, h.reload)
	assert.Equal(t, []string{"vllm"}, jobsOf(t, r))
	assert.Equal(t, 2, logs.FilterMessageSnippet("One that starts later is scraped from then on").Len(), "SGLang's, the exporter's")
	assert.Equal(t, 1, logs.FilterMessageSnippet("No dcgm-exporter answers on this host: the dcgm receiver reads the GPUs itself").Len())

	time.Sleep(50 * time.Millisecond) // five intervals
	assert.Zero(t, h.reloads.Load(), "nothing answers yet")

	h.answering.Store(true)
	require.Eventually(t, func() bool { return h.reloads.Load() == 1 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, 1, logs.FilterMessageSnippet("A dcgm-exporter answers now: reloading").Len())
	time.Sleep(50 * time.Millisecond)
	assert.Equal(t, int32(1), h.reloads.Load(), "asked once")

	// The reload loads the default again: now with the exporter's job; SGLang, still absent,
	// is watched again.
	again, logs := retrieveOn(t, h, h.reload)
	assert.Equal(t, []string{"vllm", "dcgm-exporter"}, jobsOf(t, again))
	assert.Equal(t, 1, logs.FilterMessageSnippet("No SGLang answers on this host: the default scrapes none").Len())
	assert.Equal(t, 1, logs.Len())
}

// An engine that starts after the collector (at boot, or deployed later) is
// taken up the same way, with its variable unset. Before, the default scraped its address from
// the start, failing every scrape of a host that runs the other engine, or none.
func TestLateEngineIsTakenUp(t *testing.T) {
	h := new(exporterHost)
	h.answering.Store(true)
	r, logs := retrieveOn(t, h, h.reload)
	assert.Equal(t, []string{"vllm", "dcgm-exporter"}, jobsOf(t, r))
	started := logs.FilterMessageSnippet("No SGLang answers on this host").All()
	require.Len(t, started, 1)
	assert.Contains(t, started[0].Message, "Set MODELPLANE_SGLANG_TARGET to scrape an address whether it answers or not, or to none to stop looking")
	assert.Equal(t, "127.0.0.1:30000", started[0].ContextMap()["address"])

	time.Sleep(50 * time.Millisecond)
	assert.Zero(t, h.reloads.Load(), "nothing answers yet")
	h.sglang.Store(true)
	require.Eventually(t, func() bool { return h.reloads.Load() == 1 }, 5*time.Second, time.Millisecond)
	taken := logs.FilterMessageSnippet("An SGLang answers now: reloading the configuration to scrape it").All()
	require.Len(t, taken, 1)
	assert.Equal(t, "127.0.0.1:30000", taken[0].ContextMap()["address"])

	again, logs := retrieveOn(t, h, h.reload)
	assert.Equal(t, []string{"vllm", "sglang", "dcgm-exporter"}, jobsOf(t, again))
	assert.Zero(t, logs.Len(), "nothing left out, nothing watched")
}

// The collector closes what it retrieved when it loads its configuration again (a reload for
// another reason) or stops: the watch ends with it.
func TestLateExporterWatchEndsOnClose(t *testing.T) {
	h := new(exporterHost)
	r, _ := retrieveOn(t, h, h.reload)
	require.NoError(t, r.Close(context.Background()))
	h.answering.Store(true)
	time.Sleep(50 * time.Millisecond)
	assert.Zero(t, h.reloads.Load())
}

// Without a watcher (a resolver that does not watch), the default says how to take one up.
func TestLateExporterWithoutReload(t *testing.T) {
	h := new(exporterHost)
	h.sglang.Store(true)
	r, logs := retrieveOn(t, h, nil)
	assert.Equal(t, []string{"vllm", "sglang"}, jobsOf(t, r))
	assert.Equal(t, 1, logs.FilterMessageSnippet("set "+dcgmExporterVariable+" or reload the collector").Len())
}

// A vLLM that listens but does not answer yet (loading its model) is left out, the log saying
// what was found, and taken up once it serves, as a late one is. Here what comes to serve at
// vLLM's address is an SGLang (--port 8000): the reload has the sglang job scrape it there.
func TestLoadingEngineIsTakenUp(t *testing.T) {
	var serving atomic.Bool
	probe := func(addr string) finding {
		if addr != "127.0.0.1:8000" {
			return finding{why: "nothing listens there"}
		}
		if serving.Load() {
			return finding{serves: &probedTargets[1]}
		}
		return finding{why: "it accepts connections but did not answer GET /metrics within 3s"}
	}
	h := new(exporterHost)
	env := lookupOf(map[string]string{"MODELPLANE_SCRAPE_INTERVAL": "10ms", dcgmExporterVariable: none})
	core, logs := observer.New(zapcore.InfoLevel)
	r, err := provider{logger: zap.New(core)}.retrieveEmbedded(env, probe, h.reload)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, r.Close(context.Background())) })
	assert.Empty(t, jobsOf(t, r))
	left := logs.FilterMessageSnippet("No vLLM answers on this host").All()
	require.Len(t, left, 1)
	assert.Equal(t, "it accepts connections but did not answer GET /metrics within 3s", left[0].ContextMap()["found"])

	time.Sleep(50 * time.Millisecond)
	assert.Zero(t, h.reloads.Load(), "nothing serves yet")
	serving.Store(true)
	require.Eventually(t, func() bool { return h.reloads.Load() == 1 }, 5*time.Second, time.Millisecond)
	taken := logs.FilterMessageSnippet("An SGLang answers now: reloading the configuration to scrape it").All()
	require.Len(t, taken, 1)
	assert.Equal(t, "127.0.0.1:8000", taken[0].ContextMap()["address"])

	core, logs = observer.New(zapcore.InfoLevel)
	again, err := provider{logger: zap.New(core)}.retrieveEmbedded(env, probe, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"sglang"}, jobsOf(t, again))
	require.Equal(t, 1, logs.Len(), "the move, and no SGLang looked for at its own address")
	assert.Equal(t, "An SGLang answers at vLLM's default address: the sglang job scrapes it there, and there is no vllm job. Set MODELPLANE_VLLM_TARGET to scrape a vLLM elsewhere",
		logs.All()[0].Message)
	assert.Equal(t, "127.0.0.1:8000", logs.All()[0].ContextMap()["address"])
}
