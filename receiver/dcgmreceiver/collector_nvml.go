// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

//go:build cgo

package dcgmreceiver

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.uber.org/zap"

	"github.com/modelplaneai/otelcol-modelplane/internal/units"
	"github.com/modelplaneai/otelcol-modelplane/receiver/dcgmreceiver/internal/metadata"
)

// loadNVML loads the NVML library the configuration names, or the loader's.
func loadNVML(cfg *Config) nvml.Interface {
	if cfg.LibraryPath != "" {
		return nvml.New(nvml.WithLibraryPath(cfg.LibraryPath))
	}
	return nvml.New()
}

type nvmlCollector struct {
	cfg    *Config
	logger *zap.Logger
	lib    nvml.Interface
	pods   *podResources

	ready    bool
	nextTry  time.Time
	warned   bool
	driver   string
	hostname string
	start    pcommon.Timestamp

	mu     sync.Mutex
	logged map[string]bool // messages logged once
	gpm    map[string]nvml.GpmSample
	xid    *xidWatcher

	gpmFields []gpmField // read through GPM, from the config
}

func newCollector(cfg *Config, logger *zap.Logger) collector {
	return newNVMLCollector(cfg, logger, loadNVML(cfg))
}

// newNVMLCollector reads the GPUs through lib: the library, or a test's mock of it.
func newNVMLCollector(cfg *Config, logger *zap.Logger, lib nvml.Interface) *nvmlCollector {
	return &nvmlCollector{
		cfg:       cfg,
		logger:    logger,
		lib:       lib,
		pods:      &podResources{socket: cfg.PodResourcesSocket},
		hostname:  cfg.hostname(),
		logged:    map[string]bool{},
		gpm:       map[string]nvml.GpmSample{},
		gpmFields: enabledGPMFields(cfg),
	}
}

// once logs msg the first time key is seen.
func (c *nvmlCollector) once(key string, log func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.logged[key] {
		c.logged[key] = true
		log()
	}
}

// init loads NVML. Without a driver or library it warns once and retries on RetryInterval,
// so GPU series start on their own when the driver appears.
func (c *nvmlCollector) init(now time.Time) bool {
	if c.ready {
		return true
	}
	if now.Before(c.nextTry) {
		return false
	}
	ret := safeInit(c.lib)
	if ret != nvml.SUCCESS {
		c.nextTry = now.Add(c.cfg.RetryInterval)
		if !c.warned {
			c.warned = true
			fields := []zap.Field{zap.String("reason", nvml.ErrorString(ret)), zap.String("library_path", c.cfg.LibraryPath),
				zap.Duration("retry_interval", c.cfg.RetryInterval)}
			if ret == nvml.ERROR_LIBRARY_NOT_FOUND && os.Getenv("NVIDIA_VISIBLE_DEVICES") != "" {
				fields = append(fields, zap.String("hint", runtimeHint))
			}
			c.logger.Warn("NVML is not available: no GPU metrics from this host; will retry", fields...)
		}
		return false
	}
	c.ready = true
	c.driver, _ = c.lib.SystemGetDriverVersion()
	n, _ := c.lib.DeviceGetCount()
	c.start = pcommon.NewTimestampFromTime(now)
	c.logger.Info("NVML loaded", zap.String("driver", c.driver), zap.Int("gpus", n))
	if c.cfg.enabled(fieldByName["DCGM_FI_DEV_XID_ERRORS"]) {
		c.xid = watchXID(c.lib, c.logger)
	}
	return true
}

// runtimeHint says why a container asking the NVIDIA runtime for every GPU may find no driver
// library: the runtime ignored the request.
const runtimeHint = "NVIDIA_VISIBLE_DEVICES is set but the NVIDIA container runtime injected no driver: " +
	"it honours that variable in unprivileged containers only with accept-nvidia-visible-devices-envvar-when-unprivileged " +
	"(false on Bottlerocket by default), or the pod did not run under the nvidia RuntimeClass. " +
	"Run the container privileged (Helm chart: dcgm.nvml.privileged=true) or change that node setting"

// safeInit turns a failure to even load the library (which go-nvml reports by panicking on
// some systems) into an error code.
func safeInit(lib nvml.Interface) (ret nvml.Return) {
	defer func() {
		if r := recover(); r != nil {
			ret = nvml.ERROR_LIBRARY_NOT_FOUND
		}
	}()
	return lib.Init()
}

