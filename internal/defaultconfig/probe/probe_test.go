// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package probe

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A port that accepts connections but does not answer (vLLM while it loads its model), or
// closes them at once, serves no page: a TCP connection alone took each for its port's
// target before, which then failed every scrape.
func TestPortsThatAnswerNothing(t *testing.T) {
	p := New(200 * time.Millisecond)
	prefixes := []string{"vllm:"}
	// A port bound and listening, never accepting: a connection completes, no answer comes.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	f := p.Page(addr, prefixes)
	assert.Equal(t, -1, f.Prefix)
	assert.Equal(t, "it accepts connections but did not answer GET /metrics within 200ms (an engine loading its model listens before it answers)", f.Why)

	// One that accepts and closes at once, as Docker's proxy does for a published port whose
	// container does not listen yet.
	closing, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() {
		for {
			c, err := closing.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	f = p.Page(closing.Addr().String(), prefixes)
	assert.Equal(t, -1, f.Prefix)
	assert.Equal(t, "it accepts connections but closes them without an answer (as Docker's proxy does for a published port whose container does not listen yet)", f.Why)
	require.NoError(t, closing.Close())

	require.NoError(t, l.Close())
	f = p.Page(addr, prefixes)
	assert.Equal(t, -1, f.Prefix)
	assert.Equal(t, "nothing listens there", f.Why)
}
