// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package dcgmreceiver

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDRADeviceNames(t *testing.T) {
	for name, want := range map[string]deviceKey{
		"gpu-0":                    "minor:0",
		"gpu-12":                   "minor:12",
		"gpu-3-mig-1g10gb-19-4":    "minor:3/mig:19@4",
		"gpu-3-mig-1g10gb-me-20-0": "minor:3/mig:20@0",
		"gpu-3-mig-1c2g20gb-14-2":  "minor:3/mig:14@2",
		"gpu-3-mig-19-4-1":         "minor:3/mig:19@4",
		"gpu-3-mig-14-0-2":         "minor:3/mig:14@0",
	} {
		got, ok := draKeyFor("gpu.nvidia.com", name)
		assert.True(t, ok, name)
		assert.Equal(t, want, got, name)
	}
	for _, bad := range []string{"gpu-", "gpu-x", "gpu-vfio-0", "gpu-1-mig-19-4", "gpu-1-mig-19-4-x", "gpu-1-mig-1g10gb-19",
		"gpu-1-mig-1g10gb-19-x", "gpu-1-mig-19-4-1-2", "gpu-1-mig-", "nvidia0", "GPU-8d2f", ""} {
		_, ok := draKeyFor("gpu.nvidia.com", bad)
		assert.False(t, ok, bad)
	}
	_, ok := draKeyFor("compute-domain.nvidia.com", "gpu-0")
	assert.False(t, ok, "another driver")
}

// Whatever the kubelet names a device, the two parsers either refuse it or return a key of
// the forms the collector looks devices up by.
func FuzzDeviceNames(f *testing.F) {
	for _, s := range []string{"GPU-8d2f::3", "nvidia1/gi2", "gpu-3", "gpu-3-mig-1g10gb-19-4", "gpu-3-mig-19-4-1", "gpu-vfio-0", "gpu-1-mig--1-2"} {
		f.Add(s)
	}
	pluginKey := regexp.MustCompile(`(?s)^((GPU|MIG)-.*|minor:[0-9]+(/gi:[0-9]+)?)$`)
	draKey := regexp.MustCompile(`^minor:[0-9]+(/mig:[0-9]+@[0-9]+)?$`)
	f.Fuzz(func(t *testing.T, name string) {
		if k, ok := keysFor(name); ok {
			assert.Regexp(t, pluginKey, string(k), name)
		}
		if k, ok := draKeyFor("gpu.nvidia.com", name); ok {
			assert.Regexp(t, draKey, string(k), name)
		}
		_, ok := draKeyFor("example.com", name)
		assert.False(t, ok)
	})
}