// gpu is what one collection knows about one device.
type gpu struct {
	dev     nvml.Device
	index   int
	uuid    string
	busID   string
	minor   int
	model   string
	util    *nvml.Utilization
	utilRet nvml.Return
	mem     *nvml.Memory_v2
	memRet  nvml.Return
	// correctable, uncorrectable, failure
	remappedRows [3]float64
	remapRet     nvml.Return
	remapped     bool
}

// collect reads every GPU once and says how many it read.
func (c *nvmlCollector) collect(ctx context.Context, now time.Time) (pmetric.Metrics, int, error) {
	md := pmetric.NewMetrics()
	if !c.init(now) {
		return md, 0, nil
	}
	count, ret := c.lib.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return md, 0, fmt.Errorf("nvml: device count: %s", nvml.ErrorString(ret))
	}
	var owners map[deviceKey][]owner
	if c.pods.available() {
		var err error
		if owners, err = c.pods.owners(ctx); err != nil {
			c.once("pods:"+err.Error(), func() { c.logger.Warn("No pod attribution this round", zap.Error(err)) })
		}
	}
	rm := md.ResourceMetrics().AppendEmpty()
	sm := rm.ScopeMetrics().AppendEmpty()
	sm.Scope().SetName(metadata.ScopeName)
	out := newEmitter(sm.Metrics(), c.start, pcommon.NewTimestampFromTime(now))
	read := 0
	for i := 0; i < count; i++ {
		dev, ret := c.lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			c.deviceProblem(strconv.Itoa(i), "handle", ret)
			continue
		}
		g, ok := c.describe(i, dev)
		if !ok {
			continue
		}
		c.collectDevice(g, owners, out)
		read++
	}
	return md, read, nil
}

// describe reads a device's identity. A lost GPU stops only its own series.
func (c *nvmlCollector) describe(i int, dev nvml.Device) (*gpu, bool) {
	g := &gpu{dev: dev, index: i}
	var ret nvml.Return
	if g.uuid, ret = dev.GetUUID(); ret != nvml.SUCCESS {
		c.deviceProblem(strconv.Itoa(i), "uuid", ret)
		return nil, false
	}
	if pci, ret := dev.GetPciInfo(); ret == nvml.SUCCESS {
		g.busID = cString(pci.BusId[:])
	}
	if g.minor, ret = dev.GetMinorNumber(); ret != nvml.SUCCESS {
		g.minor = i
	}
	g.model, _ = dev.GetName()
	return g, true
}

// deviceProblem logs a device-level failure once per device and reason.
func (c *nvmlCollector) deviceProblem(id, what string, ret nvml.Return) {
	msg := "Cannot read GPU"
	if ret == nvml.ERROR_GPU_IS_LOST {
		msg = "GPU is lost: its series stop until it is back"
	}
	c.once("dev:"+id+":"+nvml.ErrorString(ret), func() {
		c.logger.Warn(msg, zap.String("gpu", id), zap.String("reading", what), zap.String("reason", nvml.ErrorString(ret)))
	})
}

func (c *nvmlCollector) labels(g *gpu, attrs pcommon.Map) {
	attrs.PutStr("gpu", strconv.Itoa(g.index))
	attrs.PutStr("UUID", g.uuid)
	attrs.PutStr("pci_bus_id", g.busID)
	attrs.PutStr("device", "nvidia"+strconv.Itoa(g.minor))
	attrs.PutStr("modelName", g.model)
	attrs.PutStr("Hostname", c.hostname)
	attrs.PutStr("DCGM_FI_DRIVER_VERSION", c.driver)
}

