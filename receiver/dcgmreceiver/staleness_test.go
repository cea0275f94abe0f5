// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

//go:build cgo

package dcgmreceiver

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/fakekubelet"
	"github.com/modelplaneai/otelcol-modelplane/receiver/dcgmreceiver/internal/metadata"
)

// A series the receiver stops emitting ends with a staleness marker in the next collection,
// as the Prometheus receiver ends a series that left dcgm-exporter's page: here the pod on
// GPU 0 is replaced by another and GPU 2 is lost. Every series of the old pod and of the lost
// GPU, and no other, gets a marker; the new pod's series start in the same collection.
func TestEndedSeriesGetStaleMarkers(t *testing.T) {
	a, b, lost := h100State(), l4State(), h100State()
	lost.UUID, lost.Minor = "GPU-lost", 2
	node := newFakeNode(a, b, lost)
	f := withNVML(node)
	kubelet, err := fakekubelet.Start(t.TempDir(), pod("ml-training", "llama-finetune-0", "trainer", "nvidia.com/gpu", a.UUID))
	require.NoError(t, err)
	t.Cleanup(kubelet.Stop)
	cfg := testConfig(t)
	cfg.PodResourcesSocket = kubelet.Socket
	cfg.CollectionInterval = 50 * time.Millisecond
	sink := new(consumertest.MetricsSink)
	r, err := f.CreateMetrics(context.Background(), receivertest.NewNopSettings(metadata.Type), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, r.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, r.Shutdown(context.Background())) })

	// Two collections, so that the profiling fields (read between two) are there too.
	require.Eventually(t, func() bool { return len(sink.AllMetrics()) >= 2 }, 5*time.Second, 10*time.Millisecond)
	kubelet.SetPods(pod("inference", "vllm-0", "vllm", "nvidia.com/gpu", a.UUID))
	node.set(2, func(s *gpuState) { s.Lost = true })

	var before, after []seriesPoint
	require.Eventually(t, func() bool {
		batches := sink.AllMetrics()
		for i := 1; i < len(batches); i++ {
			if ps := seriesPoints(batches[i]); slices.ContainsFunc(ps, func(p seriesPoint) bool { return p.stale }) {
				before, after = seriesPoints(batches[i-1]), ps
				return true
			}
		}
		return false
	}, 5*time.Second, 10*time.Millisecond, "a collection with staleness markers")

	var wantEnded, ended, started []string
	for _, p := range before {
		if strings.Contains(p.key, "pod=llama-finetune-0") || strings.Contains(p.key, "gpu=2") {
			wantEnded = append(wantEnded, p.key)
		}
	}
	for _, p := range after {
		switch {
		case p.stale:
			ended = append(ended, p.key)
		case strings.Contains(p.key, "pod=vllm-0"):
			started = append(started, p.key)
		}
	}
	sort.Strings(wantEnded)
	sort.Strings(ended)
	require.NotEmpty(t, wantEnded)
	assert.Equal(t, wantEnded, ended, "exactly the old pod's and the lost GPU's series end")
	assert.Len(t, started, len(wantEnded)-countGPU(wantEnded, "2"), "the new pod's series start as the old pod's end")
	assert.Zero(t, countGPU(ended, "1"), "GPU 1 is untouched")

	// A name appears once per batch: markers join the metric of their field.
	names := map[string]int{}
	ms := sink.AllMetrics()[len(sink.AllMetrics())-1].ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics()
	for i := 0; i < ms.Len(); i++ {
		names[ms.At(i).Name()]++
	}
	for n, c := range names {
		assert.Equal(t, 1, c, "metric %s appears %d times", n, c)
	}
}

type seriesPoint struct {
	key   string // name{sorted attributes}
	stale bool
}

func seriesPoints(md pmetric.Metrics) []seriesPoint {
	var out []seriesPoint
	for _, p := range points(md) {
		attrs := make([]string, 0, len(p.attrs))
		for _, k := range slices.Sorted(maps.Keys(p.attrs)) {
			attrs = append(attrs, fmt.Sprintf("%s=%v", k, p.attrs[k]))
		}
		out = append(out, seriesPoint{key: p.name + "{" + strings.Join(attrs, ",") + "}", stale: p.stale})
	}
	return out
}

func countGPU(keys []string, gpu string) int {
	n := 0
	for _, k := range keys {
		if strings.Contains(k, ",gpu="+gpu+",") {
			n++
		}
	}
	return n
}
