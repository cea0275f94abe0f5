// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package procstat

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadSelf(t *testing.T) {
	x := make([]byte, 64<<20)
	for i := range x {
		x[i] = 1 // touch it, so it is resident
	}
	cpu, rss, err := Read(os.Getpid())
	require.NoError(t, err)
	assert.Greater(t, rss, int64(64<<20), "peak RSS includes the 64 MiB just touched")
	assert.GreaterOrEqual(t, cpu, 0.0)
	anon, file, err := Resident(os.Getpid())
	require.NoError(t, err)
	assert.Greater(t, anon, int64(64<<20), "the 64 MiB just touched are anonymous memory")
	assert.Positive(t, file, "the test binary's own pages are file pages")
	assert.LessOrEqual(t, anon+file, rss+(16<<20), "resident now is about the peak")
	_, _, err = Read(-1)
	assert.Error(t, err)
	_, _, err = Resident(-1)
	assert.Error(t, err)
	_ = x[len(x)-1]
}
