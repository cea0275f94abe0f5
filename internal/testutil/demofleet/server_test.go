// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package demofleet

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKeepServesOnlyKeptLinesWhenAsked(t *testing.T) {
	e, err := NewEngine("vllm", "127.0.0.1:0", filepath.Join("..", "..", "..", "testdata", "exposition", "vllm.prom"))
	if err != nil {
		t.Fatal(err)
	}
	e.Keep = func(metric string) bool { return metric == "vllm:num_requests_running" }
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Stop() })
	get := func(query string) string {
		t.Helper()
		resp, err := http.Get("http://" + e.Addr + "/metrics" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	kept := get("?only=kept")
	for _, line := range strings.Split(strings.TrimSpace(kept), "\n") {
		if !strings.Contains(line, "vllm:num_requests_running") {
			t.Errorf("kept page holds %q", line)
		}
	}
	if !strings.Contains(kept, "# TYPE vllm:num_requests_running gauge") || !strings.Contains(kept, "vllm:num_requests_running{") {
		t.Errorf("kept page lacks the metric's TYPE or samples:\n%s", kept)
	}
	if whole := get(""); !strings.Contains(whole, "vllm:num_requests_waiting{") || len(whole) < 10*len(kept) {
		t.Errorf("a scrape without ?only=kept should get the whole page (%d bytes, kept %d)", len(whole), len(kept))
	}
}

// A page the parser refuses is served as it is, as a broken target would serve it.
func TestAnUnreadablePageIsServedAsItIs(t *testing.T) {
	file := filepath.Join(t.TempDir(), "garbage.prom")
	require.NoError(t, os.WriteFile(file, []byte("<html>not {{{ an exposition\n"), 0o600))
	e, err := NewEngine("bad", "127.0.0.1:0", file)
	require.NoError(t, err)
	assert.Equal(t, "<html>not {{{ an exposition\n", string(e.Page().Render(5)))
}
