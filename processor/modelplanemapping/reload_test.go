// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/metadata"
)

func mappingDoc(version string) string {
	return fmt.Sprintf(`apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata:
  name: reload
spec:
  metrics:
  - from: src_a
    to: modelplane_%[1]s_a
  - from: src_b
    to: modelplane_%[1]s_b
`, version)
}

// mappingFilesOnly is a config with no built-ins and no identity step that reads the
// mapping files dir/*.yaml, polled every interval.
func mappingFilesOnly(t *testing.T, dir string, interval time.Duration) *Config {
	t.Helper()
	cfg := createDefaultConfig()
	cfg.Builtin = nil
	cfg.Identity.Enabled = false
	cfg.ReloadInterval = interval
	cfg.MappingFiles = []string{filepath.Join(dir, "*.yaml")}
	require.NoError(t, cfg.Validate())
	return cfg
}

// flow sends batches through the processor until stopped and checks every output: both
// metrics mapped by the same version, or both dropped. It records which versions it saw.
type flow struct {
	mu      sync.Mutex
	seen    map[string]bool // versions seen since the last forget
	batches atomic.Int64
	bad     atomic.Value
}

func (f *flow) record(version string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen == nil {
		f.seen = map[string]bool{}
	}
	f.seen[version] = true
}

func (f *flow) saw(version string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[version]
}

// forget clears what was seen. (Replacing a sync.Map that another goroutine is storing into
// is a data race; it crashed this test once.)
func (f *flow) forget() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.seen)
}

func (f *flow) check(md pmetric.Metrics) {
	f.batches.Add(1)
	var names, ended []string
	for i := 0; i < md.ResourceMetrics().Len(); i++ {
		ms := md.ResourceMetrics().At(i).ScopeMetrics().At(0).Metrics()
		for j := 0; j < ms.Len(); j++ {
			// The staleness markers of the series a reload stopped producing
			// (reloadend.go) come in the first batch after it.
			if ms.At(j).Gauge().DataPoints().At(0).Flags().NoRecordedValue() {
				ended = append(ended, ms.At(j).Name())
				continue
			}
			names = append(names, ms.At(j).Name())
		}
	}
	if len(ended) > 0 && len(ended) != 2 || len(ended) == 2 && len(names) == 2 && ended[0] == names[0] {
		f.bad.Store(fmt.Sprintf("markers %v beside %v", ended, names))
	}
	switch len(names) {
	case 0:
		f.record("none")
	case 2:
		va := strings.TrimSuffix(strings.TrimPrefix(names[0], "modelplane_"), "_a")
		if names[1] != "modelplane_"+va+"_b" {
			f.bad.Store(fmt.Sprintf("half-applied batch: %v", names))
		}
		f.record(va)
	default:
		f.bad.Store(fmt.Sprintf("unexpected batch: %v", names))
	}
}

func batch() pmetric.Metrics {
	md := pmetric.NewMetrics()
	ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	for _, n := range []string{"src_a", "src_b"} {
		m := ms.AppendEmpty()
		m.SetName(n)
		m.SetEmptyGauge().DataPoints().AppendEmpty().SetIntValue(1)
	}
	return md
}

// observedSettings are processor settings whose logger records what it is given.
func observedSettings() (processor.Settings, *observer.ObservedLogs) {
	core, logs := observer.New(zap.InfoLevel)
	set := processortest.NewNopSettings(metadata.Type)
	set.Logger = zap.New(core)
	return set, logs
}

