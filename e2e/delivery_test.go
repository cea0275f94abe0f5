// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"compress/gzip"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/points"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
)

// otlpSink is an OTLP/HTTP metrics receiver on loopback that keeps what it is sent.
type otlpSink struct {
	addr string
	down atomic.Bool // answer 503, as a backend in an outage
	mu   sync.Mutex
	got  []pmetric.Metrics
}

func startOTLPSink(t *testing.T) *otlpSink {
	s := &otlpSink{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s.addr = ln.Addr().String()
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.down.Load() {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		// gzip is what the OTLP/HTTP exporter sends unless told otherwise, as a real backend takes.
		var reader io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			reader = zr
		}
		body, err := io.ReadAll(reader)
		if err != nil || r.URL.Path != "/v1/metrics" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		req := pmetricotlp.NewExportRequest()
		if err := req.UnmarshalProto(body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.got = append(s.got, req.Metrics())
		s.mu.Unlock()
		out, _ := pmetricotlp.NewExportResponse().MarshalProto()
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// latest returns, per metric name and resource+point attributes, the last value received.
func (s *otlpSink) latest() map[string]map[string]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]map[string]float64{}
	for _, md := range s.got {
		// A histogram's name is listed, without values.
		points.Walk(md, func(_ pcommon.Map, m pmetric.Metric, _ pcommon.Map) {
			if out[m.Name()] == nil {
				out[m.Name()] = map[string]float64{}
			}
		})
		points.WalkNumbers(md, func(res pcommon.Map, m pmetric.Metric, dp pmetric.NumberDataPoint) {
			out[m.Name()][attrsKey(res)+attrsKey(dp.Attributes())] = points.Value(dp)
		})
	}
	return out
}

// timestamps counts the distinct sample timestamps received for metric name on a resource
// whose attributes include replica: one per scrape, however often a batch was resent.
func (s *otlpSink) timestamps(name, replica string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[pcommon.Timestamp]bool{}
	for _, md := range s.got {
		for i := 0; i < md.ResourceMetrics().Len(); i++ {
			rm := md.ResourceMetrics().At(i)
			if v, ok := rm.Resource().Attributes().Get("replica"); !ok || v.AsString() != replica {
				continue
			}
			for j := 0; j < rm.ScopeMetrics().Len(); j++ {
				ms := rm.ScopeMetrics().At(j).Metrics()
				for k := 0; k < ms.Len(); k++ {
					if m := ms.At(k); m.Name() == name && m.Type() == pmetric.MetricTypeSum {
						for d := 0; d < m.Sum().DataPoints().Len(); d++ {
							// A failed scrape (the engine stopped) sends a staleness marker:
							// not a sample.
							if dp := m.Sum().DataPoints().At(d); !dp.Flags().NoRecordedValue() {
								seen[dp.Timestamp()] = true
							}
						}
					}
				}
			}
		}
	}
	return len(seen)
}

func attrsKey(m pcommon.Map) string {
	var b strings.Builder
	for k, v := range m.All() {
		b.WriteString(k + "=" + v.AsString() + ";")
	}
	return b.String()
}

// The same mapped series arrive through the OTLP/HTTP exporter.
func TestOTLPDelivery(t *testing.T) {
	sink := startOTLPSink(t)
	mapDir := t.TempDir()
	engines := []*engine{
		startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0")),
		startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-1")),
		startEngine(t, "dcgm-exporter", "dcgm-exporter.prom", map[string]string{"node": "gpu-node-01"}),
	}
	startCollector(t, collectorSetup{Engines: engines, OTLP: sink.addr, MappingDir: mapDir, Health: freeport.Addr(t)})
	eventually(t, "GPU and vLLM series over OTLP", func() bool {
		l := sink.latest()
		return len(l["modelplane_gpu_memory_used_bytes"]) == 2 && len(l["modelplane_requests_waiting"]) == 2
	})
	l := sink.latest()
	for name := range l {
		assert.True(t, strings.HasPrefix(name, "modelplane_"), "not modelplane_*: %s", name)
	}
	var fb0 float64
	for k, v := range l["modelplane_gpu_memory_used_bytes"] {
		if strings.Contains(k, "gpu=0;") {
			fb0 = v
			assert.Contains(t, k, "cluster=e2e;")
			assert.Contains(t, k, "namespace=ml-training;")
		}
	}
	assert.Equal(t, 61245.0*1048576, fb0)
	var replicas []string
	for k := range l["modelplane_requests_waiting"] {
		for _, want := range []string{"cluster=e2e;", "deployment=llama;", "engine=vllm;", "role=decode;", "node=gpu-node-01;"} {
			assert.Contains(t, k, want)
		}
		if strings.Contains(k, "replica=llama-0;") {
			replicas = append(replicas, "llama-0")
		}
		if strings.Contains(k, "replica=llama-1;") {
			replicas = append(replicas, "llama-1")
		}
	}
	assert.ElementsMatch(t, []string{"llama-0", "llama-1"}, replicas, "replicas are separate series")

	// vLLM answers the receiver in OpenMetrics, whose `_created` is a counter's start time;
	// OTLP carries it to the backend (vllm:num_preemptions_created on the page).
	created := time.Unix(0, int64(1.7900826114212117e+09*1e9))
	starts := sink.startTimes("modelplane_requests_preempted_total")
	require.NotEmpty(t, starts)
	for _, st := range starts {
		assert.WithinDuration(t, created, st.AsTime(), time.Millisecond)
	}
}

// startTimes lists the start times of every received point of the sum called name.
func (s *otlpSink) startTimes(name string) []pcommon.Timestamp {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []pcommon.Timestamp
	for _, md := range s.got {
		points.WalkNumbers(md, func(_ pcommon.Map, m pmetric.Metric, dp pmetric.NumberDataPoint) {
			if m.Name() == name && m.Type() == pmetric.MetricTypeSum {
				out = append(out, dp.StartTimestamp())
			}
		})
	}
	return out
}

// tokenProxy sits in front of Prometheus and accepts only the tokens it is told to.
type tokenProxy struct {
	addr     string
	mu       sync.Mutex
	accepted map[string]bool
	used     map[string]int
	refused  atomic.Int64
}

func startTokenProxy(t *testing.T, upstream string, tokens ...string) *tokenProxy {
	p := &tokenProxy{accepted: map[string]bool{}, used: map[string]int{}}
	p.accept(tokens...)
	p.addr = startProxy(t, upstream, func(w http.ResponseWriter, r *http.Request) bool {
		token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		p.mu.Lock()
		ok := p.accepted[token]
		if ok {
			p.used[token]++
		}
		p.mu.Unlock()
		if !ok {
			p.refused.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		}
		return !ok
	})
	return p
}

// startProxy serves on loopback in front of upstream until the test ends, passing each
// request on unless refuse answers it (and says so). It returns its address.
func startProxy(t *testing.T, upstream string, refuse func(http.ResponseWriter, *http.Request) bool) string {
	t.Helper()
	target, err := url.Parse("http://" + upstream)
	require.NoError(t, err)
	rp := httputil.NewSingleHostReverseProxy(target)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !refuse(w, r) {
			rp.ServeHTTP(w, r)
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

func (p *tokenProxy) accept(tokens ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.accepted = map[string]bool{}
	for _, tk := range tokens {
		p.accepted[tk] = true
	}
}

func (p *tokenProxy) uses(token string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.used[token]
}

// Rotating the mounted token file switches the exporter to the new token without a
// restart, and no sample is lost across the rotation: Prometheus holds one sample per scrape.
func TestTokenRotation(t *testing.T) {
	prom := startPrometheus(t)
	proxy := startTokenProxy(t, prom.addr, "token-A")
	tokenFile := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("token-A"), 0o600))
	vllm := startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0"))
	col := startCollector(t, collectorSetup{Engines: []*engine{vllm}, Prometheus: proxy.addr, TokenFile: tokenFile, MappingDir: t.TempDir(), Health: freeport.Addr(t)})
	eventually(t, "samples with token A", func() bool { return proxy.uses("token-A") > 2 })

	// The backend starts accepting B, the Secret (the mounted file) changes to B, and once
	// the exporter uses B the backend revokes A, as a rotation in a real cluster goes.
	proxy.accept("token-A", "token-B")
	require.NoError(t, os.WriteFile(tokenFile+".new", []byte("token-B"), 0o600))
	require.NoError(t, os.Rename(tokenFile+".new", tokenFile))
	eventually(t, "the exporter to use token B", func() bool { return proxy.uses("token-B") > 2 })
	proxy.accept("token-B")
	usedA := proxy.uses("token-A")
	time.Sleep(3 * time.Second)
	assert.Equal(t, usedA, proxy.uses("token-A"), "token A is no longer used")
	assert.Zero(t, proxy.refused.Load(), "no request was refused")

	// Stop scraping, let the queue drain, and count: one sample per scrape.
	require.NoError(t, vllm.e.Stop())
	rounds := vllm.e.Rounds()
	time.Sleep(3 * time.Second)
	s := prom.query(t, `count_over_time(modelplane_requests_preempted_total{replica="llama-0"}[10m])`)
	require.Len(t, s, 1)
	assert.Equal(t, float64(rounds), s[0].Value, "samples in Prometheus vs scrapes served")
	// The status as the exporter logs a refused write ("status": "401 Unauthorized"), not a bare
	// "401", which a random port in the log can contain.
	assert.NotContains(t, col.out.String(), "401 Unauthorized")
}

// With a file_storage-backed sending queue, a collector restarted while the OTLP backend is
// down loses nothing: the backend ends up with one point per scrape.
func TestRestartDuringOutagePersistentQueue(t *testing.T) {
	sink := startOTLPSink(t)
	vllm := startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0"))
	setup := collectorSetup{Engines: []*engine{vllm}, OTLP: sink.addr, MappingDir: t.TempDir(), Health: freeport.Addr(t), QueueDir: t.TempDir()}
	col := startCollector(t, setup)
	eventually(t, "first points", func() bool { return sink.timestamps("modelplane_requests_preempted_total", "llama-0") > 0 })
	sink.down.Store(true)
	time.Sleep(10 * time.Second)
	require.NoError(t, col.cmd.Process.Signal(os.Interrupt))
	_, _ = col.cmd.Process.Wait()
	// The batches the stop interrupted stay queued on disk, and the log says so: the
	// collector's own exporter logged each as "Exporting failed. Dropping data.".
	stopped := col.out.String()
	assert.Zero(t, strings.Count(stopped, "Dropping data"), "nothing is dropped:\n%s", stopped)
	assert.Contains(t, stopped, deliverywatch.Kept)
	col = startCollector(t, setup)
	time.Sleep(10 * time.Second)
	sink.down.Store(false)
	require.NoError(t, vllm.e.Stop())
	rounds := vllm.e.Rounds()
	deadline := time.Now().Add(60 * time.Second)
	got := 0
	for time.Now().Before(deadline) {
		if got = sink.timestamps("modelplane_requests_preempted_total", "llama-0"); got == rounds {
			break
		}
		time.Sleep(time.Second)
	}
	assert.Equal(t, rounds, got, "points delivered after an outage with a collector restart vs scrapes served")

	log := col.out.String()
	assert.Contains(t, log, deliverywatch.InterruptedFirst, "the batches the stop interrupted go first")
	// The restarted collector retried every few seconds; the collector's own exporter logged
	// each retry. Ours logs the cause once and the end.
	assert.Equal(t, 1, strings.Count(log, "Exporting failed. Will retry the request after interval."), "503s, one line:\n%s", log)
	assert.Equal(t, 1, strings.Count(log, "Export endpoint accepts data again"), "the end of the outage, one line")
}
