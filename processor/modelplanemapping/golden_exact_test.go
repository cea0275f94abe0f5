// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"math/big"
	"path/filepath"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// The golden cases about the reference's scaling defects hold, in output.yaml, what exact
// decimal arithmetic gives: every scaled quantity of the input (a point's value, a
// histogram's bounds and sum, a summary's sum and quantiles) times the unit's factor, as the
// float64 nearest the exact result (math/big, independent of internal/units).
func TestGoldenScalingIsExact(t *testing.T) {
	for _, c := range []struct {
		dir, from, to string
		factor        *big.Rat
	}{
		{"unit_histogram_ms", "my_engine_kv_transfer_ms", "modelplane_request_kv_transfer_seconds", big.NewRat(1, 1000)},
		{"unit_integer_points", "queue_ms", "modelplane_request_queue_seconds_last", big.NewRat(1, 1000)},
		{"unit_integer_points", "fb_mib", "modelplane_gpu_memory_used_bytes", big.NewRat(1<<20, 1)},
		{"unit_summary", "rpc_latency_us", "modelplane_request_duration_seconds", big.NewRat(1, 1_000_000)},
	} {
		t.Run(c.dir+"/"+c.from, func(t *testing.T) {
			in, err := golden.ReadMetrics(filepath.Join("testdata", c.dir, "input.yaml"))
			require.NoError(t, err)
			out, err := golden.ReadMetrics(filepath.Join("testdata", c.dir, "output.yaml"))
			require.NoError(t, err)
			source, target := scaled(in, c.from), scaled(out, c.to)
			require.NotEmpty(t, source)
			require.Len(t, target, len(source))
			for i, v := range source {
				want, _ := new(big.Rat).Mul(new(big.Rat).SetFloat64(v), c.factor).Float64()
				assert.Equal(t, want, target[i], "quantity %d: %v", i, v)
			}
		})
	}
}

// scaled lists, in order, the quantities a unit conversion scales in metric name of md.
func scaled(md pmetric.Metrics, name string) []float64 {
	var out []float64
	number := func(dp pmetric.NumberDataPoint) {
		if dp.ValueType() == pmetric.NumberDataPointValueTypeInt {
			out = append(out, float64(dp.IntValue()))
		} else {
			out = append(out, dp.DoubleValue())
		}
	}
	rms := md.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		sms := rms.At(i).ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			ms := sms.At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				m := ms.At(k)
				if m.Name() != name {
					continue
				}
				switch m.Type() {
				case pmetric.MetricTypeGauge:
					for p := 0; p < m.Gauge().DataPoints().Len(); p++ {
						number(m.Gauge().DataPoints().At(p))
					}
				case pmetric.MetricTypeSum:
					for p := 0; p < m.Sum().DataPoints().Len(); p++ {
						number(m.Sum().DataPoints().At(p))
					}
				case pmetric.MetricTypeHistogram:
					for p := 0; p < m.Histogram().DataPoints().Len(); p++ {
						dp := m.Histogram().DataPoints().At(p)
						out = append(out, dp.Sum())
						out = append(out, dp.ExplicitBounds().AsRaw()...)
					}
				case pmetric.MetricTypeSummary:
					for p := 0; p < m.Summary().DataPoints().Len(); p++ {
						dp := m.Summary().DataPoints().At(p)
						out = append(out, dp.Sum())
						for q := 0; q < dp.QuantileValues().Len(); q++ {
							out = append(out, dp.QuantileValues().At(q).Value())
						}
					}
				}
			}
		}
	}
	return out
}
