// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig/probe"
)

// A target is told by the names on its /metrics page, as the shared expositions have them:
// a port that serves no /metrics (SGLang without --enable-metrics) and another program's page
// are no target (internal/defaultconfig/probe tests the ports that answer nothing).
func TestIdentify(t *testing.T) {
	identify := identifier(probe.New(0))

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
}
