// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package units converts metric values from the units engines report into the base units of
// the modelplane_* vocabulary, exactly: a decimal conversion yields the float64 nearest to
// the exact decimal result, so 9 ms becomes 0.009 s and not 0.009000000000000001 s. It also
// refuses a duration written without its unit (CheckInterval).
package units // import "github.com/modelplaneai/otelcol-modelplane/internal/units"

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/modelplaneai/otelcol-modelplane/internal/spelling"
)

// Unit is a source unit a MetricMapping may name in fromUnit.
type Unit uint8

const (
	// None means no conversion.
	None Unit = iota
	Millijoules
	Milliseconds
	Microseconds
	Nanoseconds
	Mebibytes
	Kibibytes
	Gibibytes
	Kilobytes
	Megabytes
	Gigabytes
	Milliwatts
	Percent
	numUnits
)

// factor describes a conversion as value * 2^bin * 10^dec, with exactly one of the two set.
// Binary factors are exact in float64; decimal ones need care (see Convert).
type factor struct {
	name       string
	target     string // UCUM unit of the result
	short      string // how descriptions usually spell the source unit
	dec        int
	bin        int
	modelplane bool // one of the five units of the Modelplane v1alpha1 schema
}

var table = [numUnits]factor{
	None:         {},
	Millijoules:  {name: "Millijoules", target: "J", short: "mJ", dec: -3, modelplane: true},
	Milliseconds: {name: "Milliseconds", target: "s", short: "ms", dec: -3, modelplane: true},
	Microseconds: {name: "Microseconds", target: "s", short: "us", dec: -6},
	Nanoseconds:  {name: "Nanoseconds", target: "s", short: "ns", dec: -9, modelplane: true},
	Mebibytes:    {name: "Mebibytes", target: "By", short: "MiB", bin: 20, modelplane: true},
	Kibibytes:    {name: "Kibibytes", target: "By", short: "KiB", bin: 10},
	Gibibytes:    {name: "Gibibytes", target: "By", short: "GiB", bin: 30},
	Kilobytes:    {name: "Kilobytes", target: "By", short: "kB", dec: 3},
	Megabytes:    {name: "Megabytes", target: "By", short: "MB", dec: 6},
	Gigabytes:    {name: "Gigabytes", target: "By", short: "GB", dec: 9},
	Milliwatts:   {name: "Milliwatts", target: "W", short: "mW", dec: -3},
	Percent:      {name: "Percent", target: "1", short: "%", dec: -2, modelplane: true},
}

// Parse returns the unit with the given MetricMapping name ("Milliseconds", ...).
func Parse(name string) (Unit, bool) {
	for u := Unit(1); u < numUnits; u++ {
		if table[u].name == name {
			return u, true
		}
	}
	return None, false
}

// Meant returns the unit a name that Parse refuses most likely means, for an error to
// suggest: another case or the singular, the abbreviation or UCUM code ("ms", "MiB"; another
// case only for time, since MB is mega-), or a misspelling.
func Meant(name string) (Unit, bool) {
	for u := Unit(1); u < numUnits; u++ {
		f := table[u]
		if strings.EqualFold(name, f.name) || strings.EqualFold(name, strings.TrimSuffix(f.name, "s")) ||
			name == f.short || name == ucum(f.short) || strings.EqualFold(name, f.short) && f.target == "s" {
			return u, true
		}
	}
	switch name {
	case "µs", "μs", "usec":
		return Microseconds, true
	case "KB", "KBy":
		return Kilobytes, true
	}
	if n := spelling.Nearest(name, slices.Values(Names())); n != "" {
		return Parse(n)
	}
	return None, false
}

// IsBase reports whether name is a unit a metric name states as its own (seconds, bytes,
// joules, watts, a ratio, ...: nameSuffixes), by name or UCUM code, in any case: a fromUnit of
// one converts nothing.
func IsBase(name string) bool {
	for _, s := range nameSuffixes {
		word := strings.TrimPrefix(s.suffix, "_")
		if strings.EqualFold(name, word) || strings.EqualFold(name, strings.TrimSuffix(word, "s")) || strings.EqualFold(name, s.ucum) {
			return true
		}
	}
	return false
}

// ucum is the UCUM code of an abbreviation: bytes are By.
func ucum(short string) string {
	if b, ok := strings.CutSuffix(short, "B"); ok {
		return b + "By"
	}
	return short
}

// Names lists every unit name Parse accepts, Modelplane's five first.
func Names() []string {
	var first, rest []string
	for u := Unit(1); u < numUnits; u++ {
		if table[u].modelplane {
			first = append(first, table[u].name)
		} else {
			rest = append(rest, table[u].name)
		}
	}
	return append(first, rest...)
}

func (u Unit) String() string { return table[u].name }

// Target is the UCUM unit of a converted value: "s", "By", "J", "W" or "1".
func (u Unit) Target() string { return table[u].target }

// Short is the abbreviation of the source unit as engines print it in descriptions.
func (u Unit) Short() string { return table[u].short }

// Binary reports whether the conversion multiplies by 2^Shift() and so is exact in float64.
func (u Unit) Binary() bool { return table[u].bin != 0 }

// Shift is the power of two of a binary conversion.
func (u Unit) Shift() int { return table[u].bin }

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// maxExact is the largest magnitude below which every integer is exact in float64.
const maxExact = 1 << 53

