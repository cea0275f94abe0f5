// Package procstat reads a Linux process's CPU time and peak memory from /proc, for the
// end-to-end tests and the whole-collector benchmark.
package procstat // import "github.com/modelplaneai/otelcol-modelplane/internal/procstat"

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// userHZ is the unit of /proc/<pid>/stat times on Linux.
const userHZ = 100

// Read returns the user plus system CPU seconds and the peak resident memory (VmHWM) in bytes
// of process pid.
func Read(pid int) (cpuSeconds float64, peakRSS int64, err error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// The fields after the command name, which is in parentheses and may hold spaces.
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 || end+2 > len(stat) {
		return 0, 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(string(stat[end+2:]))
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	m, err := status(pid, "VmHWM")
	if err != nil {
		return 0, 0, err
	}
	peakRSS = m["VmHWM"]
	return (utime + stime) / userHZ, peakRSS, nil
}

// Resident returns how much of process pid is resident now, split into anonymous memory (its
// heap, stacks and other private data) and file pages (mostly the mapped executable), in
// bytes. Peak RSS mixes the two; the file pages depend on what the page cache holds and the
// kernel maps ahead of a fault, the anonymous part is what the process itself allocated.
func Resident(pid int) (anon, file int64, err error) {
	m, err := status(pid, "RssAnon", "RssFile")
	if err != nil {
		return 0, 0, err
	}
	return m["RssAnon"], m["RssFile"], nil
}

// status reads the named kB fields of /proc/<pid>/status, in bytes.
func status(pid int, fields ...string) (map[string]int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(fields))
	for _, l := range strings.Split(string(raw), "\n") {
		name, v, ok := strings.Cut(l, ":")
		if !ok || !slices.Contains(fields, name) {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("/proc/%d/status: %s: %w", pid, name, err)
		}
		out[name] = kb * 1024
	}
	for _, f := range fields {
		if _, ok := out[f]; !ok {
			return nil, fmt.Errorf("/proc/%d/status: no %s", pid, f)
		}
	}
	return out, nil
}