func (c *nvmlCollector) collectDevice(g *gpu, owners map[deviceKey][]owner, out *emitter) {
	who := append(owners[deviceKey(g.uuid)], owners[minorKey(g.minor)]...)
	emit := func(f *field, v float64, extra func(pcommon.Map)) {
		out.point(f, v, func(attrs pcommon.Map) {
			c.labels(g, attrs)
			if extra != nil {
				extra(attrs)
			}
		}, who)
	}
	lost := false
	for i := range fields {
		f := &fields[i]
		if !c.cfg.enabled(f) || f.profiling {
			continue
		}
		if f.name == "DCGM_FI_DEV_XID_ERRORS" {
			if c.xid != nil {
				emit(f, c.xid.lastXID(g.uuid), nil)
			}
			continue
		}
		v, ret := read(f, g)
		switch ret {
		case nvml.SUCCESS:
			emit(f, v, nil)
		case nvml.ERROR_GPU_IS_LOST:
			lost = true
		default:
			c.unsupported(g, f, ret)
		}
		if lost {
			c.deviceProblem(g.uuid, f.name, ret)
			return
		}
	}
	if c.cfg.Profiling == ProfilingAuto {
		c.profile(g, emit)
	}
	c.collectMIG(g, owners, out)
}

// unsupported logs, once per GPU and field, that the GPU does not report the field.
func (c *nvmlCollector) unsupported(g *gpu, f *field, ret nvml.Return) {
	c.once("field:"+g.uuid+":"+f.name, func() {
		c.logger.Info("GPU does not report a field; skipping it for this GPU",
			zap.String("UUID", g.uuid), zap.String("field", f.name), zap.String("reason", nvml.ErrorString(ret)))
	})
}

// read returns one field of a device in dcgm-exporter's unit.
func read(f *field, g *gpu) (float64, nvml.Return) {
	d := g.dev
	u32 := func(v uint32, r nvml.Return) (float64, nvml.Return) { return float64(v), r }
	u64 := func(v uint64, r nvml.Return) (float64, nvml.Return) { return float64(v), r }
	switch f.name {
	case "DCGM_FI_DEV_SM_CLOCK":
		return u32(d.GetClockInfo(nvml.CLOCK_SM))
	case "DCGM_FI_DEV_MEM_CLOCK":
		return u32(d.GetClockInfo(nvml.CLOCK_MEM))
	case "DCGM_FI_DEV_MEMORY_TEMP":
		return fieldValue(d, nvml.FI_DEV_MEMORY_TEMP)
	case "DCGM_FI_DEV_GPU_TEMP":
		return u32(d.GetTemperature(nvml.TEMPERATURE_GPU))
	case "DCGM_FI_DEV_POWER_USAGE":
		mw, r := d.GetPowerUsage()
		return units.Milliwatts.Convert(float64(mw)), r
	case "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION":
		return u64(d.GetTotalEnergyConsumption())
	case "DCGM_FI_DEV_PCIE_REPLAY_COUNTER":
		v, r := d.GetPcieReplayCounter()
		return float64(v), r
	case "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL":
		if g.util == nil && g.utilRet == 0 {
			u, r := d.GetUtilizationRates()
			g.util, g.utilRet = &u, r
		}
		if f.name == "DCGM_FI_DEV_GPU_UTIL" {
			return float64(g.util.Gpu), g.utilRet
		}
		return float64(g.util.Memory), g.utilRet
	case "DCGM_FI_DEV_ENC_UTIL":
		v, _, r := d.GetEncoderUtilization()
		return float64(v), r
	case "DCGM_FI_DEV_DEC_UTIL":
		v, _, r := d.GetDecoderUtilization()
		return float64(v), r
	case "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_RESERVED":
		if g.mem == nil && g.memRet == 0 {
			m, r := d.GetMemoryInfo_v2()
			g.mem, g.memRet = &m, r
		}
		// dcgm-exporter reports whole MiB.
		mib := func(b uint64) float64 { return float64(b >> 20) }
		switch f.name {
		case "DCGM_FI_DEV_FB_FREE":
			return mib(g.mem.Free), g.memRet
		case "DCGM_FI_DEV_FB_USED":
			return mib(g.mem.Used), g.memRet
		}
		return mib(g.mem.Reserved), g.memRet
	case "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "DCGM_FI_DEV_ROW_REMAP_FAILURE":
		if !g.remapped {
			corr, unc, _, failed, r := d.GetRemappedRows()
			g.remapped, g.remapRet = true, r
			g.remappedRows = [3]float64{float64(corr), float64(unc), 0}
			if failed {
				g.remappedRows[2] = 1
			}
		}
		switch f.name {
		case "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS":
			return g.remappedRows[0], g.remapRet
		case "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS":
			return g.remappedRows[1], g.remapRet
		}
		return g.remappedRows[2], g.remapRet
	case "DCGM_FI_DEV_THERMAL_VIOLATION":
		v, r := d.GetViolationStatus(nvml.PERF_POLICY_THERMAL)
		return float64(v.ViolationTime), r
	case "DCGM_FI_DEV_POWER_VIOLATION":
		v, r := d.GetViolationStatus(nvml.PERF_POLICY_POWER)
		return float64(v.ViolationTime), r
	case "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL":
		return u64(d.GetTotalEccErrors(nvml.MEMORY_ERROR_TYPE_CORRECTED, nvml.VOLATILE_ECC))
	case "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL":
		return u64(d.GetTotalEccErrors(nvml.MEMORY_ERROR_TYPE_UNCORRECTED, nvml.VOLATILE_ECC))
	case "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL":
		return nvlinkTotal(d, nvml.NVLINK_ERROR_DL_CRC_FLIT)
	case "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL":
		return nvlinkTotal(d, nvml.NVLINK_ERROR_DL_CRC_DATA)
	case "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL":
		return nvlinkTotal(d, nvml.NVLINK_ERROR_DL_REPLAY)
	case "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL":
		return nvlinkTotal(d, nvml.NVLINK_ERROR_DL_RECOVERY)
	}
	return 0, nvml.ERROR_NOT_SUPPORTED
}

