// Package procstat reads a Linux process's CPU time and peak memory from /proc, for the
// end-to-end tests and the whole-collector benchmark.
package procstat // import "github.com/modelplaneai/otelcol-modelplane/internal/procstat"

import (
	"bytes"
	"fmt"
	"os"
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
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			peakRSS = kb * 1024
		}
	}
	return (utime + stime) / userHZ, peakRSS, nil
}