// startFlow starts a processor with cfg and sends batches through it until the test ends,
// checking each output with a flow; saw waits until every batch is mapped by version v.
func startFlow(t *testing.T, set processor.Settings, cfg *Config) (f *flow, saw func(v string)) {
	t.Helper()
	f = &flow{}
	// processMetrics is called directly, so each output batch can be checked on its own.
	inner, err := newProcessor(set, cfg)
	require.NoError(t, err)
	require.NoError(t, inner.start(context.Background(), componenttest.NewNopHost()))

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				md := batch()
				out, err := inner.processMetrics(context.Background(), md)
				if err == nil {
					f.check(out)
				}
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		wg.Wait()
		require.NoError(t, inner.shutdown(context.Background()))
	})
	return f, func(v string) {
		t.Helper()
		require.Eventually(t, func() bool { return f.saw(v) }, 10*time.Second, 10*time.Millisecond, "version %s never applied", v)
		f.forget()
		require.Eventually(t, func() bool { return f.saw(v) }, 10*time.Second, 10*time.Millisecond)
	}
}

// Add, change, break, fix and remove a mapping file, then a ConfigMap-style symlink swap,
// while data flows: every batch is mapped wholly by one version, and a broken update keeps
// the last good mappings with one warning naming the file, the field and the value.
func TestReloadWhileDataFlows(t *testing.T) {
	dir := t.TempDir()
	set, logs := observedSettings()

	f, saw := startFlow(t, set, mappingFilesOnly(t, dir, 20*time.Millisecond))
	path := filepath.Join(dir, "engine.yaml")

	saw("none") // no file yet: everything is dropped
	require.NoError(t, os.WriteFile(path, []byte(mappingDoc("v1")), 0o600))
	saw("v1") // added
	require.NoError(t, os.WriteFile(path, []byte(mappingDoc("v2")), 0o600))
	saw("v2") // changed
	broken := strings.Replace(mappingDoc("v3"), "to: modelplane_v3_b", "to: modelplane_v3_b\n    fromUnit: Milisecond", 1)
	require.NoError(t, os.WriteFile(path, []byte(broken), 0o600))
	brokenWarnings := func() []observer.LoggedEntry {
		return logs.FilterMessage("Skipped a mapping").Filter(func(e observer.LoggedEntry) bool {
			return strings.Contains(e.ContextMap()["error"].(string), "Milisecond")
		}).All()
	}
	require.Eventually(t, func() bool { return len(brokenWarnings()) > 0 }, 5*time.Second, 10*time.Millisecond)
	warn := brokenWarnings()[0].ContextMap()["error"].(string)
	assert.Equal(t, path+`: MetricMapping "reload": line 11: metrics[1].fromUnit: unknown unit "Milisecond", did you mean "Milliseconds"? (want one of Millijoules, Milliseconds, Nanoseconds, Mebibytes, Percent, Microseconds, Kibibytes, Gibibytes, Kilobytes, Megabytes, Gigabytes, Milliwatts); kept the last good version of the file`, warn)
	saw("v2") // broken: the last good version stays
	assert.Len(t, brokenWarnings(), 1, "one warning per broken update, not one per poll")
	require.NoError(t, os.WriteFile(path, []byte(mappingDoc("v4")), 0o600))
	saw("v4") // fixed
	require.NoError(t, os.Remove(path))
	saw("none") // removed

	// Kubernetes ConfigMap volume: engine.yaml -> ..data/engine.yaml, ..data -> ..<timestamp>,
	// and an update swaps ..data atomically.
	for i, v := range []string{"v5", "v6"} {
		ts := filepath.Join(dir, fmt.Sprintf("..2026_11_29_%d", i))
		require.NoError(t, os.Mkdir(ts, 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(ts, "engine.yaml"), []byte(mappingDoc(v)), 0o600))
		tmp := filepath.Join(dir, "..data_tmp")
		require.NoError(t, os.Symlink(filepath.Base(ts), tmp))
		require.NoError(t, os.Rename(tmp, filepath.Join(dir, "..data")))
		if i == 0 {
			require.NoError(t, os.Symlink(filepath.Join("..data", "engine.yaml"), path))
		}
		saw(v)
	}
	assert.Nil(t, f.bad.Load())
	assert.Positive(t, f.batches.Load())
}

