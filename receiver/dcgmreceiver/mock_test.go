// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

//go:build cgo

package dcgmreceiver

import (
	"encoding/binary"
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/gpus"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
)

// gpuState is one simulated GPU reading, in NVML's units.
type gpuState struct {
	UUID, BusID, Name string
	Minor             int
	SMClock, MemClock uint32
	Temp              uint32
	MemTemp           uint32
	PowerMW           uint32
	EnergyMJ          uint64
	GPUUtil, MemUtil  uint32
	UsedMiB, FreeMiB  uint64
	ReservedMiB       uint64
	// GPM readings, by gpmIndex: three activity percentages, then PCIe TX and RX and NVLink
	// TX and RX in MiB/s; nil means the GPU has no GPU Performance Monitoring.
	GPM *[7]float64
	// PCIe TX and RX from NVML's PCIe throughput counter, in KiB/s.
	PcieKiBs [2]uint32
	// Unsupported lists fields the GPU does not report.
	Unsupported map[string]bool
	Lost        bool
}

// h100State is GPU 0 of testdata/exposition/dcgm-exporter.prom.
func h100State() gpuState {
	return gpuState{
		UUID: "GPU-8d2f4a61-3c7e-9b15-2e44-71f0a9c35b2d", BusID: "00000000:18:00.0", Name: "NVIDIA H100 80GB HBM3", Minor: 0,
		SMClock: 1980, MemClock: 2619, Temp: 58, MemTemp: 66, PowerMW: 512347, EnergyMJ: 873291774214,
		GPUUtil: 97, MemUtil: 41, UsedMiB: 61245, FreeMiB: 19785, ReservedMiB: 529,
		GPM:      &[7]float64{96.2318, 48.7152, 41.2907, 1839201.0 / (1 << 20), 48299382.0 / (1 << 20), 1024, 512.5},
		PcieKiBs: [2]uint32{1796, 47167},
	}
}

// l4State is GPU 1 of the same page.
func l4State() gpuState {
	return gpuState{
		UUID: "GPU-1f6c0b93-7a2e-4d58-b0c1-93e7d5a2f614", BusID: "00000000:3B:00.0", Name: "NVIDIA L4", Minor: 1,
		SMClock: 2040, MemClock: 6250, Temp: 63, MemTemp: 0, PowerMW: 61873, EnergyMJ: 41903361207,
		GPUUtil: 74, MemUtil: 38, UsedMiB: 18250, FreeMiB: 4314, ReservedMiB: 470,
		GPM:      &[7]float64{73.1205, 21.284, 35.5719, 3912640.0 / (1 << 20), 7311872.0 / (1 << 20), 0, 0},
		PcieKiBs: [2]uint32{3821, 7140},
	}
}

// fakeNode is NVML's mock server with GPUs in given states.
type fakeNode struct {
	*server.Server
	mu      sync.Mutex
	states  []gpuState
	devices []*server.Device
	freed   int
	allocs  int
}

func newFakeNode(states ...gpuState) *fakeNode {
	return newFakeNodeOf(gpus.H100_SXM5_80GB, states...)
}

// newFakeNodeOf is a node of one GPU model from NVML's mock catalog (H100, H200, ...).
func newFakeNodeOf(model gpus.Config, states ...gpuState) *fakeNode {
	cfgs := make([]gpus.Config, len(states))
	for i := range states {
		cfgs[i] = model
	}
	srv, _ := server.New(server.WithGPUs(cfgs...), server.WithDriverVersion("580.95.05"))
	n := &fakeNode{Server: srv, states: states}
	for i := range states {
		d := srv.Devices[i].(*server.Device)
		n.devices = append(n.devices, d)
		n.wire(i, d)
	}
	n.GpmSampleAllocFunc = func() (nvml.GpmSample, nvml.Return) {
		n.mu.Lock()
		n.allocs++
		n.mu.Unlock()
		return &mock.GpmSample{FreeFunc: func() nvml.Return {
			n.mu.Lock()
			n.freed++
			n.mu.Unlock()
			return nvml.SUCCESS
		}}, nvml.SUCCESS
	}
	n.GpmMetricsGetFunc = func(g *nvml.GpmMetricsGetType) nvml.Return {
		// The samples carry no data in the mock: the device that took Sample2 is found by
		// the receiver's order, so report the values of the device being read.
		st := n.states[n.current()]
		for i := 0; i < int(g.NumMetrics); i++ {
			j, ok := gpmIndex[nvml.GpmMetricId(g.Metrics[i].MetricId)]
			if !ok {
				g.Metrics[i].NvmlReturn = uint32(nvml.ERROR_NOT_SUPPORTED)
				continue
			}
			g.Metrics[i].Value = st.GPM[j]
		}
		return nvml.SUCCESS
	}
	return n
}

// gpmIndex places each GPM metric the receiver asks for in gpuState.GPM.
var gpmIndex = map[nvml.GpmMetricId]int{
	nvml.GPM_METRIC_GRAPHICS_UTIL:   0,
	nvml.GPM_METRIC_ANY_TENSOR_UTIL: 1,
	nvml.GPM_METRIC_DRAM_BW_UTIL:    2,
	nvml.GPM_METRIC_PCIE_TX_PER_SEC: 3,
	nvml.GPM_METRIC_PCIE_RX_PER_SEC: 4,

	nvml.GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC: 5,
	nvml.GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC: 6,
}

var lastGPMDevice = -1

func (n *fakeNode) current() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return lastGPMDevice
}