// fieldValue reads one NVML field value, of whichever number type the driver reports it in.
func fieldValue(d nvml.Device, id uint32) (float64, nvml.Return) {
	v := []nvml.FieldValue{{FieldId: id}}
	if ret := d.GetFieldValues(v); ret != nvml.SUCCESS {
		return 0, ret
	}
	if ret := nvml.Return(v[0].NvmlReturn); ret != nvml.SUCCESS {
		return 0, ret
	}
	raw := v[0].Value[:] // a C union, little-endian on every platform NVML ships for
	switch nvml.ValueType(v[0].ValueType) {
	case nvml.VALUE_TYPE_DOUBLE:
		return math.Float64frombits(binary.LittleEndian.Uint64(raw)), nvml.SUCCESS
	case nvml.VALUE_TYPE_UNSIGNED_INT:
		return float64(binary.LittleEndian.Uint32(raw)), nvml.SUCCESS
	case nvml.VALUE_TYPE_UNSIGNED_LONG, nvml.VALUE_TYPE_UNSIGNED_LONG_LONG:
		return float64(binary.LittleEndian.Uint64(raw)), nvml.SUCCESS
	case nvml.VALUE_TYPE_SIGNED_LONG_LONG:
		return float64(int64(binary.LittleEndian.Uint64(raw))), nvml.SUCCESS
	case nvml.VALUE_TYPE_SIGNED_INT:
		return float64(int32(binary.LittleEndian.Uint32(raw))), nvml.SUCCESS
	case nvml.VALUE_TYPE_UNSIGNED_SHORT:
		return float64(binary.LittleEndian.Uint16(raw)), nvml.SUCCESS
	}
	return 0, nvml.ERROR_NOT_SUPPORTED
}

// nvlinkTotal sums an error counter over every link the GPU has.
func nvlinkTotal(d nvml.Device, counter nvml.NvLinkErrorCounter) (float64, nvml.Return) {
	var total uint64
	links := 0
	for link := 0; link < nvml.NVLINK_MAX_LINKS; link++ {
		v, r := d.GetNvLinkErrorCounter(link, counter)
		if r == nvml.ERROR_GPU_IS_LOST {
			return 0, r
		}
		if r != nvml.SUCCESS {
			continue
		}
		total += v
		links++
	}
	if links == 0 {
		return 0, nvml.ERROR_NOT_SUPPORTED
	}
	return float64(total), nvml.SUCCESS
}

