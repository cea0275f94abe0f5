// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package syncbuffer is a bytes.Buffer that one goroutine may write while another reads it:
// a child process's output, which os/exec copies in from its own goroutine, read while the
// process runs.
package syncbuffer // import "github.com/modelplaneai/otelcol-modelplane/internal/testutil/syncbuffer"

import (
	"bytes"
	"sync"
)

// Buffer is safe for concurrent Write and String.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
