// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package syncbuffer

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Writes from one goroutine and reads from another neither race (go test -race) nor lose a byte.
func TestConcurrentWriteAndRead(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 1000 {
			_, _ = b.Write([]byte("x"))
		}
	}()
	for range 100 {
		_ = b.String()
	}
	wg.Wait()
	assert.Equal(t, strings.Repeat("x", 1000), b.String())
}
