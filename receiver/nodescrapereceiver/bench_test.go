// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package nodescrapereceiver

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/scrapetest"
)

// BenchmarkPage reads and emits vLLM's page as a scrape does, all of it kept (the
// receiver's most work per page; the scrape filter keeps a fraction).
func BenchmarkPage(b *testing.B) {
	page, err := os.ReadFile(filepath.Join(scrapetest.ExpositionDir(), "vllm.prom"))
	require.NoError(b, err)
	pg := newPage(nil, nil, labels.FromStrings("job", "vllm", "instance", "127.0.0.1:8000", "engine", "vllm", "replica", "r"), false, true, 0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		require.NoError(b, pg.read(page, "text/plain; version=0.0.4", int64(i)))
		md := pmetric.NewMetrics()
		rm := md.ResourceMetrics().AppendEmpty()
		sm := rm.ScopeMetrics().AppendEmpty()
		pg.emit(rm, func(familyKey) pmetric.ScopeMetrics { return sm })
	}
}
