// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/scrapetest"
)

// The default built-ins map an endpoint picker by what its page holds, per scrape target: a
// picker of the Inference Extension v1.0.x line (inference_extension_* only) through the
// legacy names, one of llm-d v0.10 (both families) and a newer one (llm_d_epp_* only)
// through the new names, each decision counted once. The three pickers are scraped together,
// so the choice is per source, not per configuration.
func TestPickerFamiliesPerSource(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(scrapetest.ExpositionDir(), "epp.prom"))
	require.NoError(t, err)
	without := func(prefix string) string {
		path := filepath.Join(t.TempDir(), "epp.prom")
		kept := regexp.MustCompile(`(?m)^(# (HELP|TYPE) )?`+prefix+`.*\n`).ReplaceAll(page, nil)
		require.NotEqual(t, page, kept)
		require.NoError(t, os.WriteFile(path, kept, 0o600))
		return path
	}
	in, err := scrapetest.Scrape(context.Background(), []scrapetest.Target{
		{Job: "legacy", File: without("llm_d_epp_")},
		{Job: "both", File: "epp.prom"},
		{Job: "new", File: without("inference_extension_scheduler_")},
	})
	require.NoError(t, err)
	out := runOnce(t, createDefaultConfig(), in)

	// Jobs are named NAME-INDEX by scrapetest. The success decisions of the page: 710+5745+697+5685+726+5784 = 19347, in both families.
	decisions := map[string]float64{}
	buckets := map[string]int{}
	rms := out.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		job, _ := rms.At(i).Resource().Attributes().Get("service.name")
		sms := rms.At(i).ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			ms := sms.At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				switch m := ms.At(k); m.Name() {
				case "modelplane_route_requests_total":
					for p := 0; p < m.Sum().DataPoints().Len(); p++ {
						dp := m.Sum().DataPoints().At(p)
						if d, _ := dp.Attributes().Get("decision"); d.Str() == "success" {
							decisions[job.Str()] += dp.DoubleValue()
						}
					}
				case "modelplane_route_decision_seconds":
					buckets[job.Str()] += m.Histogram().DataPoints().Len()
				}
			}
		}
	}
	assert.Equal(t, map[string]float64{"legacy-0": 19347, "both-1": 19347, "new-2": 19347}, decisions, "each picker's decisions, once")
	assert.Equal(t, map[string]int{"legacy-0": 1, "both-1": 1, "new-2": 1}, buckets, "one latency histogram per picker")
}
