// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Command gpu-check runs the dcgm receiver against the real NVIDIA driver of this host for a
// few collections and prints what it read: per GPU, every field's value or its absence (the
// receiver logs why a field is absent), then the modelplane_* series the built-in mappings make
// of the last collection, and checks pod attribution on GPU 0 against a fake kubelet.
// `make gpu-check` builds and runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/receiver"
	"go.uber.org/zap"

	"github.com/modelplaneai/otelcol-modelplane/internal/points"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/fakekubelet"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"
	"github.com/modelplaneai/otelcol-modelplane/receiver/dcgmreceiver"
)

func main() {
	collections := flag.Int("collections", 4, "how many collections to run (profiling ratios need two)")
	interval := flag.Duration("interval", 2*time.Second, "time between collections")
	library := flag.String("library-path", "", "NVML library (default: the loader finds libnvidia-ml.so.1)")
	defaultsOnly := flag.Bool("defaults-only", false, "read only the fields that are on by default")
	fakePods := flag.Bool("fake-kubelet", true, "then check pod attribution: a fake kubelet gives GPU 0 to two time-sliced pods")
	flag.Parse()
	if err := run(*collections, *interval, *library, !*defaultsOnly, *fakePods, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gpu-check:", err)
		os.Exit(1)
	}
}

// batches keeps what the receiver sent, and how long each collection took: from the
// collection's timestamp, which the receiver takes when it starts reading the GPUs, to its
// delivery here.
type batches struct {
	mu   sync.Mutex
	got  []pmetric.Metrics
	took []time.Duration
}

func (b *batches) consume(_ context.Context, md pmetric.Metrics) error {
	var took time.Duration
	points.WalkNumbers(md, func(_ pcommon.Map, _ pmetric.Metric, dp pmetric.NumberDataPoint) {
		took = time.Since(dp.Timestamp().AsTime())
	})
	b.mu.Lock()
	defer b.mu.Unlock()
	b.got = append(b.got, md)
	b.took = append(b.took, took)
	return nil
}

func (b *batches) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.got)
}

func run(collections int, interval time.Duration, library string, all, fakePods bool, w io.Writer) error {
	zc := zap.NewDevelopmentConfig()
	zc.DisableStacktrace = true
	logger, err := zc.Build()
	if err != nil {
		return err
	}
	defer func() { _ = logger.Sync() }()
	tel := componenttest.NewNopTelemetrySettings()
	tel.Logger = logger

	f := dcgmreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*dcgmreceiver.Config)
	cfg.CollectionInterval = interval
	cfg.LibraryPath = library
	cfg.Hostname = "gpu-check"
	if all {
		cfg.Metrics = map[string]dcgmreceiver.MetricConfig{}
		for _, name := range dcgmreceiver.OptInFields() {
			cfg.Metrics[name] = dcgmreceiver.MetricConfig{Enabled: true}
		}
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	ctx := context.Background()
	began := time.Now()
	sink, err := collect(ctx, tel, cfg, collections)
	if err != nil {
		return err
	}
	if len(sink.got) == 0 {
		return fmt.Errorf("no GPU metrics in %v: see the receiver's warning above", time.Since(began).Round(time.Millisecond))
	}
	for i, md := range sink.got {
		fmt.Fprintf(w, "collection %d: %d metrics, %d points, read in %v\n", i+1, md.MetricCount(), md.DataPointCount(), sink.took[i].Round(10*time.Microsecond))
	}
	last := sink.got[len(sink.got)-1]
	printFields(w, last, all)
	if err := printMapped(ctx, w, tel, last); err != nil {
		return err
	}
	if fakePods {
		return checkPods(ctx, w, tel, cfg, last)
	}
	return nil
}