// profile reads DCGM_FI_PROF_* from GPU Performance Monitoring between this collection and
// the last (the first has none); GPUs without GPM get no ratios, and PCIe rates from NVML's
// throughput counter.
func (c *nvmlCollector) profile(g *gpu, emit func(*field, float64, func(pcommon.Map))) {
	ids := c.gpmFields
	if len(ids) == 0 { // every DCGM_FI_PROF_* field switched off: no sample to take
		return
	}
	support, ret := g.dev.GpmQueryDeviceSupport()
	if ret != nvml.SUCCESS || support.IsSupportedDevice == 0 {
		c.once("gpm:"+g.uuid, func() {
			c.logger.Info("GPU has no GPU Performance Monitoring: no DCGM_FI_PROF_* activity ratios for it; PCIe rates from NVML's 20 ms PCIe throughput sample", zap.String("UUID", g.uuid))
		})
		c.pcieThroughput(g, emit)
		return
	}
	sample, ret := c.lib.GpmSampleAlloc()
	if ret != nvml.SUCCESS {
		return
	}
	if ret := g.dev.GpmSampleGet(sample); ret != nvml.SUCCESS {
		_ = sample.Free()
		return
	}
	prev, ok := c.gpm[g.uuid]
	c.gpm[g.uuid] = sample
	if !ok {
		return
	}
	defer func() { _ = prev.Free() }()
	get := &nvml.GpmMetricsGetType{Version: nvml.GPM_METRICS_GET_VERSION, NumMetrics: uint32(len(ids)), Sample1: prev, Sample2: sample}
	for i, m := range ids {
		get.Metrics[i].MetricId = uint32(m.id)
	}
	if ret := c.lib.GpmMetricsGet(get); ret != nvml.SUCCESS {
		return
	}
	for i, m := range ids {
		// A GPU without NVLink, say, refuses that metric alone.
		if nvml.Return(get.Metrics[i].NvmlReturn) != nvml.SUCCESS {
			continue
		}
		emit(m.field, m.unit.Convert(get.Metrics[i].Value), nil)
	}
}

// gpmField is a DCGM_FI_PROF_* field and the GPM metric it is read from.
type gpmField struct {
	id    nvml.GpmMetricId
	field *field
	unit  units.Unit // GPM's unit: percent or MiB/s, for DCGM's 0..1 ratios and bytes per second
}

var gpmFieldsAll = []gpmField{
	{nvml.GPM_METRIC_GRAPHICS_UTIL, fieldByName["DCGM_FI_PROF_GR_ENGINE_ACTIVE"], units.Percent},
	{nvml.GPM_METRIC_ANY_TENSOR_UTIL, fieldByName["DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"], units.Percent},
	{nvml.GPM_METRIC_DRAM_BW_UTIL, fieldByName["DCGM_FI_PROF_DRAM_ACTIVE"], units.Percent},
	{nvml.GPM_METRIC_PCIE_TX_PER_SEC, fieldByName["DCGM_FI_PROF_PCIE_TX_BYTES"], units.Mebibytes},
	{nvml.GPM_METRIC_PCIE_RX_PER_SEC, fieldByName["DCGM_FI_PROF_PCIE_RX_BYTES"], units.Mebibytes},
	{nvml.GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, fieldByName["DCGM_FI_PROF_NVLINK_TX_BYTES"], units.Mebibytes},
	{nvml.GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, fieldByName["DCGM_FI_PROF_NVLINK_RX_BYTES"], units.Mebibytes},
}

// enabledGPMFields are the GPM metrics of the fields cfg enables: GPM computes only what is
// asked.
func enabledGPMFields(cfg *Config) []gpmField {
	var out []gpmField
	for _, m := range gpmFieldsAll {
		if cfg.enabled(m.field) {
			out = append(out, m)
		}
	}
	return out
}

// pcieThroughput reads the PCIe rates of a GPU without GPM from NVML's PCIe throughput
// counter, which samples 20 ms per call and reports KiB/s: noisier than DCGM's averaged rate,
// but the same unit and meaning.
func (c *nvmlCollector) pcieThroughput(g *gpu, emit func(*field, float64, func(pcommon.Map))) {
	for _, m := range []struct {
		counter nvml.PcieUtilCounter
		field   string
	}{
		{nvml.PCIE_UTIL_TX_BYTES, "DCGM_FI_PROF_PCIE_TX_BYTES"},
		{nvml.PCIE_UTIL_RX_BYTES, "DCGM_FI_PROF_PCIE_RX_BYTES"},
	} {
		f := fieldByName[m.field]
		if !c.cfg.enabled(f) {
			continue
		}
		v, ret := g.dev.GetPcieThroughput(m.counter)
		if ret != nvml.SUCCESS {
			c.unsupported(g, f, ret)
			continue
		}
		emit(f, units.Kibibytes.Convert(float64(v)), nil)
	}
}

