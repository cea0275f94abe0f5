// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package interval

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestCheck(t *testing.T) {
	assert.NoError(t, Check(time.Millisecond, "2s"))
	assert.NoError(t, Check(15*time.Second, "15s"))
	assert.EqualError(t, Check(0, "2s"), "must be positive, got 0s")
	assert.EqualError(t, Check(-time.Second, "2s"), "must be positive, got -1s")
	assert.EqualError(t, Check(15, "15s"), "15ns is shorter than 1ms: a number without a unit is nanoseconds; write one, such as 15s")
}