// A file of `kubectl get metricmappings -o yaml`, the way a cluster's MetricMappings move to
// otelcol-modelplane: one List. Every MetricMapping in it loads; an object of another kind in
// it is named once in the log, not once per poll.
func TestMappingFileOfKubectlList(t *testing.T) {
	dir := t.TempDir()
	set, logs := observedSettings()
	list := `apiVersion: v1
kind: List
metadata:
  resourceVersion: ""
items:
- apiVersion: modelplane.ai/v1alpha1
  kind: MetricMapping
  metadata: {name: engine-a, uid: 1c0e, resourceVersion: "812", generation: 2}
  spec:
    metrics:
    - {from: src_a, to: modelplane_list_a}
  status: {conditions: [{type: Accepted, status: "True"}]}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: stray}
- apiVersion: modelplane.ai/v1alpha1
  kind: MetricMapping
  metadata: {name: engine-b}
  spec:
    metrics:
    - {from: src_b, to: modelplane_list_b}
`
	path := filepath.Join(dir, "cluster.yaml")
	require.NoError(t, os.WriteFile(path, []byte(list), 0o600))

	cfg := mappingFilesOnly(t, dir, 10*time.Millisecond)
	p, err := newProcessor(set, cfg)
	require.NoError(t, err)
	require.NoError(t, p.start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, p.shutdown(context.Background())) })

	out, err := p.processMetrics(context.Background(), batch())
	require.NoError(t, err)
	var names []string
	ms := out.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics()
	for i := 0; i < ms.Len(); i++ {
		names = append(names, ms.At(i).Name())
	}
	assert.Equal(t, []string{"modelplane_list_a", "modelplane_list_b"}, names)

	time.Sleep(10 * cfg.ReloadInterval) // polls that find the file unchanged
	ignored := logs.FilterMessage("Ignored a document that is not a MetricMapping").All()
	require.Len(t, ignored, 1)
	assert.Equal(t, path+`: document 1, items[1] (ConfigMap "stray")`, ignored[0].ContextMap()["document"])
	assert.Empty(t, logs.FilterMessage("Skipped a mapping").All())
}

// replaceFile gives path new contents in one step, as a ConfigMap update or an editor that
// saves by renaming does: a poll never reads it half written, which an in-place write
// allows (a half-written file is an overlap gone and back, said again).
func replaceFile(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".tmp"
	require.NoError(t, os.WriteFile(tmp, data, 0o600))
	require.NoError(t, os.Rename(tmp, path))
}

