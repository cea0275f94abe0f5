// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

//go:build cgo

package dcgmreceiver

import (
	"context"
	"encoding/binary"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/gpus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
	podresourcesv1 "k8s.io/kubelet/pkg/apis/podresources/v1"

	datapoints "github.com/modelplaneai/otelcol-modelplane/internal/points"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/fakekubelet"
	"github.com/modelplaneai/otelcol-modelplane/receiver/dcgmreceiver/internal/metadata"
)

// withNVML is the factory of receivers that read lib instead of the real library.
func withNVML(lib nvml.Interface) receiver.Factory {
	return newFactory(func(cfg *Config, logger *zap.Logger) collector { return newNVMLCollector(cfg, logger, lib) })
}

func testConfig(t *testing.T) *Config {
	cfg := createDefaultConfig()
	cfg.Hostname = "gpu-node-01"
	cfg.PodResourcesSocket = filepath.Join(t.TempDir(), "absent.sock")
	require.NoError(t, cfg.Validate())
	return cfg
}

func newTestCollector(t *testing.T, cfg *Config, lib nvml.Interface) (*nvmlCollector, *observer.ObservedLogs) {
	core, logs := observer.New(zap.DebugLevel)
	c := newNVMLCollector(cfg, zap.New(core), lib)
	t.Cleanup(func() { require.NoError(t, c.shutdown()) })
	return c, logs
}

// point is one collected point, flattened.
type point struct {
	name, desc string
	counter    bool
	attrs      map[string]any
	value      float64
	stale      bool // a staleness marker: no recorded value
}

func points(md pmetric.Metrics) []point {
	var out []point
	datapoints.WalkNumbers(md, func(_ pcommon.Map, m pmetric.Metric, dp pmetric.NumberDataPoint) {
		out = append(out, point{m.Name(), m.Description(), m.Type() == pmetric.MetricTypeSum, dp.Attributes().AsRaw(), dp.DoubleValue(), dp.Flags().NoRecordedValue()})
	})
	return out
}

func find(ps []point, name, gpu string) []point {
	var out []point
	for _, p := range ps {
		if p.name == name && p.attrs["gpu"] == gpu {
			out = append(out, p)
		}
	}
	return out
}

func TestCollectValuesUnitsTypesAndLabels(t *testing.T) {
	node := newFakeNode(h100State(), l4State())
	c, _ := newTestCollector(t, testConfig(t), node)
	md, _, err := c.collect(context.Background(), time.Now())
	require.NoError(t, err)
	ps := points(md)

	fb := find(ps, "DCGM_FI_DEV_FB_USED", "0")
	require.Len(t, fb, 1)
	assert.Equal(t, 61245.0, fb[0].value, "MiB")
	assert.Equal(t, "Framebuffer memory used (in MiB).", fb[0].desc)
	assert.False(t, fb[0].counter)
	assert.Equal(t, map[string]any{
		"gpu": "0", "UUID": "GPU-8d2f4a61-3c7e-9b15-2e44-71f0a9c35b2d", "pci_bus_id": "00000000:18:00.0",
		"device": "nvidia0", "modelName": "NVIDIA H100 80GB HBM3", "Hostname": "gpu-node-01", "DCGM_FI_DRIVER_VERSION": "580.95.05",
	}, fb[0].attrs)

	energy := find(ps, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "1")
	require.Len(t, energy, 1)
	assert.True(t, energy[0].counter, "energy is a counter")
	assert.Equal(t, 41903361207.0, energy[0].value, "mJ")
	assert.Equal(t, 512.347, find(ps, "DCGM_FI_DEV_POWER_USAGE", "0")[0].value, "W")
	assert.Equal(t, 1980.0, find(ps, "DCGM_FI_DEV_SM_CLOCK", "0")[0].value, "MHz")
	assert.Equal(t, 97.0, find(ps, "DCGM_FI_DEV_GPU_UTIL", "0")[0].value, "percent")
	assert.Equal(t, 470.0, find(ps, "DCGM_FI_DEV_FB_RESERVED", "1")[0].value)
	memTemp := find(ps, "DCGM_FI_DEV_MEMORY_TEMP", "0")
	require.Len(t, memTemp, 1)
	assert.Equal(t, 66.0, memTemp[0].value, "C, from NVML's field values")
	assert.Equal(t, "Memory temperature (in C).", memTemp[0].desc)
	// Thermal throttling and ECC errors are on by default, for the shipped alerts; opt-in
	// fields are off; profiling needs two samples.
	assert.Len(t, find(ps, "DCGM_FI_DEV_THERMAL_VIOLATION", "0"), 1)
	assert.Len(t, find(ps, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "0"), 1)
	assert.Empty(t, find(ps, "DCGM_FI_DEV_POWER_VIOLATION", "0"))
	assert.Empty(t, find(ps, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "0"))
}

