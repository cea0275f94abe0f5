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

// Any page, in either format, read twice (the second read makes the first's series stale
// where it lacks them): no panic, and never more series kept than read.
func FuzzPageRead(f *testing.F) {
	pages, err := filepath.Glob(filepath.Join(scrapetest.ExpositionDir(), "*.prom"))
	require.NoError(f, err)
	for _, p := range pages {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(b, false)
	}
	f.Add([]byte("# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_count 2\nh_sum 3\n# EOF\n"), true)
	f.Add([]byte("# TYPE s summary\ns{quantile=\"0.5\"} 1\ns_count 2\ns_sum 3\n"), false)
	f.Fuzz(func(t *testing.T, page []byte, openMetrics bool) {
		ct := "text/plain; version=0.0.4"
		if openMetrics {
			ct = "application/openmetrics-text; version=1.0.0"
		}
		pg := newPage(nil, nil, labels.FromStrings("job", "j", "instance", "i", "replica", "r"), false, true, 0)
		for i := range 2 {
			_ = pg.read(page, ct, int64(1000*(i+1)))
			require.LessOrEqual(t, pg.kept, pg.scraped)
			md := pmetric.NewMetrics()
			rm := md.ResourceMetrics().AppendEmpty()
			pg.emit(rm, func(familyKey) pmetric.ScopeMetrics { return rm.ScopeMetrics().AppendEmpty() })
		}
	})
}