// Convert returns v in the target unit. For decimal units it returns the float64 nearest to
// the exact decimal result of the shortest decimal that prints v, which is what a reader of
// the source value means by it. It does not allocate.
func (u Unit) Convert(v float64) float64 {
	f := &table[u]
	switch {
	case f.bin != 0:
		return math.Ldexp(v, f.bin)
	case f.dec == 0:
		return v
	case math.IsNaN(v) || math.IsInf(v, 0) || v == 0:
		return v
	}
	// An integer is its own exact decimal; IEEE division or multiplication by an exact power
	// of ten then rounds once, to the nearest float64 of the exact result.
	if v == math.Trunc(v) && math.Abs(v) < maxExact {
		if f.dec < 0 {
			return v / pow10[-f.dec]
		}
		return v * pow10[f.dec]
	}
	return shiftDecimal(v, f.dec)
}

// shiftDecimal moves the decimal point of v's shortest representation by dec places and
// parses the result, so the one rounding happens on the exact decimal value.
func shiftDecimal(v float64, dec int) float64 {
	var buf [40]byte
	b := strconv.AppendFloat(buf[:0], v, 'e', -1, 64)
	// b is "d.ddde±XX": read the exponent, add dec and write it back.
	e := len(b) - 1
	for b[e] != 'e' {
		e--
	}
	exp, _ := strconv.Atoi(unsafe.String(&b[e+1], len(b)-e-1))
	b = strconv.AppendInt(b[:e+1], int64(exp+dec), 10)
	// On overflow ParseFloat returns ±Inf with an error; ±Inf is the right answer then.
	r, _ := strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
	return r
}

// ConvertInt converts an integer value. It returns the integer result and true where the
// result is integral and fits in an int64 (4 KiB is 4096 bytes), and otherwise false with
// the exact float result in f (1500 ms is 1.5 s), never truncating.
func (u Unit) ConvertInt(v int64) (i int64, f float64, ok bool) {
	fa := &table[u]
	switch {
	case fa.bin != 0:
		if v == 0 || (bitsFree(v) > fa.bin) {
			return v << fa.bin, 0, true
		}
		return 0, u.Convert(float64(v)), false
	case fa.dec == 0:
		return v, 0, true
	case fa.dec > 0:
		p := int64(pow10[fa.dec])
		if r := v * p; v == 0 || (r/p == v && (r < 0) == (v < 0)) {
			return r, 0, true
		}
		return 0, u.Convert(float64(v)), false
	default:
		p := int64(pow10[-fa.dec])
		if v%p == 0 {
			return v / p, 0, true
		}
		// float64(v) is exact below 2^53; beyond that Convert still rounds once more than
		// ideal, which only matters past 9e15 of the source unit.
		return 0, u.Convert(float64(v)), false
	}
}

// bitsFree counts how far v can be shifted left without overflowing an int64.
func bitsFree(v int64) int {
	if v < 0 {
		v = ^v
	}
	n := 0
	for x := uint64(v); x != 0; x >>= 1 {
		n++
	}
	return 63 - n
}

// nameSuffixes are the unit suffixes of Prometheus metric names and their UCUM units, as
// OpenTelemetry's Prometheus translation pairs them.
var nameSuffixes = [...]struct{ suffix, ucum string }{
	{"_seconds", "s"}, {"_bytes", "By"}, {"_joules", "J"}, {"_watts", "W"},
	{"_celsius", "Cel"}, {"_hertz", "Hz"}, {"_ratio", "1"},
}

// NameSuffix is the suffix by which a metric name says a UCUM unit ("_seconds" for s), as
// OpenTelemetry's Prometheus translation adds it to a name; "" for a unit without one.
func NameSuffix(ucum string) string {
	for _, s := range nameSuffixes {
		if s.ucum == ucum {
			return s.suffix
		}
	}
	return ""
}

// OfName returns the UCUM unit a metric name declares by its suffix (before a counter's
// _total): "s" for modelplane_request_duration_seconds, "" for modelplane_requests_waiting.
func OfName(name string) string {
	name = strings.TrimSuffix(name, "_total")
	for _, s := range nameSuffixes {
		if strings.HasSuffix(name, s.suffix) {
			return s.ucum
		}
	}
	return ""
}

// OfSourceName returns the non-base unit a metric name declares by its suffix, in any case,
// abbreviated or spelt out (Milliseconds for sglang:kv_transfer_latency_ms); None without
// one. Not percent: vLLM's gpu_cache_usage_perc is a ratio of 0 to 1.
func OfSourceName(name string) Unit {
	name = strings.ToLower(strings.TrimSuffix(name, "_total"))
	for u := Unit(1); u < numUnits; u++ {
		if u == Percent {
			continue
		}
		f := table[u]
		if strings.HasSuffix(name, "_"+strings.ToLower(f.short)) || strings.HasSuffix(name, "_"+strings.ToLower(f.name)) {
			return u
		}
	}
	return None
}

// CheckInterval refuses an interval that is not positive, and one under a millisecond: YAML gives
// a number without a unit to a duration as nanoseconds, so `collection_interval: 15` would
// poll in a loop. example is a sensible value for the field, named in the message.
func CheckInterval(d time.Duration, example string) error {
	switch {
	case d <= 0:
		return fmt.Errorf("must be positive, got %v", d)
	case d < time.Millisecond:
		return fmt.Errorf("%v is shorter than 1ms: a number without a unit is nanoseconds; write one, such as %s", d, example)
	}
	return nil
}
