// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package dcgmreceiver

// field is one metric of the dcgm-exporter surface.
type field struct {
	name      string
	help      string // dcgm-exporter's HELP text, with the unit as it prints it
	counter   bool
	defaultOn bool
	profiling bool // read through GPU Performance Monitoring
}

// fields are dcgm-exporter's default counters (4.x up to 4.8 names and units), then the
// opt-in ones. The receiver emits them under these names, types and units, so the same
// mappings serve a scraped dcgm-exporter and this receiver.
var fields = []field{
	{name: "DCGM_FI_DEV_SM_CLOCK", help: "SM clock frequency (in MHz).", defaultOn: true},
	{name: "DCGM_FI_DEV_MEM_CLOCK", help: "Memory clock frequency (in MHz).", defaultOn: true},
	{name: "DCGM_FI_DEV_MEMORY_TEMP", help: "Memory temperature (in C).", defaultOn: true},
	{name: "DCGM_FI_DEV_GPU_TEMP", help: "GPU temperature (in C).", defaultOn: true},
	{name: "DCGM_FI_DEV_POWER_USAGE", help: "Power draw (in W).", defaultOn: true},
	{name: "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", help: "Total energy consumption since boot (in mJ).", counter: true, defaultOn: true},
	{name: "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", help: "Total number of PCIe retries.", counter: true, defaultOn: true},
	{name: "DCGM_FI_DEV_GPU_UTIL", help: "GPU utilization (in %).", defaultOn: true},
	{name: "DCGM_FI_DEV_MEM_COPY_UTIL", help: "Memory utilization (in %).", defaultOn: true},
	{name: "DCGM_FI_DEV_ENC_UTIL", help: "Encoder utilization (in %).", defaultOn: true},
	{name: "DCGM_FI_DEV_DEC_UTIL", help: "Decoder utilization (in %).", defaultOn: true},
	{name: "DCGM_FI_DEV_FB_FREE", help: "Framebuffer memory free (in MiB).", defaultOn: true},
	{name: "DCGM_FI_DEV_FB_USED", help: "Framebuffer memory used (in MiB).", defaultOn: true},
	{name: "DCGM_FI_DEV_FB_RESERVED", help: "Framebuffer memory reserved (in MiB).", defaultOn: true},
	{name: "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", help: "Number of remapped rows for uncorrectable errors", counter: true, defaultOn: true},
	{name: "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", help: "Number of remapped rows for correctable errors", counter: true, defaultOn: true},
	{name: "DCGM_FI_DEV_ROW_REMAP_FAILURE", help: "Whether remapping of rows has failed", defaultOn: true},
	{name: "DCGM_FI_PROF_GR_ENGINE_ACTIVE", help: "Ratio of time the graphics engine is active.", defaultOn: true, profiling: true},
	{name: "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", help: "Ratio of cycles the tensor (HMMA) pipe is active.", defaultOn: true, profiling: true},
	{name: "DCGM_FI_PROF_DRAM_ACTIVE", help: "Ratio of cycles the device memory interface is active sending or receiving data.", defaultOn: true, profiling: true},
	{name: "DCGM_FI_PROF_PCIE_TX_BYTES", help: "The rate of data transmitted over the PCIe bus - including both protocol headers and data payloads - in bytes per second.", defaultOn: true, profiling: true},
	{name: "DCGM_FI_PROF_PCIE_RX_BYTES", help: "The rate of data received over the PCIe bus - including both protocol headers and data payloads - in bytes per second.", defaultOn: true, profiling: true},
	// Not in dcgm-exporter's default list, on here: one NVML call each, and what the shipped
	// alerts for thermal throttling and uncorrectable ECC errors read.
	{name: "DCGM_FI_DEV_THERMAL_VIOLATION", help: "Throttling duration due to thermal constraints (in ns).", counter: true, defaultOn: true},
	{name: "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", help: "Total number of single-bit volatile ECC errors.", counter: true, defaultOn: true},
	{name: "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", help: "Total number of double-bit volatile ECC errors.", counter: true, defaultOn: true},
	// Opt-in.
	{name: "DCGM_FI_DEV_POWER_VIOLATION", help: "Throttling duration due to power constraints (in ns).", counter: true},
	{name: "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", help: "Total number of NVLink flow-control CRC errors.", counter: true},
	{name: "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", help: "Total number of NVLink data CRC errors.", counter: true},
	{name: "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", help: "Total number of NVLink retries.", counter: true},
	{name: "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", help: "Total number of NVLink recovery errors.", counter: true},
	{name: "DCGM_FI_DEV_XID_ERRORS", help: "Value of the last XID error encountered."},
	{name: "DCGM_FI_PROF_NVLINK_TX_BYTES", help: "The rate of data transmitted over NVLink, not including protocol headers, in bytes per second.", profiling: true},
	{name: "DCGM_FI_PROF_NVLINK_RX_BYTES", help: "The rate of data received over NVLink, not including protocol headers, in bytes per second.", profiling: true},
}

var fieldByName = func() map[string]*field {
	m := make(map[string]*field, len(fields))
	for i := range fields {
		m[fields[i].name] = &fields[i]
	}
	return m
}()

// DefaultFields are the names of the fields read without configuration, in emission order.
func DefaultFields() []string { return fieldNames(true) }

// OptInFields are the names of the fields a `metrics` entry must enable.
func OptInFields() []string { return fieldNames(false) }

func fieldNames(defaultOn bool) []string {
	var names []string
	for i := range fields {
		if fields[i].defaultOn == defaultOn {
			names = append(names, fields[i].name)
		}
	}
	return names
}