// collect runs the receiver until it has made n collections, or for their time, whichever
// comes first (a host without a driver sends nothing).
func collect(ctx context.Context, tel component.TelemetrySettings, cfg *dcgmreceiver.Config, n int) (*batches, error) {
	f := dcgmreceiver.NewFactory()
	sink := &batches{}
	next, err := consumer.NewMetrics(sink.consume)
	if err != nil {
		return nil, err
	}
	rcv, err := f.CreateMetrics(ctx, receiver.Settings{ID: component.NewID(f.Type()), TelemetrySettings: tel}, cfg, next)
	if err != nil {
		return nil, err
	}
	began := time.Now()
	if err := rcv.Start(ctx, componenttest.NewNopHost()); err != nil {
		return nil, err
	}
	deadline := began.Add(time.Duration(n)*cfg.CollectionInterval + cfg.CollectionInterval/2)
	for sink.count() < n && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if err := rcv.Shutdown(ctx); err != nil {
		return nil, fmt.Errorf("receiver shutdown: %w", err)
	}
	return sink, nil
}

// checkPods serves a fake kubelet that gives GPU 0 to two time-sliced pods by its UUID and to a
// third by its DRA name (its minor number), collects once more, and checks that GPU 0's
// series carry each pod.
func checkPods(ctx context.Context, w io.Writer, tel component.TelemetrySettings, cfg *dcgmreceiver.Config, last pmetric.Metrics) error {
	var uuid, device string
	points.WalkNumbers(last, func(_ pcommon.Map, _ pmetric.Metric, dp pmetric.NumberDataPoint) {
		if attr(dp.Attributes(), "gpu") == "0" && attr(dp.Attributes(), "GPU_I_ID") == "" {
			uuid, device = attr(dp.Attributes(), "UUID"), attr(dp.Attributes(), "device")
		}
	})
	if uuid == "" {
		return fmt.Errorf("no GPU 0 in the last collection")
	}
	draName := "gpu-" + strings.TrimPrefix(device, "nvidia")
	dir, err := os.MkdirTemp("", "gpu-check")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	k, err := fakekubelet.Start(dir,
		fakekubelet.Pod("inference", "vllm-a", "vllm", "nvidia.com/gpu", uuid+"::0"),
		fakekubelet.Pod("inference", "vllm-b", "vllm", "nvidia.com/gpu", uuid+"::1"),
		fakekubelet.ClaimPod("inference", "sglang-dra", "sglang", "gpu.nvidia.com", "node", draName))
	if err != nil {
		return err
	}
	defer k.Stop()
	withPods := *cfg
	withPods.PodResourcesSocket = k.Socket
	sink, err := collect(ctx, tel, &withPods, 1)
	if err != nil {
		return err
	}
	if len(sink.got) == 0 {
		return fmt.Errorf("no collection with the fake kubelet")
	}
	fmt.Fprintf(w, "\npod attribution (a fake kubelet gives %s to pods inference/vllm-a and inference/vllm-b, time-sliced, and DRA device %s to inference/sglang-dra):\n", uuid, draName)
	pods := map[string]int{}
	points.WalkNumbers(sink.got[0], func(_ pcommon.Map, m pmetric.Metric, dp pmetric.NumberDataPoint) {
		a := dp.Attributes()
		if attr(a, "gpu") != "0" || attr(a, "GPU_I_ID") != "" {
			return
		}
		pods[attr(a, "namespace")+"/"+attr(a, "pod")+"/"+attr(a, "container")]++
		if m.Name() == "DCGM_FI_DEV_POWER_USAGE" {
			fmt.Fprintf(w, "%s{gpu=0,namespace=%s,pod=%s,container=%s} %g\n", m.Name(), attr(a, "namespace"), attr(a, "pod"), attr(a, "container"), points.Value(dp))
		}
	})
	for owner, n := range pods {
		fmt.Fprintf(w, "%s: %d series\n", owner, n)
	}
	a := pods["inference/vllm-a/vllm"]
	if len(pods) != 3 || a == 0 || pods["inference/vllm-b/vllm"] != a || pods["inference/sglang-dra/sglang"] != a {
		return fmt.Errorf("GPU 0's series should belong to the three pods equally, got %v", pods)
	}
	return nil
}

