// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func validateMappings(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	code = runValidateMappings(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// validate-mappings checks mapping files without a collector configuration: valid files pass
// with a count; a problem fails with the file, the line, the field and the value; what is
// valid but not meant (an entry a built-in overrides, a name the exporters serve otherwise)
// passes with a warning; a path that names nothing fails.
func TestValidateMappings(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\n"+body), 0o600))
		return p
	}
	good := write("good.yaml", "metadata: {name: good}\nspec:\n  metrics:\n  - {from: my_queue, to: modelplane_requests_waiting}\n  - {from: my_kv_ms, to: modelplane_request_kv_transfer_seconds, fromUnit: Milliseconds}\n")
	code, out, errOut := validateMappings(t, good)
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "1 MetricMapping, 2 entries: valid\n", out)
	assert.Empty(t, errOut)

	bad := write("bad.yaml", "metadata: {name: bad}\nspec:\n  metrics:\n  - from: my_queue\n    to: modelplane_queue\n    labels:\n      gpu: {value: \"0\"}\n")
	code, out, errOut = validateMappings(t, filepath.Join(dir, "*.yaml"))
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, bad+`: MetricMapping "bad": line 8: metrics[0].labels: want a list, got a mapping`)
	require.NoError(t, os.Remove(bad))

	meant := write("meant.yaml", "metadata: {name: meant}\nspec:\n  metrics:\n  - {from: \"vllm:num_requests_waiting\", to: modelplane_queue_depth}\n  - {from: my_latency_ms, to: modelplane_my_latency, fromUnit: Milliseconds}\n")
	code, out, errOut = validateMappings(t, dir)
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "2 MetricMappings, 4 entries: valid\n", out)
	assert.Contains(t, errOut, "warning: "+meant+`: MetricMapping "meant" metrics[0]: "vllm:num_requests_waiting" never becomes "modelplane_queue_depth"`)
	assert.Contains(t, errOut, "warning: "+meant+`: MetricMapping "meant" metrics[1]: the Prometheus exporters serve "modelplane_my_latency" as "modelplane_my_latency_seconds"`)

	// Without the built-ins, nothing overrides the first entry.
	_, _, errOut = validateMappings(t, "--no-builtins", meant)
	assert.NotContains(t, errOut, "never becomes")

	code, _, errOut = validateMappings(t, filepath.Join(dir, "missing.yaml"))
	assert.Equal(t, 1, code)
	assert.Equal(t, filepath.Join(dir, "missing.yaml")+": no such file\n", errOut)

	code, _, errOut = validateMappings(t, "--builtin", "modelplane-vlm", good)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `unknown mapping "modelplane-vlm"`)

	code, _, errOut = validateMappings(t)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "Usage: otelcol-modelplane validate-mappings")
}

// A document of another kind is skipped and named, so that a file of ConfigMaps does not
// pass as "0 MetricMappings" without a word.
func TestValidateMappingsNamesOtherKinds(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cm.yaml")
	require.NoError(t, os.WriteFile(p, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: my-mappings}\ndata:\n  engine.yaml: |\n    apiVersion: modelplane.ai/v1alpha1\n"), 0o600))
	code, out, errOut := validateMappings(t, p)
	assert.Equal(t, 0, code)
	assert.Equal(t, "0 MetricMappings, 0 entries: valid\n", out)
	assert.Equal(t, "note: "+p+`: document 1 (ConfigMap "my-mappings") is not a MetricMapping; skipped: a ConfigMap's data keys are the files the collector reads; check them as files`+"\n", errOut)
}