// collectMIG emits framebuffer use per MIG instance, labelled as dcgm-exporter does.
func (c *nvmlCollector) collectMIG(g *gpu, owners map[deviceKey][]owner, out *emitter) {
	current, _, ret := g.dev.GetMigMode()
	if ret != nvml.SUCCESS || current != nvml.DEVICE_MIG_ENABLE {
		return
	}
	max, ret := g.dev.GetMaxMigDeviceCount()
	if ret != nvml.SUCCESS {
		return
	}
	byPlacement := draMIGClaimed(owners, g.minor)
	for i := 0; i < max; i++ {
		mig, ret := g.dev.GetMigDeviceHandleByIndex(i)
		if ret != nvml.SUCCESS {
			continue
		}
		gi, ret := mig.GetGpuInstanceId()
		if ret != nvml.SUCCESS {
			continue
		}
		migUUID, _ := mig.GetUUID()
		name, _ := mig.GetName()
		profile := name
		if j := strings.LastIndex(name, "MIG "); j >= 0 {
			profile = name[j+4:]
		}
		mem, ret := mig.GetMemoryInfo()
		if ret != nvml.SUCCESS {
			continue
		}
		who := append(owners[deviceKey(migUUID)], owners[migMinorKey(g.minor, gi)]...)
		if byPlacement {
			who = append(who, c.draMIGOwners(g, gi, owners)...)
		}
		extra := func(attrs pcommon.Map) {
			c.labels(g, attrs)
			attrs.PutStr("GPU_I_PROFILE", profile)
			attrs.PutStr("GPU_I_ID", strconv.Itoa(gi))
		}
		for _, f := range []struct {
			name string
			v    uint64
		}{{"DCGM_FI_DEV_FB_USED", mem.Used}, {"DCGM_FI_DEV_FB_FREE", mem.Free}} {
			if fd := fieldByName[f.name]; c.cfg.enabled(fd) {
				out.point(fd, float64(f.v>>20), extra, who)
			}
		}
	}
}

// draMIGClaimed tells whether a DRA claim names a MIG device of the GPU with this minor
// number: only then is NVML asked for placements, a call for privileged users.
func draMIGClaimed(owners map[deviceKey][]owner, minor int) bool {
	prefix := string(minorKey(minor)) + "/mig:"
	for k := range owners {
		if strings.HasPrefix(string(k), prefix) {
			return true
		}
	}
	return false
}

// draMIGOwners returns who holds GPU instance gi through NVIDIA's DRA driver, which names a
// MIG device by its profile and placement start. NVML answers those only to a privileged
// user; without that the MIG device's series carry no pod, and the log says why once.
func (c *nvmlCollector) draMIGOwners(g *gpu, gi int, owners map[deviceKey][]owner) []owner {
	inst, ret := g.dev.GetGpuInstanceById(gi)
	var info nvml.GpuInstanceInfo
	if ret == nvml.SUCCESS {
		info, ret = inst.GetInfo()
	}
	if ret != nvml.SUCCESS {
		c.once("dra-mig:"+g.uuid+":"+nvml.ErrorString(ret), func() {
			c.logger.Warn("Cannot read MIG placements: MIG devices held through DRA claims are not attributed to pods",
				zap.String("gpu", strconv.Itoa(g.index)), zap.String("reason", nvml.ErrorString(ret)))
		})
		return nil
	}
	return owners[migPlacementKey(g.minor, info.ProfileId, info.Placement.Start)]
}

// pause forgets the GPM samples, so that the first collection after a pause has no
// profiling fields, as after start, rather than rates averaged over the whole pause.
func (c *nvmlCollector) pause() {
	for uuid, s := range c.gpm {
		_ = s.Free()
		delete(c.gpm, uuid)
	}
}

func (c *nvmlCollector) shutdown() error {
	if c.xid != nil {
		c.xid.close()
		c.xid = nil
	}
	c.pause()
	err := c.pods.close()
	if c.ready {
		c.ready = false
		if ret := c.lib.Shutdown(); ret != nvml.SUCCESS && err == nil {
			err = fmt.Errorf("nvml: shutdown: %s", nvml.ErrorString(ret))
		}
	}
	return err
}

func cString(b []int8) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}