// printFields prints one row per field and one column per GPU (or MIG instance) of the last
// collection.
func printFields(w io.Writer, md pmetric.Metrics, all bool) {
	values := map[string]map[string]float64{} // field -> device -> value
	devices := map[string]string{}            // device -> description
	var order []string
	points.WalkNumbers(md, func(_ pcommon.Map, m pmetric.Metric, dp pmetric.NumberDataPoint) {
		attrs, v := dp.Attributes(), points.Value(dp)
		dev := attr(attrs, "gpu")
		if gi := attr(attrs, "GPU_I_ID"); gi != "" {
			dev += "/gi" + gi
		}
		if _, ok := devices[dev]; !ok {
			devices[dev] = fmt.Sprintf("gpu %s: %s UUID=%s pci_bus_id=%s device=%s driver=%s %s",
				dev, attr(attrs, "modelName"), attr(attrs, "UUID"), attr(attrs, "pci_bus_id"), attr(attrs, "device"),
				attr(attrs, "DCGM_FI_DRIVER_VERSION"), attr(attrs, "GPU_I_PROFILE"))
			order = append(order, dev)
		}
		if values[m.Name()] == nil {
			values[m.Name()] = map[string]float64{}
		}
		values[m.Name()][dev] = v
	})
	sort.Strings(order)
	fmt.Fprintln(w)
	for _, d := range order {
		fmt.Fprintln(w, strings.TrimSpace(devices[d]))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "field")
	for _, d := range order {
		fmt.Fprintf(tw, "\tgpu %s", d)
	}
	fmt.Fprintln(tw)
	names := dcgmreceiver.DefaultFields()
	if all {
		names = append(names, dcgmreceiver.OptInFields()...)
	}
	for _, name := range names {
		fmt.Fprint(tw, name)
		for _, d := range order {
			if v, ok := values[name][d]; ok {
				fmt.Fprintf(tw, "\t%g", v)
			} else {
				fmt.Fprint(tw, "\tabsent")
			}
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush()
}

// printMapped passes a collection through the modelplane_mapping processor with the built-in
// mappings and prints the series it makes.
func printMapped(ctx context.Context, w io.Writer, tel component.TelemetrySettings, md pmetric.Metrics) error {
	f := modelplanemapping.NewFactory()
	var out []pmetric.Metrics
	next, err := consumer.NewMetrics(func(_ context.Context, md pmetric.Metrics) error {
		out = append(out, md)
		return nil
	})
	if err != nil {
		return err
	}
	p, err := f.CreateMetrics(ctx, processor.Settings{ID: component.NewID(f.Type()), TelemetrySettings: tel}, f.CreateDefaultConfig(), next)
	if err != nil {
		return err
	}
	if err := p.Start(ctx, componenttest.NewNopHost()); err != nil {
		return err
	}
	defer func() { _ = p.Shutdown(ctx) }()
	in := pmetric.NewMetrics()
	md.CopyTo(in)
	if err := p.ConsumeMetrics(ctx, in); err != nil {
		return err
	}
	var lines []string
	for _, md := range out {
		points.WalkNumbers(md, func(res pcommon.Map, m pmetric.Metric, dp pmetric.NumberDataPoint) {
			lines = append(lines, strings.TrimSpace(fmt.Sprintf("%s{%s} %g  [%s] %s", m.Name(), labels(dp.Attributes()), points.Value(dp), m.Unit(), labels(res))))
		})
	}
	sort.Strings(lines)
	fmt.Fprintf(w, "\nafter the built-in mappings (%d series):\n", len(lines))
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	if len(lines) == 0 {
		return fmt.Errorf("the built-in mappings made no modelplane_* series of the GPU metrics")
	}
	return nil
}

func attr(attrs pcommon.Map, key string) string {
	if v, ok := attrs.Get(key); ok {
		return v.AsString()
	}
	return ""
}

func labels(attrs pcommon.Map) string {
	var kv []string
	attrs.Range(func(k string, v pcommon.Value) bool {
		kv = append(kv, k+"="+fmt.Sprintf("%q", v.AsString()))
		return true
	})
	sort.Strings(kv)
	return strings.Join(kv, ",")
}