// A mapping file that maps a built-in's source to another name gives nothing under that
// name (the built-in renames the source first, as in the reference); the processor says so
// once, naming both entries, and again only once the overlap is gone and back.
func TestOverlapWithABuiltinIsWarnedOnce(t *testing.T) {
	dir := t.TempDir()
	set, logs := observedSettings()
	path := filepath.Join(dir, "queue.yaml")
	doc := func(extra string) string {
		return "apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\nmetadata: {name: queue}\nspec:\n  metrics:\n" +
			"  - {from: \"vllm:num_requests_waiting\", to: modelplane_queue_depth}\n" + extra
	}
	require.NoError(t, os.WriteFile(path, []byte(doc("")), 0o600)) // before the start: no poll can see it half written
	cfg := mappingFilesOnly(t, dir, 10*time.Millisecond)
	cfg.Builtin = []string{"default"}
	p, err := newProcessor(set, cfg)
	require.NoError(t, err)
	require.NoError(t, p.start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, p.shutdown(context.Background())) })

	md := pmetric.NewMetrics()
	m := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("vllm:num_requests_waiting")
	m.SetEmptyGauge().DataPoints().AppendEmpty().SetIntValue(3)
	out, err := p.processMetrics(context.Background(), md)
	require.NoError(t, err)
	assert.Equal(t, "modelplane_requests_waiting", out.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0).Name())

	warned := func() []string {
		var got []string
		for _, e := range logs.FilterMessage(OverlapMessage).All() {
			got = append(got, e.ContextMap()["overlap"].(string))
		}
		return got
	}
	require.Len(t, warned(), 1)
	assert.Contains(t, warned()[0], path+`: MetricMapping "queue" metrics[0]: "vllm:num_requests_waiting" never becomes "modelplane_queue_depth": builtin/vllm.yaml: MetricMapping "modelplane-vllm"`)
	assert.Contains(t, warned()[0], `leave "modelplane-vllm" out of `+"`builtin`")

	// Another entry added: a reload, and the overlap that lasts is not said again.
	replaceFile(t, path, []byte(doc("  - {from: my_queue, to: modelplane_my_queue}\n")))
	require.Eventually(t, func() bool { return len(logs.FilterMessage("Mappings loaded").All()) == 2 }, 5*time.Second, 10*time.Millisecond)
	assert.Len(t, warned(), 1)

	// Gone, then back: said again.
	replaceFile(t, path, []byte("apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\nmetadata: {name: queue}\nspec:\n  metrics:\n  - {from: my_queue, to: modelplane_my_queue}\n"))
	require.Eventually(t, func() bool { return len(logs.FilterMessage("Mappings loaded").All()) == 3 }, 5*time.Second, 10*time.Millisecond)
	replaceFile(t, path, []byte(doc("")))
	require.Eventually(t, func() bool { return len(logs.FilterMessage("Mappings loaded").All()) == 4 }, 5*time.Second, 10*time.Millisecond)
	assert.Len(t, warned(), 2)
}

// A mapping whose names and fromUnit disagree (a source in milliseconds by its name renamed
// into seconds without fromUnit) runs as written, as the reference runs it, and is warned
// about once while it lasts, naming the entry and the fromUnit it lacks.
func TestUnitDisagreementIsWarnedOnce(t *testing.T) {
	dir := t.TempDir()
	set, logs := observedSettings()
	path := filepath.Join(dir, "kv.yaml")
	doc := func(fromUnit string) []byte {
		return []byte("apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\nmetadata: {name: kv}\nspec:\n  metrics:\n" +
			"  - {from: my_kv_transfer_ms, to: modelplane_my_kv_transfer_seconds" + fromUnit + "}\n")
	}
	require.NoError(t, os.WriteFile(path, doc(""), 0o600))
	p, err := newProcessor(set, mappingFilesOnly(t, dir, 10*time.Millisecond))
	require.NoError(t, err)
	require.NoError(t, p.start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, p.shutdown(context.Background())) })

	md := pmetric.NewMetrics()
	m := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("my_kv_transfer_ms")
	m.SetEmptyGauge().DataPoints().AppendEmpty().SetDoubleValue(1500)
	out, err := p.processMetrics(context.Background(), md)
	require.NoError(t, err)
	got := out.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0)
	assert.Equal(t, "modelplane_my_kv_transfer_seconds", got.Name())
	assert.Equal(t, 1500.0, got.Gauge().DataPoints().At(0).DoubleValue(), "run as written")

	warned := func() []string {
		var got []string
		for _, e := range logs.FilterMessage(NameMessage).All() {
			got = append(got, e.ContextMap()["note"].(string))
		}
		return got
	}
	assert.Equal(t, []string{path + `: MetricMapping "kv" metrics[0]: "my_kv_transfer_ms" is in milliseconds by its name and ` +
		`"modelplane_my_kv_transfer_seconds" in seconds: without fromUnit: Milliseconds its values stay in milliseconds`}, warned())

	// Mended: nothing more is said.
	replaceFile(t, path, doc(", fromUnit: Milliseconds"))
	require.Eventually(t, func() bool { return len(logs.FilterMessage("Mappings loaded").All()) == 2 }, 5*time.Second, 10*time.Millisecond)
	assert.Len(t, warned(), 1)
}