// Profiling ratios come from GPM between two collections, only on GPUs that have GPM.
func TestProfilingFromGPM(t *testing.T) {
	noGPM := l4State()
	noGPM.GPM = nil
	node := newFakeNode(h100State(), noGPM)
	c, logs := newTestCollector(t, testConfig(t), node)
	_, _, err := c.collect(context.Background(), time.Now())
	require.NoError(t, err)
	md, _, err := c.collect(context.Background(), time.Now())
	require.NoError(t, err)
	ps := points(md)
	gr := find(ps, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "0")
	require.Len(t, gr, 1)
	assert.Equal(t, 0.962318, gr[0].value)
	assert.Equal(t, 0.487152, find(ps, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "0")[0].value)
	assert.Equal(t, 0.412907, find(ps, "DCGM_FI_PROF_DRAM_ACTIVE", "0")[0].value)
	assert.Empty(t, find(ps, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "1"), "never invented for a GPU without GPM")
	assert.Equal(t, 1, logs.FilterMessageSnippet("no DCGM_FI_PROF_* activity ratios").Len())
	// PCIe rates: from GPM, MiB/s to bytes per second, exactly the page's values; without
	// GPM, from NVML's PCIe throughput counter, KiB/s to bytes per second.
	assert.Equal(t, 1839201.0, find(ps, "DCGM_FI_PROF_PCIE_TX_BYTES", "0")[0].value)
	assert.Equal(t, 48299382.0, find(ps, "DCGM_FI_PROF_PCIE_RX_BYTES", "0")[0].value)
	assert.Equal(t, 3821.0*1024, find(ps, "DCGM_FI_PROF_PCIE_TX_BYTES", "1")[0].value)
	rx := find(ps, "DCGM_FI_PROF_PCIE_RX_BYTES", "1")
	require.Len(t, rx, 1)
	assert.Equal(t, 7140.0*1024, rx[0].value)
	assert.False(t, rx[0].counter, "a rate, a gauge as dcgm-exporter types it")
	assert.Contains(t, rx[0].desc, "in bytes per second")

	cfg := testConfig(t)
	cfg.Profiling = ProfilingOff
	c2, _ := newTestCollector(t, cfg, newFakeNode(h100State()))
	for i := 0; i < 2; i++ {
		md, _, err = c2.collect(context.Background(), time.Now())
		require.NoError(t, err)
	}
	assert.Empty(t, find(points(md), "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "0"))

	// Every profiling field switched off one by one: no GPM sample is even taken.
	cfg = testConfig(t)
	cfg.Metrics = map[string]MetricConfig{}
	for _, f := range fields {
		if f.profiling {
			cfg.Metrics[f.name] = MetricConfig{Enabled: false}
		}
	}
	node3 := newFakeNode(h100State())
	c3, _ := newTestCollector(t, cfg, node3)
	for i := 0; i < 2; i++ {
		_, _, err = c3.collect(context.Background(), time.Now())
		require.NoError(t, err)
	}
	assert.Zero(t, node3.allocs, "GPM samples taken")
}

// A field a GPU does not support is skipped for that GPU and logged once; a lost GPU stops
// only its own series.
func TestUnsupportedFieldAndLostGPU(t *testing.T) {
	a, b, lost := h100State(), l4State(), h100State()
	b.Unsupported = map[string]bool{"DCGM_FI_DEV_PCIE_REPLAY_COUNTER": true}
	lost.UUID, lost.Minor = "GPU-lost", 2
	node := newFakeNode(a, b, lost)
	c, logs := newTestCollector(t, testConfig(t), node)
	for i := 0; i < 3; i++ {
		md, read, err := c.collect(context.Background(), time.Now())
		require.NoError(t, err)
		assert.Equal(t, map[int]int{0: 3, 1: 3, 2: 2}[i], read, "GPUs read in collection %d", i)
		ps := points(md)
		assert.Len(t, find(ps, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "0"), 1)
		assert.Empty(t, find(ps, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "1"))
		assert.Len(t, find(ps, "DCGM_FI_DEV_FB_USED", "1"), 1)
		if i == 1 {
			node.set(2, func(s *gpuState) { s.Lost = true })
		}
		if i == 2 {
			assert.Empty(t, find(ps, "DCGM_FI_DEV_FB_USED", "2"), "lost GPU")
			assert.Len(t, find(ps, "DCGM_FI_DEV_FB_USED", "0"), 1, "others keep flowing")
		} else {
			assert.Len(t, find(ps, "DCGM_FI_DEV_FB_USED", "2"), 1)
		}
	}
	assert.Equal(t, 1, logs.FilterMessageSnippet("does not report a field").Len())
	assert.Equal(t, 1, logs.FilterMessageSnippet("GPU is lost").Len())
}

// NVML returns a field value as a C union whose type the driver picks per field and per
// driver version; each type is decoded from its own width and signedness.
func TestFieldValueDecodesEveryValueType(t *testing.T) {
	for _, c := range []struct {
		typ  nvml.ValueType
		put  func(b []byte)
		want float64
	}{
		{nvml.VALUE_TYPE_DOUBLE, func(b []byte) { binary.LittleEndian.PutUint64(b, math.Float64bits(41.5)) }, 41.5},
		{nvml.VALUE_TYPE_UNSIGNED_INT, func(b []byte) { binary.LittleEndian.PutUint32(b, 4_000_000_000) }, 4e9},
		{nvml.VALUE_TYPE_UNSIGNED_LONG, func(b []byte) { binary.LittleEndian.PutUint64(b, 1<<40) }, 1 << 40},
		{nvml.VALUE_TYPE_UNSIGNED_LONG_LONG, func(b []byte) { binary.LittleEndian.PutUint64(b, 1<<53) }, 1 << 53},
		{nvml.VALUE_TYPE_SIGNED_LONG_LONG, func(b []byte) { binary.LittleEndian.PutUint64(b, uint64(1<<64-7)) }, -7},
		{nvml.VALUE_TYPE_SIGNED_INT, func(b []byte) { binary.LittleEndian.PutUint32(b, uint32(1<<32-3)) }, -3},
		{nvml.VALUE_TYPE_UNSIGNED_SHORT, func(b []byte) { binary.LittleEndian.PutUint16(b, 65535) }, 65535},
	} {
		d := &mock.Device{GetFieldValuesFunc: func(values []nvml.FieldValue) nvml.Return {
			for i := range values {
				values[i].Value = [8]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff} // bytes the type does not use
				c.put(values[i].Value[:])
				values[i].ValueType = uint32(c.typ)
			}
			return nvml.SUCCESS
		}}
		got, ret := fieldValue(d, nvml.FI_DEV_MEMORY_TEMP)
		require.Equal(t, nvml.SUCCESS, ret, "value type %d", c.typ)
		assert.Equal(t, c.want, got, "value type %d", c.typ)
	}

	// A type NVML may add later, and a field the GPU does not report, are not values.
	d := &mock.Device{GetFieldValuesFunc: func(values []nvml.FieldValue) nvml.Return {
		values[0].ValueType = uint32(nvml.VALUE_TYPE_COUNT)
		return nvml.SUCCESS
	}}
	_, ret := fieldValue(d, nvml.FI_DEV_MEMORY_TEMP)
	assert.Equal(t, nvml.ERROR_NOT_SUPPORTED, ret)
	d = &mock.Device{GetFieldValuesFunc: func(values []nvml.FieldValue) nvml.Return {
		values[0].NvmlReturn = uint32(nvml.ERROR_NOT_SUPPORTED)
		return nvml.SUCCESS
	}}
	_, ret = fieldValue(d, nvml.FI_DEV_MEMORY_TEMP)
	assert.Equal(t, nvml.ERROR_NOT_SUPPORTED, ret)
}

// No driver or library: collection is idle with one warning, and retried.
func TestNoLibraryIsIdleAndRetries(t *testing.T) {
	t.Setenv("NVIDIA_VISIBLE_DEVICES", "") // not under the NVIDIA runtime
	node := newFakeNode(h100State())
	available := false
	node.InitFunc = func() nvml.Return {
		if !available {
			return nvml.ERROR_LIBRARY_NOT_FOUND
		}
		return nvml.SUCCESS
	}
	cfg := testConfig(t)
	cfg.RetryInterval = time.Minute
	c, logs := newTestCollector(t, cfg, node)
	now := time.Now()
	for i := 0; i < 3; i++ {
		md, read, err := c.collect(context.Background(), now.Add(time.Duration(i)*time.Second))
		require.NoError(t, err)
		assert.Zero(t, md.DataPointCount())
		assert.Zero(t, read)
	}
	assert.Equal(t, 1, logs.FilterMessageSnippet("NVML is not available").Len())
	assert.NotContains(t, logs.FilterMessageSnippet("NVML is not available").All()[0].ContextMap(), "hint", "not asked of the NVIDIA runtime")
	available = true
	md, _, err := c.collect(context.Background(), now.Add(30*time.Second))
	require.NoError(t, err)
	assert.Zero(t, md.DataPointCount(), "not retried before retry_interval")
	md, read, err := c.collect(context.Background(), now.Add(2*time.Minute))
	require.NoError(t, err)
	assert.Positive(t, md.DataPointCount(), "retried and found")
	assert.Equal(t, 1, read)
}

// In a container that asked the NVIDIA runtime for every GPU and got no driver library, the
// warning says the runtime ignored the request and what to change.
func TestNVMLMissingUnderTheNVIDIARuntime(t *testing.T) {
	t.Setenv("NVIDIA_VISIBLE_DEVICES", "all")
	node := newFakeNode(h100State())
	node.InitFunc = func() nvml.Return { return nvml.ERROR_LIBRARY_NOT_FOUND }
	c, logs := newTestCollector(t, testConfig(t), node)
	_, _, err := c.collect(context.Background(), time.Now())
	require.NoError(t, err)
	warned := logs.FilterMessageSnippet("NVML is not available").All()
	require.Len(t, warned, 1)
	hint, _ := warned[0].ContextMap()["hint"].(string)
	assert.Contains(t, hint, "accept-nvidia-visible-devices-envvar-when-unprivileged")
	assert.Contains(t, hint, "dcgm.nvml.privileged=true")
}

func TestOptInFields(t *testing.T) {
	cfg := testConfig(t)
	cfg.Metrics = map[string]MetricConfig{}
	for _, n := range []string{"DCGM_FI_DEV_THERMAL_VIOLATION", "DCGM_FI_DEV_POWER_VIOLATION", "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "DCGM_FI_PROF_NVLINK_TX_BYTES", "DCGM_FI_PROF_NVLINK_RX_BYTES"} {
		cfg.Metrics[n] = MetricConfig{Enabled: true}
	}
	cfg.Metrics["DCGM_FI_DEV_SM_CLOCK"] = MetricConfig{Enabled: false}
	require.NoError(t, cfg.Validate())
	c, _ := newTestCollector(t, cfg, newFakeNode(h100State()))
	md, _, err := c.collect(context.Background(), time.Now())
	require.NoError(t, err)
	ps := points(md)
	thermal := find(ps, "DCGM_FI_DEV_THERMAL_VIOLATION", "0")
	require.Len(t, thermal, 1)
	assert.True(t, thermal[0].counter)
	assert.Equal(t, 1.5e9, thermal[0].value, "ns")
	assert.Equal(t, 3.0, find(ps, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "0")[0].value)
	assert.Equal(t, 36.0, find(ps, "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "0")[0].value, "18 links x 2")
	assert.Empty(t, find(ps, "DCGM_FI_DEV_SM_CLOCK", "0"))
	// NVLink rates come from GPM, so from the second collection: MiB/s to bytes per second.
	md, _, err = c.collect(context.Background(), time.Now())
	require.NoError(t, err)
	ps = points(md)
	tx := find(ps, "DCGM_FI_PROF_NVLINK_TX_BYTES", "0")
	require.Len(t, tx, 1)
	assert.Equal(t, 1024.0*(1<<20), tx[0].value)
	assert.False(t, tx[0].counter)
	assert.Equal(t, 512.5*(1<<20), find(ps, "DCGM_FI_PROF_NVLINK_RX_BYTES", "0")[0].value)

	// Off by default: GPM is not even asked for them.
	def, _ := newTestCollector(t, testConfig(t), newFakeNode(h100State()))
	for _, m := range def.gpmFields {
		assert.NotContains(t, m.field.name, "NVLINK")
	}
	assert.Len(t, def.gpmFields, 5)

	bad := testConfig(t)
	bad.Metrics = map[string]MetricConfig{"DCGM_FI_DEV_NOPE": {Enabled: true}}
	assert.ErrorContains(t, bad.Validate(), `metrics: unknown field "DCGM_FI_DEV_NOPE"`)
}

// XID errors from NVML events: the last XID per GPU, 0 before any; the watcher stops on
// shutdown (goleak).
func TestXIDEvents(t *testing.T) {
	node := newFakeNode(h100State(), l4State())
	events := make(chan nvml.EventData, 4)
	freed := false
	node.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) {
		return &mock.EventSet{
			WaitFunc: func(ms uint32) (nvml.EventData, nvml.Return) {
				select {
				case e := <-events:
					return e, nvml.SUCCESS
				case <-time.After(time.Duration(ms) * time.Millisecond):
					return nvml.EventData{}, nvml.ERROR_TIMEOUT
				}
			},
			FreeFunc: func() nvml.Return { freed = true; return nvml.SUCCESS },
		}, nvml.SUCCESS
	}
	registered := 0
	for _, d := range node.devices {
		d.RegisterEventsFunc = func(uint64, nvml.EventSet) nvml.Return { registered++; return nvml.SUCCESS }
	}
	cfg := testConfig(t)
	cfg.Metrics = map[string]MetricConfig{"DCGM_FI_DEV_XID_ERRORS": {Enabled: true}}
	c := newNVMLCollector(cfg, zap.NewNop(), node)
	md, _, err := c.collect(context.Background(), time.Now())
	require.NoError(t, err)
	assert.Equal(t, 2, registered)
	assert.Equal(t, 0.0, find(points(md), "DCGM_FI_DEV_XID_ERRORS", "1")[0].value)
	events <- nvml.EventData{Device: node.devices[1], EventType: nvml.EventTypeXidCriticalError, EventData: 79}
	require.Eventually(t, func() bool {
		md, _, err := c.collect(context.Background(), time.Now())
		require.NoError(t, err)
		return find(points(md), "DCGM_FI_DEV_XID_ERRORS", "1")[0].value == 79
	}, 5*time.Second, 10*time.Millisecond)
	md, _, err = c.collect(context.Background(), time.Now())
	require.NoError(t, err)
	assert.Equal(t, 0.0, find(points(md), "DCGM_FI_DEV_XID_ERRORS", "0")[0].value, "only the GPU that had it")
	require.NoError(t, c.shutdown())
	assert.True(t, freed)
}

// MIG instances get their framebuffer series with GPU_I_PROFILE and GPU_I_ID.
func TestMIG(t *testing.T) {
	node := newFakeNode(h100State())
	d := node.devices[0]
	d.MigMode = nvml.DEVICE_MIG_ENABLE
	d.GetMaxMigDeviceCountFunc = func() (int, nvml.Return) { return 7, nvml.SUCCESS }
	d.GetMigDeviceHandleByIndexFunc = func(i int) (nvml.Device, nvml.Return) {
		if i > 1 {
			return nil, nvml.ERROR_NOT_FOUND
		}
		return &mock.Device{
			GetGpuInstanceIdFunc: func() (int, nvml.Return) { return []int{1, 5}[i], nvml.SUCCESS },
			GetUUIDFunc:          func() (string, nvml.Return) { return []string{"MIG-aaaa", "MIG-bbbb"}[i], nvml.SUCCESS },
			GetNameFunc: func() (string, nvml.Return) {
				return []string{"NVIDIA H100 80GB HBM3 MIG 1g.10gb", "NVIDIA H100 80GB HBM3 MIG 3g.40gb"}[i], nvml.SUCCESS
			},
			GetMemoryInfoFunc: func() (nvml.Memory, nvml.Return) {
				return nvml.Memory{Used: uint64(1000+i) << 20, Free: 10 << 20}, nvml.SUCCESS
			},
		}, nvml.SUCCESS
	}
	c, _ := newTestCollector(t, testConfig(t), node)
	md, _, err := c.collect(context.Background(), time.Now())
	require.NoError(t, err)
	var mig []point
	for _, p := range find(points(md), "DCGM_FI_DEV_FB_USED", "0") {
		if p.attrs["GPU_I_ID"] != nil {
			mig = append(mig, p)
		}
	}
	require.Len(t, mig, 2)
	assert.Equal(t, "1g.10gb", mig[0].attrs["GPU_I_PROFILE"])
	assert.Equal(t, "1", mig[0].attrs["GPU_I_ID"])
	assert.Equal(t, 1000.0, mig[0].value)
	assert.Equal(t, "3g.40gb", mig[1].attrs["GPU_I_PROFILE"])
	assert.Equal(t, "5", mig[1].attrs["GPU_I_ID"])
}

func startKubelet(t *testing.T, pods ...*podresourcesv1.PodResources) string {
	k, err := fakekubelet.Start(t.TempDir(), pods...)
	require.NoError(t, err)
	t.Cleanup(k.Stop)
	return k.Socket
}

var pod = fakekubelet.Pod

// Pods from the kubelet: GPU UUIDs, time-sliced ::N replicas, GKE nvidiaN names, MIG UUIDs
// and GKE nvidiaN/giM names.
func TestPodAttribution(t *testing.T) {
	a, b, g := h100State(), l4State(), h100State()
	g.UUID, g.Minor = "GPU-gke", 2
	node := newFakeNode(a, b, g)
	node.devices[0].MigMode = nvml.DEVICE_MIG_DISABLE
	sock := startKubelet(t,
		pod("ml-training", "llama-finetune-7d9f8b6c5d-x2kqp", "trainer", "nvidia.com/gpu", a.UUID),
		pod("inference", "vllm-a", "vllm", "nvidia.com/gpu", b.UUID+"::0"),
		pod("inference", "vllm-b", "vllm", "nvidia.com/gpu", b.UUID+"::1"),
		pod("gke", "job", "main", "nvidia.com/gpu", "nvidia2"),
		pod("other", "cpu-only", "main", "cpu", "0"),
	)
	cfg := testConfig(t)
	cfg.PodResourcesSocket = sock
	c, _ := newTestCollector(t, cfg, node)
	md, _, err := c.collect(context.Background(), time.Now())
	require.NoError(t, err)
	ps := points(md)
	owners := func(gpu string) []string {
		var out []string
		for _, p := range find(ps, "DCGM_FI_DEV_FB_USED", gpu) {
			out = append(out, p.attrs["namespace"].(string)+"/"+p.attrs["pod"].(string)+"/"+p.attrs["container"].(string))
		}
		sort.Strings(out)
		return out
	}
	assert.Equal(t, []string{"ml-training/llama-finetune-7d9f8b6c5d-x2kqp/trainer"}, owners("0"))
	assert.Equal(t, []string{"inference/vllm-a/vllm", "inference/vllm-b/vllm"}, owners("1"), "time-sliced: one series per pod")
	assert.Equal(t, []string{"gke/job/main"}, owners("2"))
}

func TestDeviceIDForms(t *testing.T) {
	cases := map[string]deviceKey{
		"GPU-8d2f":       "GPU-8d2f",
		"GPU-8d2f::3":    "GPU-8d2f",
		"MIG-1234":       "MIG-1234",
		"nvidia0":        "minor:0",
		"nvidia12/gi3":   "minor:12/gi:3",
		"nvidia1/gi2::1": "minor:1/gi:2",
	}
	for id, want := range cases {
		got, ok := keysFor(id)
		assert.True(t, ok, id)
		assert.Equal(t, want, got, id)
	}
	for _, bad := range []string{"0", "nvidiaX", "nvidia0/giX", ""} {
		_, ok := keysFor(bad)
		assert.False(t, ok, bad)
	}
}

// Pods holding GPUs through a DRA ResourceClaim of NVIDIA's DRA driver: the kubelet names the
// devices "gpu-<minor>" and, for MIG, "gpu-<minor>-mig-<profile name>-<profile ID>-<start>"
// (or, before the driver's dynamic MIG, "gpu-<minor>-mig-<profile ID>-<start>-<size>"), the
// driver's canonical names; a shared claim gives one series per pod, as time-slicing does;
// another driver's devices and the driver's VFIO devices are not GPUs read here.
func TestPodAttributionThroughDRA(t *testing.T) {
	a, b, m := h100State(), l4State(), h100State()
	b.Minor = 4 // the DRA name follows the minor number, not NVML's index
	m.UUID, m.Minor = "GPU-mig-parent", 7
	node := newFakeNode(a, b, m)
	node.devices[0].MigMode = nvml.DEVICE_MIG_DISABLE
	node.devices[1].MigMode = nvml.DEVICE_MIG_DISABLE
	parent := node.devices[2]
	parent.MigMode = nvml.DEVICE_MIG_ENABLE
	parent.GetMaxMigDeviceCountFunc = func() (int, nvml.Return) { return 2, nvml.SUCCESS }
	parent.GetMigDeviceHandleByIndexFunc = func(i int) (nvml.Device, nvml.Return) {
		return &mock.Device{
			GetGpuInstanceIdFunc: func() (int, nvml.Return) { return []int{3, 9}[i], nvml.SUCCESS },
			GetUUIDFunc:          func() (string, nvml.Return) { return []string{"MIG-cccc", "MIG-dddd"}[i], nvml.SUCCESS },
			GetNameFunc:          func() (string, nvml.Return) { return "NVIDIA H100 80GB HBM3 MIG 1g.10gb", nvml.SUCCESS },
			GetMemoryInfoFunc:    func() (nvml.Memory, nvml.Return) { return nvml.Memory{Used: 1 << 20}, nvml.SUCCESS },
		}, nvml.SUCCESS
	}
	parent.GetGpuInstanceByIdFunc = func(id int) (nvml.GpuInstance, nvml.Return) {
		start := map[int]uint32{3: 4, 9: 6}[id]
		return &mock.GpuInstance{GetInfoFunc: func() (nvml.GpuInstanceInfo, nvml.Return) {
			return nvml.GpuInstanceInfo{Id: uint32(id), ProfileId: 19, Placement: nvml.GpuInstancePlacement{Start: start, Size: 1}}, nvml.SUCCESS
		}}, nvml.SUCCESS
	}
	claim := fakekubelet.ClaimPod
	sock := startKubelet(t,
		claim("inference", "vllm-0", "vllm", "gpu.nvidia.com", "node-a", "gpu-0"),
		claim("inference", "sglang-0", "sglang", "gpu.nvidia.com", "node-a", "gpu-4"),
		claim("inference", "sglang-1", "sglang", "gpu.nvidia.com", "node-a", "gpu-4"),
		claim("batch", "embedder", "main", "gpu.nvidia.com", "node-a", "gpu-7-mig-1g10gb-19-6"),
		claim("batch", "reranker", "main", "gpu.nvidia.com", "node-a", "gpu-7-mig-19-6-1"), // the driver's names before dynamic MIG
		claim("other", "nic", "main", "dra.example.com", "node-a", "gpu-0"),
		claim("other", "vm", "main", "gpu.nvidia.com", "node-a", "gpu-vfio-0"),
	)
	cfg := testConfig(t)
	cfg.PodResourcesSocket = sock
	c, _ := newTestCollector(t, cfg, node)
	md, _, err := c.collect(context.Background(), time.Now())
	require.NoError(t, err)
	owners := func(gpu string, mig string) []string {
		var out []string
		for _, p := range find(points(md), "DCGM_FI_DEV_FB_USED", gpu) {
			if id, _ := p.attrs["GPU_I_ID"].(string); id != mig {
				continue
			}
			who := "none"
			if p.attrs["pod"] != nil {
				who = p.attrs["namespace"].(string) + "/" + p.attrs["pod"].(string) + "/" + p.attrs["container"].(string)
			}
			out = append(out, who)
		}
		sort.Strings(out)
		return out
	}
	assert.Equal(t, []string{"inference/vllm-0/vllm"}, owners("0", ""))
	assert.Equal(t, []string{"inference/sglang-0/sglang", "inference/sglang-1/sglang"}, owners("1", ""), "a shared claim: one series per pod")
	assert.Equal(t, []string{"batch/embedder/main", "batch/reranker/main"}, owners("2", "9"), "the MIG device at placement 6, by either name")
	assert.Equal(t, []string{"none"}, owners("2", "3"), "the MIG device no claim holds")

	// NVML answers placements only to a privileged user: without that, the MIG devices go
	// unattributed, the whole GPUs still are, and the log says why once.
	parent.GetGpuInstanceByIdFunc = func(int) (nvml.GpuInstance, nvml.Return) { return nil, nvml.ERROR_NO_PERMISSION }
	c, logs := newTestCollector(t, cfg, node)
	for range 2 {
		md, _, err = c.collect(context.Background(), time.Now())
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"none"}, owners("2", "9"))
	assert.Equal(t, []string{"inference/vllm-0/vllm"}, owners("0", ""))
	warned := logs.FilterMessageSnippet("MIG devices held through DRA claims are not attributed").All()
	require.Len(t, warned, 1)
	assert.Equal(t, nvml.ErrorString(nvml.ERROR_NO_PERMISSION), warned[0].ContextMap()["reason"])

	// Without a DRA claim on a MIG device, NVML is not asked (the mock would panic).
	parent.GetGpuInstanceByIdFunc = nil
	kubelet := startKubelet(t, claim("inference", "vllm-0", "vllm", "gpu.nvidia.com", "node-a", "gpu-0"),
		pod("batch", "embedder", "main", "nvidia.com/mig-1g.10gb", "MIG-dddd"))
	cfg.PodResourcesSocket = kubelet
	c, _ = newTestCollector(t, cfg, node)
	md, _, err = c.collect(context.Background(), time.Now())
	require.NoError(t, err)
	assert.Equal(t, []string{"batch/embedder/main"}, owners("2", "9"))
}

// The receiver starts, feeds the pipeline on its interval, and stops every goroutine
// (goleak checks in TestMain).
func TestReceiverLifecycle(t *testing.T) {
	node := newFakeNode(h100State())
	f := withNVML(node)
	cfg := testConfig(t)
	cfg.CollectionInterval = 20 * time.Millisecond
	sink := new(consumertest.MetricsSink)
	r, err := f.CreateMetrics(context.Background(), receivertest.NewNopSettings(metadata.Type), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, r.Start(context.Background(), componenttest.NewNopHost()))
	require.Eventually(t, func() bool { return len(sink.AllMetrics()) >= 3 }, 5*time.Second, 10*time.Millisecond)
	require.NoError(t, r.Shutdown(context.Background()))
	assert.Equal(t, node.allocs, node.freed, "every GPM sample freed")
}

// A GPU whose NVML calls stop answering (fallen off the bus, a wedged driver): the receiver
// says so once a collection outlasts its timeout, and stops at once instead of
// holding up the collector's shutdown and every reload; the collection, when NVML answers at
// last, sends nothing into the stopped pipeline.
func TestShutdownWhileNVMLHangs(t *testing.T) {
	node := newFakeNode(h100State())
	hung, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	temp := node.devices[0].GetTemperatureFunc
	node.devices[0].GetTemperatureFunc = func(s nvml.TemperatureSensors) (uint32, nvml.Return) {
		if calls.Add(1) == 3 { // the third collection
			close(hung)
			<-release
		}
		return temp(s)
	}

	cfg := testConfig(t)
	cfg.CollectionInterval = 20 * time.Millisecond
	core, logs := observer.New(zap.InfoLevel)
	set := receivertest.NewNopSettings(metadata.Type)
	set.Logger = zap.New(core)
	sink := new(consumertest.MetricsSink)
	cfg.Timeout = 200 * time.Millisecond
	r, s, err := newReceiver(set, cfg, sink, func(cfg *Config, logger *zap.Logger) collector { return newNVMLCollector(cfg, logger, node) })
	require.NoError(t, err)
	require.NoError(t, r.Start(context.Background(), componenttest.NewNopHost()))
	<-hung
	require.Eventually(t, func() bool {
		return logs.FilterMessageSnippet("longer than timeout: NVML is not answering").Len() == 1
	}, 5*time.Second, 10*time.Millisecond)

	stopped := make(chan error)
	go func() { stopped <- r.Shutdown(context.Background()) }()
	select {
	case err := <-stopped:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		close(release)
		t.Fatal("Shutdown waits for the NVML call")
	}
	assert.Equal(t, 1, logs.FilterMessageSnippet("waits for NVML, which does not answer").Len())
	sent := len(sink.AllMetrics())
	close(release)
	s.running.Wait() // the collection left behind returns
	assert.Len(t, sink.AllMetrics(), sent, "nothing sent after the stop")
}

// One collection of 8 GPUs (an HGX H200 node, from NVML's mock catalog): time and
// allocations.
func BenchmarkCollect8GPUs(b *testing.B) {
	states := make([]gpuState, 8)
	for i := range states {
		states[i] = h100State()
		states[i].Name = gpus.H200_SXM5_141GB.Name
		states[i].UUID = "GPU-" + strings.Repeat(string(rune('a'+i)), 8)
		states[i].Minor = i
	}
	node := newFakeNodeOf(gpus.H200_SXM5_141GB, states...)

	cfg := createDefaultConfig()
	cfg.PodResourcesSocket = filepath.Join(b.TempDir(), "none.sock")
	c := newNVMLCollector(cfg, zap.NewNop(), node)
	defer func() { _ = c.shutdown() }()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := c.collect(context.Background(), time.Now()); err != nil {
			b.Fatal(err)
		}
	}
}

var _ = pcommon.NewMap
