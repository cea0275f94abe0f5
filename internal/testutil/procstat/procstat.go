// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package procstat reads a Linux process's CPU time and memory from /proc (through
// prometheus/procfs), for the end-to-end tests and the whole-collector benchmark.
package procstat // import "github.com/modelplaneai/otelcol-modelplane/internal/testutil/procstat"

import "github.com/prometheus/procfs"

// Read returns the user plus system CPU seconds and the peak resident memory (VmHWM) in bytes
// of process pid.
func Read(pid int) (cpuSeconds float64, peakRSS int64, err error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0, 0, err
	}
	stat, err := p.Stat()
	if err != nil {
		return 0, 0, err
	}
	status, err := p.NewStatus()
	if err != nil {
		return 0, 0, err
	}
	return stat.CPUTime(), int64(status.VmHWM), nil
}

// Resident returns how much of process pid is resident now, split into anonymous memory (its
// heap, stacks and other private data) and file pages (mostly the mapped executable), in
// bytes. Peak RSS mixes the two; the anonymous part is what the process itself allocated.
func Resident(pid int) (anon, file int64, err error) {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return 0, 0, err
	}
	status, err := p.NewStatus()
	if err != nil {
		return 0, 0, err
	}
	return int64(status.RssAnon), int64(status.RssFile), nil
}