func (n *fakeNode) wire(i int, d *server.Device) {
	st := func() gpuState { n.mu.Lock(); defer n.mu.Unlock(); return n.states[i] }
	s := st()
	d.UUID, d.PciBusID, d.Minor = s.UUID, s.BusID, s.Minor
	d.Config.Name = s.Name
	ret := func(field string) nvml.Return {
		s := st()
		switch {
		case s.Lost:
			return nvml.ERROR_GPU_IS_LOST
		case s.Unsupported[field]:
			return nvml.ERROR_NOT_SUPPORTED
		}
		return nvml.SUCCESS
	}
	d.GetUUIDFunc = func() (string, nvml.Return) {
		if st().Lost {
			return "", nvml.ERROR_GPU_IS_LOST
		}
		return st().UUID, nvml.SUCCESS
	}
	d.GetPciInfoFunc = func() (nvml.PciInfo, nvml.Return) {
		var p nvml.PciInfo
		for j, c := range []byte(st().BusID) {
			p.BusId[j] = int8(c)
		}
		return p, nvml.SUCCESS
	}
	d.GetClockInfoFunc = func(t nvml.ClockType) (uint32, nvml.Return) {
		if t == nvml.CLOCK_SM {
			return st().SMClock, ret("DCGM_FI_DEV_SM_CLOCK")
		}
		return st().MemClock, ret("DCGM_FI_DEV_MEM_CLOCK")
	}
	d.GetTemperatureFunc = func(nvml.TemperatureSensors) (uint32, nvml.Return) { return st().Temp, ret("DCGM_FI_DEV_GPU_TEMP") }
	d.GetFieldValuesFunc = func(values []nvml.FieldValue) nvml.Return {
		if st().Lost {
			return nvml.ERROR_GPU_IS_LOST
		}
		for i := range values {
			if values[i].FieldId != nvml.FI_DEV_MEMORY_TEMP {
				values[i].NvmlReturn = uint32(nvml.ERROR_NOT_SUPPORTED)
				continue
			}
			values[i].NvmlReturn = uint32(ret("DCGM_FI_DEV_MEMORY_TEMP"))
			values[i].ValueType = uint32(nvml.VALUE_TYPE_UNSIGNED_INT)
			binary.LittleEndian.PutUint32(values[i].Value[:], st().MemTemp)
		}
		return nvml.SUCCESS
	}
	d.GetPcieThroughputFunc = func(c nvml.PcieUtilCounter) (uint32, nvml.Return) {
		return st().PcieKiBs[c], ret("DCGM_FI_PROF_PCIE_TX_BYTES")
	}
	d.GetPowerUsageFunc = func() (uint32, nvml.Return) { return st().PowerMW, ret("DCGM_FI_DEV_POWER_USAGE") }
	d.GetTotalEnergyConsumptionFunc = func() (uint64, nvml.Return) {
		return st().EnergyMJ, ret("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION")
	}
	d.GetPcieReplayCounterFunc = func() (int, nvml.Return) { return 0, ret("DCGM_FI_DEV_PCIE_REPLAY_COUNTER") }
	d.GetUtilizationRatesFunc = func() (nvml.Utilization, nvml.Return) {
		return nvml.Utilization{Gpu: st().GPUUtil, Memory: st().MemUtil}, ret("DCGM_FI_DEV_GPU_UTIL")
	}
	d.GetEncoderUtilizationFunc = func() (uint32, uint32, nvml.Return) { return 0, 0, ret("DCGM_FI_DEV_ENC_UTIL") }
	d.GetDecoderUtilizationFunc = func() (uint32, uint32, nvml.Return) { return 0, 0, ret("DCGM_FI_DEV_DEC_UTIL") }
	d.GetMemoryInfo_v2Func = func() (nvml.Memory_v2, nvml.Return) {
		s := st()
		return nvml.Memory_v2{Used: s.UsedMiB << 20, Free: s.FreeMiB << 20, Reserved: s.ReservedMiB << 20, Total: (s.UsedMiB + s.FreeMiB + s.ReservedMiB) << 20}, ret("DCGM_FI_DEV_FB_USED")
	}
	d.GetRemappedRowsFunc = func() (int, int, bool, bool, nvml.Return) {
		return 0, 0, false, false, ret("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS")
	}
	d.GetViolationStatusFunc = func(p nvml.PerfPolicyType) (nvml.ViolationTime, nvml.Return) {
		if p == nvml.PERF_POLICY_THERMAL {
			return nvml.ViolationTime{ViolationTime: 1_500_000_000}, ret("DCGM_FI_DEV_THERMAL_VIOLATION")
		}
		return nvml.ViolationTime{ViolationTime: 2_000}, ret("DCGM_FI_DEV_POWER_VIOLATION")
	}
	d.GetTotalEccErrorsFunc = func(t nvml.MemoryErrorType, _ nvml.EccCounterType) (uint64, nvml.Return) {
		if t == nvml.MEMORY_ERROR_TYPE_CORRECTED {
			return 3, ret("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL")
		}
		return 1, ret("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL")
	}
	d.GetNvLinkErrorCounterFunc = func(link int, _ nvml.NvLinkErrorCounter) (uint64, nvml.Return) {
		if link >= 18 {
			return 0, nvml.ERROR_INVALID_ARGUMENT
		}
		return 2, ret("DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL")
	}
	d.GpmQueryDeviceSupportFunc = func() (nvml.GpmSupport, nvml.Return) {
		if st().GPM == nil {
			return nvml.GpmSupport{IsSupportedDevice: 0}, nvml.SUCCESS
		}
		return nvml.GpmSupport{IsSupportedDevice: 1}, nvml.SUCCESS
	}
	d.GpmSampleGetFunc = func(nvml.GpmSample) nvml.Return {
		n.mu.Lock()
		lastGPMDevice = i
		n.mu.Unlock()
		return nvml.SUCCESS
	}
}

// set changes a GPU's state between collections.
func (n *fakeNode) set(i int, f func(*gpuState)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	f(&n.states[i])
}
