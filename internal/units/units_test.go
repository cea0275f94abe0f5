// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package units

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func decimalUnits() []Unit {
	var out []Unit
	for u := Unit(1); u < numUnits; u++ {
		if !u.Binary() {
			out = append(out, u)
		}
	}
	return out
}

func exact(t *testing.T, mantissa int, exp int) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(strconv.Itoa(mantissa)+"e"+strconv.Itoa(exp), 64)
	require.NoError(t, err)
	return f
}

// Every integer 1..100000 and every tenth 0.1..1000 converts to the float nearest the exact
// decimal result, for each decimal unit.
func TestConvertIsExactForDecimalUnits(t *testing.T) {
	for _, u := range decimalUnits() {
		t.Run(u.String(), func(t *testing.T) {
			dec := table[u].dec
			wrong := 0
			for n := 1; n <= 100000; n++ {
				if got, want := u.Convert(float64(n)), exact(t, n, dec); got != want {
					wrong++
					if wrong < 5 {
						t.Errorf("%d %s: got %v, want %v", n, u, got, want)
					}
				}
			}
			for k := 1; k <= 10000; k++ {
				in := exact(t, k, -1)
				if got, want := u.Convert(in), exact(t, k, dec-1); got != want {
					wrong++
					if wrong < 5 {
						t.Errorf("%v %s: got %v, want %v", in, u, got, want)
					}
				}
			}
			assert.Zero(t, wrong)
		})
	}
}

// The reference multiplies by 0.001: 13,328 of the integers 1..100000 come out wrong. Ours:
// none (above). This pins the defect we fix.
func TestReferenceMultiplicationIsInexact(t *testing.T) {
	wrong := 0
	for n := 1; n <= 100000; n++ {
		if float64(n)*0.001 != exact(t, n, -3) {
			wrong++
		}
	}
	assert.Equal(t, 13328, wrong)
	nine := 9.0
	assert.Equal(t, 0.009000000000000001, nine*0.001)
	assert.Equal(t, 0.009, Milliseconds.Convert(9))
}

func TestConvertBinaryUnits(t *testing.T) {
	assert.Equal(t, 81559.0*1048576, Mebibytes.Convert(81559))
	assert.Equal(t, 1.5*1024, Kibibytes.Convert(1.5))
	assert.Equal(t, 2.0*(1<<30), Gibibytes.Convert(2))
	assert.Equal(t, 1.5e6, Megabytes.Convert(1.5))
	assert.Equal(t, 0.3e6, Megabytes.Convert(0.3))
}

func TestConvertSpecialValues(t *testing.T) {
	for _, u := range []Unit{Milliseconds, Mebibytes, Megabytes} {
		assert.True(t, math.IsNaN(u.Convert(math.NaN())), u.String())
		assert.True(t, math.IsInf(u.Convert(math.Inf(1)), 1), u.String())
		assert.True(t, math.IsInf(u.Convert(math.Inf(-1)), -1), u.String())
		assert.Zero(t, u.Convert(0), u.String())
	}
	assert.Equal(t, -0.009, Milliseconds.Convert(-9))
	assert.Equal(t, -0.0012, Milliseconds.Convert(-1.2))
	assert.Equal(t, 5e-324, Milliseconds.Convert(5e-321))
}

func TestConvertIntKeepsIntegersOnlyWhenIntegral(t *testing.T) {
	cases := []struct {
		u     Unit
		in    int64
		i     int64
		f     float64
		isInt bool
	}{
		{Milliseconds, 1500, 0, 1.5, false},
		{Milliseconds, 2000, 2, 0, true},
		{Milliseconds, -3000, -3, 0, true},
		{Mebibytes, 81559, 81559 << 20, 0, true},
		{Mebibytes, 1 << 50, 0, math.Ldexp(1, 70), false},
		{Megabytes, 7, 7000000, 0, true},
		{Megabytes, math.MaxInt64 / 10, 0, float64(math.MaxInt64/10) * 1e6, false},
		{Percent, 55, 0, 0.55, false},
		{Percent, 100, 1, 0, true},
		{Nanoseconds, 1, 0, 1e-9, false},
		{None, 42, 42, 0, true},
	}
	for _, c := range cases {
		i, f, ok := c.u.ConvertInt(c.in)
		assert.Equal(t, c.isInt, ok, "%s %d", c.u, c.in)
		assert.Equal(t, c.i, i, "%s %d", c.u, c.in)
		assert.Equal(t, c.f, f, "%s %d", c.u, c.in)
	}
}

func TestParseAndNames(t *testing.T) {
	for _, n := range Names() {
		u, ok := Parse(n)
		require.True(t, ok, n)
		assert.Equal(t, n, u.String())
	}
	_, ok := Parse("Milisecond")
	assert.False(t, ok)
	assert.Equal(t, []string{"Millijoules", "Milliseconds", "Nanoseconds", "Mebibytes", "Percent"}, Names()[:5])
	assert.Equal(t, "By", Mebibytes.Target())
	assert.Equal(t, "J", Millijoules.Target())
	assert.Equal(t, "1", Percent.Target())
}

