// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package spelling

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNearest(t *testing.T) {
	keys := slices.Values([]string{"compression", "endpoint", "tls"})
	assert.Equal(t, "compression", Nearest("compresion", keys))
	assert.Equal(t, "endpoint", Nearest("endpiont", keys))
	assert.Equal(t, "", Nearest("retry", keys))
	assert.Equal(t, "", Nearest("x", keys))
	assert.Equal(t, "ab", Nearest("abc", slices.Values([]string{"ac", "ab"})), "a tie goes to the first in sort order")
	assert.Equal(t, "DCGM_FI_DEV_GPU_TEMP", Nearest("DCGM_FI_DEV_GPU_TEMPERATURE", slices.Values([]string{"DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_MEMORY_TEMP"})))
}

func TestNearestWithin(t *testing.T) {
	metrics := slices.Values([]string{"my_engine_queued_requests", "my_engine_kv_transfer_ms"})
	assert.Equal(t, "", NearestWithin("my_engine_finished_requests_total", metrics, 3), "a third of the letters differ, but it is another metric")
	assert.Equal(t, "my_engine_queued_requests", NearestWithin("my_engine_queued_request", metrics, 3))
}
