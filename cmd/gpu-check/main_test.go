// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/modelplaneai/otelcol-modelplane/receiver/dcgmreceiver"
)

// collection is what the receiver sends for one GPU that reports framebuffer and energy only.
func collection() pmetric.Metrics {
	md := pmetric.NewMetrics()
	ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	labels := func(attrs pcommon.Map) {
		attrs.PutStr("gpu", "0")
		attrs.PutStr("UUID", "GPU-1")
		attrs.PutStr("modelName", "NVIDIA H200")
		attrs.PutStr("Hostname", "node-a")
	}
	fb := ms.AppendEmpty()
	fb.SetName("DCGM_FI_DEV_FB_USED")
	dp := fb.SetEmptyGauge().DataPoints().AppendEmpty()
	dp.SetDoubleValue(1024)
	labels(dp.Attributes())
	energy := ms.AppendEmpty()
	energy.SetName("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION")
	sum := energy.SetEmptySum()
	sum.SetIsMonotonic(true)
	sum.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
	dp = sum.DataPoints().AppendEmpty()
	dp.SetDoubleValue(1500)
	labels(dp.Attributes())
	return md
}

func TestPrintFields(t *testing.T) {
	var out bytes.Buffer
	printFields(&out, collection(), true)
	got := out.String()
	for _, want := range []string{
		"gpu 0: NVIDIA H200 UUID=GPU-1",
		"DCGM_FI_DEV_FB_USED                            1024",
		"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION           1500",
		"DCGM_FI_DEV_GPU_TEMP                           absent",
		"DCGM_FI_DEV_XID_ERRORS                         absent",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n"); n < len(dcgmreceiver.DefaultFields())+len(dcgmreceiver.OptInFields()) {
		t.Errorf("want a row per field, got %d lines", n)
	}
}

func TestPrintMapped(t *testing.T) {
	var out bytes.Buffer
	if err := printMapped(context.Background(), &out, componenttest.NewNopTelemetrySettings(), collection()); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"after the built-in mappings (2 series):",
		`modelplane_energy_joules_total{Hostname="node-a",UUID="GPU-1",gpu="0",modelName="NVIDIA H200"} 1.5  [J]`,
		`modelplane_gpu_memory_used_bytes{Hostname="node-a",UUID="GPU-1",gpu="0",modelName="NVIDIA H200"} 1.073741824e+09  [By]`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}