func TestConvertDoesNotAllocate(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		_ = Milliseconds.Convert(1.2345)
		_ = Megabytes.Convert(0.25)
		_, _, _ = Milliseconds.ConvertInt(1500)
	})
	assert.Zero(t, allocs)
}

// The conversion agrees with parsing the shifted decimal text of the input, for any input.
func FuzzConvert(f *testing.F) {
	f.Add(9.0, uint8(Milliseconds))
	f.Add(0.1, uint8(Nanoseconds))
	f.Add(1e300, uint8(Megabytes))
	f.Fuzz(func(t *testing.T, v float64, ui uint8) {
		u := Unit(ui % uint8(numUnits))
		got := u.Convert(v)
		if math.IsNaN(v) {
			if !math.IsNaN(got) {
				t.Fatalf("NaN became %v", got)
			}
			return
		}
		if u.Binary() || u == None {
			if got != math.Ldexp(v, table[u].bin) {
				t.Fatalf("%v %s: %v", v, u, got)
			}
			return
		}
		s := strconv.FormatFloat(v, 'e', -1, 64)
		mant, exp := splitExp(s)
		want, _ := strconv.ParseFloat(mant+"e"+strconv.Itoa(exp+table[u].dec), 64)
		if got != want && !(v == 0 && got == 0) {
			t.Fatalf("%v %s: got %v want %v", v, u, got, want)
		}
	})
}

func splitExp(s string) (string, int) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == 'e' {
			e, _ := strconv.Atoi(s[i+1:])
			return s[:i], e
		}
	}
	return s, 0
}

func TestOfName(t *testing.T) {
	for name, want := range map[string]string{
		"modelplane_request_duration_seconds":           "s",
		"modelplane_gpu_thermal_throttle_seconds_total": "s",
		"modelplane_gpu_memory_used_bytes":              "By",
		"modelplane_energy_joules_total":                "J",
		"modelplane_gpu_power_watts":                    "W",
		"modelplane_gpu_temperature_celsius":            "Cel",
		"modelplane_gpu_compute_active_ratio":           "1",
		"modelplane_requests_waiting":                   "",
		"modelplane_tokens_total":                       "",
		"modelplane_kv_cache_utilization_ratio_max":     "",
		"modelplane_seconds_elapsed":                    "",
	} {
		if got := OfName(name); got != want {
			t.Errorf("OfName(%q) = %q, want %q", name, got, want)
		}
	}
}

// A unit written as engines and UCUM write it, or misspelt, names the unit it means; an
// abbreviation other than a time's only in its exact case (mb could be a megabit, MJ is a
// megajoule), and nothing for a word that is no unit.
func TestMeant(t *testing.T) {
	for name, want := range map[string]Unit{
		"ms": Milliseconds, "MS": Milliseconds, "milliseconds": Milliseconds, "Millisecond": Milliseconds,
		"Milisecond": Milliseconds, "us": Microseconds, "µs": Microseconds, "ns": Nanoseconds,
		"MiB": Mebibytes, "MiBy": Mebibytes, "mebibytes": Mebibytes, "KiB": Kibibytes, "GiBy": Gibibytes,
		"kB": Kilobytes, "KB": Kilobytes, "MB": Megabytes, "GBy": Gigabytes, "mJ": Millijoules,
		"mW": Milliwatts, "%": Percent, "percent": Percent,
	} {
		got, ok := Meant(name)
		assert.True(t, ok, name)
		assert.Equal(t, want, got, name)
	}
	for _, name := range []string{"mb", "MJ", "MW", "s", "Seconds", "bytes", "tokens"} {
		got, ok := Meant(name)
		assert.False(t, ok, "%s means %s", name, got)
	}
}

func TestOfSourceName(t *testing.T) {
	for name, want := range map[string]Unit{
		"sglang:kv_transfer_latency_ms": Milliseconds, "nv_inference_request_duration_us": Microseconds,
		"gpu_memory_used_MiB": Mebibytes, "energy_millijoules_total": Millijoules, "power_mW": Milliwatts,
		"vllm:e2e_request_latency_seconds": None, "gpu_cache_usage_perc": None, "num_requests_running": None,
		"DCGM_FI_DEV_FB_USED": None, "items": None,
	} {
		assert.Equal(t, want, OfSourceName(name), name)
	}
}

func TestIsBase(t *testing.T) {
	for _, name := range []string{"Seconds", "s", "bytes", "By", "Joules", "W", "ratio", "1"} {
		assert.True(t, IsBase(name), name)
	}
	for _, name := range []string{"Milliseconds", "ms", "MiB", "%", "tokens"} {
		assert.False(t, IsBase(name), name)
	}
}

func TestCheckInterval(t *testing.T) {
	assert.NoError(t, CheckInterval(time.Millisecond, "2s"))
	assert.NoError(t, CheckInterval(15*time.Second, "15s"))
	assert.EqualError(t, CheckInterval(0, "2s"), "must be positive, got 0s")
	assert.EqualError(t, CheckInterval(-time.Second, "2s"), "must be positive, got -1s")
	assert.EqualError(t, CheckInterval(15, "15s"), "15ns is shorter than 1ms: a number without a unit is nanoseconds; write one, such as 15s")
}
