// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

import (
	"github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig/probe"
)

// finding is what a probe found at a default address: the probed target whose page is served
// there, or why none is.
type finding struct {
	serves *probedTarget // nil: no page of ours
	why    string        // where serves is nil
	// notFound: something serves HTTP there, but no /metrics (an SGLang started without
	// --enable-metrics).
	notFound bool
}

// identifier tells, with p, whose page addr serves by its names (vllm:, sglang:, DCGM_FI_).
func identifier(p probe.Prober) func(addr string) finding {
	markers := make([]string, len(probedTargets))
	for i := range probedTargets {
		markers[i] = probedTargets[i].marker
	}
	return func(addr string) finding {
		switch r := p.Page(addr, markers); {
		case r.Prefix >= 0:
			return finding{serves: &probedTargets[r.Prefix]}
		case r.Why != "":
			return finding{why: r.Why, notFound: r.NotFound}
		}
		// "yet": an engine that sets its gauges only when it logs its stats may serve a page
		// without them at first; the watch looks again every interval.
		return finding{why: "its /metrics has no series of vLLM (vllm:), SGLang (sglang:) or a dcgm-exporter (DCGM_FI_) yet"}
	}
}
