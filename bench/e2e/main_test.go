// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

//go:build linux

package main

import "testing"

func TestRatiosMeanAndPairedRange(t *testing.T) {
	var rs ratios
	rs.add("ours", 0, result{cpu: 1, peakRSS: 60})
	rs.add("reference", 0, result{cpu: 2, peakRSS: 80})
	rs.add("ours", 1, result{cpu: 3, peakRSS: 60})
	rs.add("reference", 1, result{cpu: 4, peakRSS: 80})
	// Means 2 over 3; pairs 1/2 and 3/4.
	if got, want := rs.of(cpuWhole), "0.67x (0.50-0.75)"; got != want {
		t.Errorf("CPU: got %q, want %q", got, want)
	}
	// A third pair, 4/2 (a run of ours the machine slowed): the mean follows
	// it, the median pair does not.
	rs.add("ours", 2, result{cpu: 4, peakRSS: 60})
	rs.add("reference", 2, result{cpu: 2, peakRSS: 80})
	if got, want := rs.of(cpuWhole), "1.00x (0.50-2.00, median 0.75)"; got != want {
		t.Errorf("CPU: got %q, want %q", got, want)
	}
	if got, want := rs.of(rssPeak), "0.75x (0.75-0.75, median 0.75)"; got != want {
		t.Errorf("RSS: got %q, want %q", got, want)
	}
}

func TestRatiosWithoutAPair(t *testing.T) {
	var rs ratios
	if got := rs.of(cpuWhole); got != "n/a" {
		t.Errorf("no runs: got %q, want n/a", got)
	}
	// A profiled run is left out, so a repetition may have one collector only: the means
	// still count it, the range does not.
	rs.add("ours", 0, result{cpu: 1})
	rs.add("reference", 1, result{cpu: 2})
	if got, want := rs.of(cpuWhole), "0.50x"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A measure the reference never reports (CPU after first export at idle) is n/a, not Inf.
	if got := rs.of(cpuAfterFirst); got != "n/a" {
		t.Errorf("zero reference: got %q, want n/a", got)
	}
}

func TestKeptLinesIsTheConvertersKeepRule(t *testing.T) {
	t.Chdir("../..") // the driver runs from the repository root
	keep, err := keptLines()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		"vllm:num_requests_running":               true, // a gauge a mapping reads
		"vllm:e2e_request_latency_seconds_bucket": true, // a histogram's series
		"vllm:e2e_request_latency_seconds_count":  true,
		"DCGM_FI_DEV_FB_USED":                     true,
		"modelplane_requests_waiting":             true,
		"vllm:cache_config_info":                  false, // on the page, read by no mapping
		"llm_d_epp_request_ttft_seconds_bucket":   false,
	} {
		if got := keep(name); got != want {
			t.Errorf("%s: kept %v, want %v", name, got, want)
		}
	}
}
