// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package helm

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The README's Helm quick start renders as it says: its values, read from the README itself,
// give a remote-write sink that authenticates with the token Secret mounted where the
// bearertokenauth extension reads it.
func TestReadmeQuickStart(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?s)cat > values\.yaml <<'VALUES'\n(.*?)\nVALUES\nhelm install omp deploy/helm/otelcol-modelplane -n modelplane-system -f values\.yaml`).FindSubmatch(readme)
	require.NotNil(t, m, "the README's Helm quick start (values and helm install)")

	out, err := renderValues(t, string(m[1]))
	require.NoError(t, err)
	exp := exportersOf(t, out)["prometheus_remote_write/mimir"]
	require.NotNil(t, exp, "the sink's exporter")
	assert.Equal(t, "https://mimir.example.com/api/v1/push", exp["endpoint"])
	assert.Equal(t, map[string]any{"authenticator": "bearertokenauth/mimir"}, exp["auth"])
	cfg := out[chartDir+"/templates/configmap.yaml"]
	assert.Contains(t, cfg, "filename: /etc/modelplane/telemetry/mimir/token")
	assert.Contains(t, out[chartDir+"/templates/daemonset.yaml"], "secretName: mimir-token")
}
