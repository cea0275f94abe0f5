// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package deliverywatch

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The layout this package reads is exporterhelper's private one (internal/queue/meta.proto and
// the metadata key of persistent_queue.go). This test reads both from the exporterhelper
// release go.mod requires, and fails, naming what moved, when an upgrade changes them.
func TestTheLayoutIsExporterhelpers(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "go.opentelemetry.io/collector/exporter/exporterhelper").Output()
	require.NoError(t, err, "finding exporterhelper's module")
	dir := strings.TrimSpace(string(out))
	require.NotEmpty(t, dir, "exporterhelper's module is not in the module cache (go mod download)")

	proto, err := os.ReadFile(filepath.Join(dir, "internal", "queue", "meta.proto"))
	require.NoError(t, err, "exporterhelper's queue layout moved: internal/queue/meta.proto is gone")
	fields := regexp.MustCompile(`(?m)^\s*(repeated )?(\w+) (\w+) = (\d+);`).FindAllStringSubmatch(string(proto), -1)
	var got []string
	for _, f := range fields {
		got = append(got, strings.TrimSpace(f[1]+f[2])+" "+f[3]+" = "+f[4])
	}
	require.Equal(t, []string{
		"sfixed64 items_size = 1",
		"sfixed64 bytes_size = 2",
		"fixed64 read_index = 3",
		"fixed64 write_index = 4",
		"repeated fixed64 currently_dispatched_items = 5",
	}, got, "exporterhelper's PersistentMetadata (internal/queue/meta.proto) is not the layout queuefront reads: update decode and encode, or drop queuefront if the queue now sends interrupted batches first")

	src, err := os.ReadFile(filepath.Join(dir, "internal", "queue", "persistent_queue.go"))
	require.NoError(t, err)
	require.Regexp(t, `metadataKey\s*=\s*"`+regexp.QuoteMeta(metadataKey)+`"`, string(src),
		"exporterhelper's persistent queue keeps its metadata under another key than %q", metadataKey)
}
