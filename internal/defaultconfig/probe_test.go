// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// identify tells a target by the names on its /metrics page, as the shared expositions have
// them: an engine's port that accepts connections but does not answer (vLLM while it loads
// its model), a port that serves no /metrics (SGLang without --enable-metrics), and another
// program's page are no target. A TCP connection alone took each for its port's target
// before, which then failed every scrape.
func TestIdentify(t *testing.T) {
	page := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "exposition", name))
		require.NoError(t, err)
		return b
	}
	serving := func(body []byte, status int) string {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/metrics" {
				http.NotFound(w, r)
				return
			}
			w.WriteHeader(status)
			_, _ = w.Write(body)
		}))
		t.Cleanup(s.Close)
		return s.Listener.Addr().String()
	}
	for file, want := range map[string]string{"vllm.prom": "vLLM", "sglang.prom": "SGLang", "dcgm-exporter.prom": "dcgm-exporter"} {
		f := identify(serving(page(file), http.StatusOK))
		require.NotNil(t, f.serves, file)
		assert.Equal(t, want, f.serves.name, file)
	}

	f := identify(serving(page("gateway-genai.prom"), http.StatusOK))
	assert.Nil(t, f.serves)
	assert.Equal(t, "its /metrics has no series of vLLM (vllm:), SGLang (sglang:) or a dcgm-exporter (DCGM_FI_) yet", f.why)

	f = identify(serving(nil, http.StatusNotFound))
	assert.Nil(t, f.serves)
	assert.True(t, f.notFound)
	assert.Equal(t, "GET /metrics answered 404 Not Found", f.why)

	// A port bound and listening, never accepting: a connection completes, no answer comes.
	was := probeTimeout
	probeTimeout = 200 * time.Millisecond
	t.Cleanup(func() { probeTimeout = was })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	f = identify(addr)
	assert.Nil(t, f.serves)
	assert.Equal(t, "it accepts connections but did not answer GET /metrics within 200ms (an engine loading its model listens before it answers)", f.why)

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
	f = identify(closing.Addr().String())
	assert.Nil(t, f.serves)
	assert.Equal(t, "it accepts connections but closes them without an answer (as Docker's proxy does for a published port whose container does not listen yet)", f.why)
	require.NoError(t, closing.Close())

	require.NoError(t, l.Close())
	f = identify(addr)
	assert.Nil(t, f.serves)
	assert.Equal(t, "nothing listens there", f.why)
}
