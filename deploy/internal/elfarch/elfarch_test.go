// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package elfarch

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewerThan(t *testing.T) {
	assert.True(t, newerThan("2.34", "2.3.2"))
	assert.True(t, newerThan("2.34", "2.32"))
	assert.True(t, newerThan("2.3.4", "2.3"))
	assert.False(t, newerThan("2.2.5", "2.17"))
	assert.False(t, newerThan("2.34", "2.34"))
	assert.True(t, newerThan("2.2.5", ""))
}

// The collector binaries `make test` builds: cgo links glibc, so each needs one.
func TestBinaries(t *testing.T) {
	for env, arch := range map[string]string{"OTELCOL_MODELPLANE_BIN": "amd64", "OTELCOL_MODELPLANE_BIN_ARM64": "arm64"} {
		bin := os.Getenv(env)
		if bin == "" {
			t.Logf("%s not set: run through `make test`, which builds it", env)
			continue
		}
		got, err := Arch(bin)
		require.NoError(t, err)
		assert.Equal(t, arch, got, bin)
		glibc, err := GLIBC(bin)
		require.NoError(t, err)
		assert.Regexp(t, `^2\.[0-9]+`, glibc, bin)
	}
}

func TestNotACollector(t *testing.T) {
	_, err := Arch("elfarch.go")
	assert.ErrorContains(t, err, "elfarch.go: ")
}
