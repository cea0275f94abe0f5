// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/modelplaneai/otelcol-modelplane/internal/points"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/scrapetest"
)

var instanceID = regexp.MustCompile(`service\.instance\.id=[^,}]*,?`)

// vLLM and SGLang answer the Prometheus receiver in OpenMetrics, which it asks for first: a
// counter's family is named without `_total` there, and `_created` is part of the family
// instead of a gauge of its own. The mapped series must be the same as from the text format,
// and the start times OpenMetrics gives must survive the mapping.
func TestOpenMetricsAndTextMapAlike(t *testing.T) {
	fleet := scrapetest.Fleet(2, 2)
	text, err := scrapetest.Scrape(context.Background(), fleet)
	require.NoError(t, err)
	om, err := scrapetest.Scrape(context.Background(), scrapetest.AsEnginesAnswer(fleet))
	require.NoError(t, err)
	fromText, fromOM := runOnce(t, ourChainConfig(t), text), runOnce(t, ourChainConfig(t), om)

	// The two scrapes ran against engines on other ports: compare without the address.
	withoutInstance := func(md pmetric.Metrics) map[string]string {
		out := map[string]string{}
		for k, v := range series(md, exact) {
			out[instanceID.ReplaceAllString(k, "")] = v
		}
		return out
	}
	want, got := withoutInstance(fromText), withoutInstance(fromOM)
	for _, d := range compareSeries(want, got) {
		t.Error(d)
	}
	assert.Greater(t, len(want), 40) // 46 series: two engines, the gateway, the picker, two GPUs

	// vllm:num_preemptions_created on the page is 1.7900826114212117e+09.
	created := time.Unix(0, int64(1.7900826114212117e+09*1e9))
	var found bool
	points.WalkNumbers(fromOM, func(_ pcommon.Map, m pmetric.Metric, dp pmetric.NumberDataPoint) {
		if m.Name() == "modelplane_requests_preempted_total" {
			assert.WithinDuration(t, created, dp.StartTimestamp().AsTime(), time.Millisecond)
			found = true
		}
	})
	assert.True(t, found, "modelplane_requests_preempted_total from vLLM")
}
