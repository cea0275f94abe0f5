// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package nodescrapereceiver // import "github.com/modelplaneai/otelcol-modelplane/receiver/nodescrapereceiver"

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	prometheustranslator "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/translator/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/relabel"
	"github.com/prometheus/prometheus/model/textparse"
	"github.com/prometheus/prometheus/model/value"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// errSampleLimit fails a scrape whose kept series pass the job's sample_limit, as
// Prometheus fails it.
var errSampleLimit = errors.New("sample limit exceeded")

// page turns a target's pages into pdata, one scrape at a time, and keeps what staleness
// needs between them: the points of the last scrape, so that a series that goes away gets
// one point without a value (a staleness marker), as Prometheus writes one.
type page struct {
	byName, rest []*relabel.Config
	honorLabels  bool
	honorTimes   bool
	sampleLimit  int
	target       labels.Labels // the target's public labels, job and instance included

	epoch    uint64
	nowMs    int64
	metaGen  uint64
	meta     map[string]meta
	names    map[string]*seriesName
	families map[familyKey]*family
	order    []*family // families in the order first seen: stable output
	points   map[uint64]*point
	series   map[string]*cached

	st       *labels.SymbolTable
	lset     labels.Labels
	lb       *labels.Builder
	conflict []labels.Label
	hashBuf  []byte

	scraped, kept, added int
}

type meta struct {
	typ        model.MetricType
	help, unit string
}

// seriesName is what a series name says, resolved once against the page's metadata.
type seriesName struct {
	keep    bool
	metaGen uint64
	family  string
	meta    meta
	part    part
}

type part uint8

const (
	partValue part = iota
	partBucket
	partSum
	partCount
	partCreated
)

type familyKey struct {
	name, scopeName, scopeVersion string
	typ                           model.MetricType
}

type family struct {
	key       familyKey
	meta      meta
	mtype     pmetric.MetricType
	monotonic bool
	live      []*point // this scrape's points, in page order
}

// point is one data point of a family: a series, or the series of one histogram or summary.
type point struct {
	key     uint64
	fam     *family
	ls      labels.Labels
	seen    uint64 // the scrape that last held it
	born    uint64 // the scrape that first did
	ts      int64
	value   float64
	sum     float64
	count   float64
	created float64
	has     uint8
	isStale bool
	gone    bool // no longer in the page's points: a cached line that names it looks again
	bounds  []bound
}

const (
	hasValue uint8 = 1 << iota
	hasSum
	hasCount
)

type bound struct{ le, v float64 }

func newPage(byName, rest []*relabel.Config, target labels.Labels, honorLabels, honorTimes bool, sampleLimit int) *page {
	return &page{
		byName: byName, rest: rest, target: target, honorLabels: honorLabels, honorTimes: honorTimes, sampleLimit: sampleLimit,
		meta: map[string]meta{}, names: map[string]*seriesName{}, families: map[familyKey]*family{}, points: map[uint64]*point{}, series: map[string]*cached{},
		st: labels.NewSymbolTable(), lb: labels.NewBuilder(labels.EmptyLabels()),
	}
}

// read parses one page into the points of this scrape. On an error the scrape holds no
// point, and every series of the last one goes stale.
func (pg *page) read(body []byte, contentType string, nowMs int64) error {
	pg.epoch++
	pg.nowMs = nowMs
	pg.scraped, pg.kept, pg.added = 0, 0, 0
	for _, f := range pg.order {
		f.live = f.live[:0]
	}
	err := pg.parse(body, contentType, nowMs)
	if err != nil { // as if this page was empty: the last one's series go stale
		for _, f := range pg.order {
			for _, p := range f.live {
				if p.born == pg.epoch {
					delete(pg.points, p.key)
					p.gone = true
				}
				p.seen = 0
			}
			f.live = f.live[:0]
		}
		pg.kept = 0
	}
	return err
}

func (pg *page) parse(body []byte, contentType string, nowMs int64) error {
	p, err := textparse.New(body, contentType, pg.st, textparse.ParserOptions{FallbackContentType: "text/plain", IgnoreNativeHistograms: true})
	if p == nil {
		return fmt.Errorf("reading the page: %w", err)
	}
	for {
		entry, err := p.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch entry {
		case textparse.EntryType:
			name, typ := p.Type()
			pg.setMeta(name, func(m *meta) bool {
				if m.typ == typ {
					return false
				}
				m.typ = typ
				return true
			})
		case textparse.EntryHelp:
			name, help := p.Help()
			pg.setMeta(name, func(m *meta) bool {
				if m.help == string(help) {
					return false
				}
				m.help = string(help)
				return true
			})
		case textparse.EntryUnit:
			name, unit := p.Unit()
			pg.setMeta(name, func(m *meta) bool {
				if m.unit == string(unit) {
					return false
				}
				m.unit = string(unit)
				return true
			})
		case textparse.EntrySeries:
			series, tsp, v := p.Series()
			pg.scraped++
			sn := pg.nameOf(series, p)
			if !sn.keep {
				continue
			}
			c := pg.series[string(series)]
			if c == nil || c.metaGen != pg.metaGen || (c.point != nil && c.point.gone) {
				c = pg.resolve(series, sn, p)
			}
			c.seen = pg.epoch
			if c.point == nil { // dropped by metric_relabel_configs
				continue
			}
			pg.kept++
			if pg.sampleLimit > 0 && pg.kept > pg.sampleLimit {
				return errSampleLimit
			}
			ts := nowMs
			if pg.honorTimes && tsp != nil {
				ts = *tsp
			}
			pg.add(c, ts, v)
		}
	}
}

// setMeta updates a family's metadata; set reports a change. A page like the last one
// changes nothing, and allocates nothing.
func (pg *page) setMeta(name []byte, set func(*meta) bool) {
	m, ok := pg.meta[string(name)]
	if set(&m) || !ok {
		pg.meta[string(name)] = m
		pg.metaGen++
	}
}

// nameOf resolves a series' name: whether the name rules keep it, and its family as
// Prometheus' metadata names it.
func (pg *page) nameOf(series []byte, p textparse.Parser) *seriesName {
	name := series
	if i := bytes.IndexAny(series, "{ "); i >= 0 {
		name = series[:i]
	}
	if len(name) == 0 || name[0] == '"' { // a quoted (UTF-8) name: read it from the labels
		p.Labels(&pg.lset)
		name = []byte(pg.lset.Get(model.MetricNameLabel))
	}
	sn := pg.names[string(name)]
	if sn != nil && sn.metaGen == pg.metaGen {
		return sn
	}
	s := string(name)
	if sn == nil {
		sn = &seriesName{keep: keepName(pg.byName, s)}
		pg.names[s] = sn
	}
	sn.metaGen = pg.metaGen
	sn.family, sn.meta, sn.part = pg.familyOf(s)
	return sn
}

// familyOf finds the metadata of a series name as the Prometheus receiver does: under the
// name itself, else under the name without one of the suffixes a family's series add.
func (pg *page) familyOf(name string) (string, meta, part) {
	if m, ok := pg.meta[name]; ok {
		return name, m, partOf(name, name, m.typ)
	}
	for _, suffix := range []string{"_bucket", "_count", "_sum", "_total", "_info", "_created"} {
		base, ok := strings.CutSuffix(name, suffix)
		if !ok || base == "" {
			continue
		}
		m, ok := pg.meta[base]
		if !ok {
			break
		}
		switch m.typ {
		case model.MetricTypeCounter:
			if suffix == "_created" {
				return base + "_total", m, partCreated
			}
			return name, m, partValue
		}
		return base, m, partOf(name, base, m.typ)
	}
	return name, meta{typ: model.MetricTypeUnknown}, partValue
}

func partOf(name, family string, typ model.MetricType) part {
	if name == family+"_created" {
		return partCreated
	}
	if typ != model.MetricTypeHistogram && typ != model.MetricTypeSummary {
		return partValue
	}
	switch {
	case strings.HasSuffix(name, "_sum"):
		return partSum
	case strings.HasSuffix(name, "_count"):
		return partCount
	}
	return partBucket
}

// finalLabels adds the target's labels to a series' and applies the rest of
// metric_relabel_configs, as Prometheus does (honor_labels, exported_ on a conflict).
func (pg *page) finalLabels(ls labels.Labels) (labels.Labels, bool) {
	lb := pg.lb
	lb.Reset(ls)
	if pg.honorLabels {
		pg.target.Range(func(l labels.Label) {
			if !ls.Has(l.Name) {
				lb.Set(l.Name, l.Value)
			}
		})
	} else {
		pg.conflict = pg.conflict[:0]
		pg.target.Range(func(l labels.Label) {
			if v := ls.Get(l.Name); v != "" {
				pg.conflict = append(pg.conflict, labels.Label{Name: l.Name, Value: v})
			}
			lb.Set(l.Name, l.Value)
		})
		if len(pg.conflict) > 0 {
			slices.SortStableFunc(pg.conflict, func(a, b labels.Label) int { return len(a.Name) - len(b.Name) })
			for _, l := range pg.conflict {
				n := l.Name
				for {
					n = model.ExportedLabelPrefix + n
					if lb.Get(n) == "" {
						lb.Set(n, l.Value)
						break
					}
				}
			}
		}
	}
	if !relabel.ProcessBuilder(lb, pg.rest...) {
		return labels.EmptyLabels(), false
	}
	return lb.Labels(), true
}

// cached is what a series line, as the page writes it, comes to: its point (nil: dropped
// by the rest of the rules) and, for a bucket or quantile, its bound. A page like the last
// one is read without parsing a kept line's labels or relabelling it again.
type cached struct {
	point   *point
	part    part
	le      float64
	ok      bool // le parsed
	metaGen uint64
	seen    uint64
}

// resolve reads a series' labels, relabels it and finds its point, and caches the result.
func (pg *page) resolve(series []byte, sn *seriesName, p textparse.Parser) *cached {
	c := pg.series[string(series)]
	if c == nil {
		c = &cached{}
		pg.series[string(series)] = c
	}
	*c = cached{metaGen: pg.metaGen, part: sn.part}
	p.Labels(&pg.lset)
	ls, keep := pg.finalLabels(pg.lset)
	if !keep {
		return c
	}
	c.point = pg.pointOf(sn, ls)
	if sn.part == partBucket {
		name := model.BucketLabel
		if c.point.fam.mtype == pmetric.MetricTypeSummary {
			name = model.QuantileLabel
		}
		le, err := strconv.ParseFloat(ls.Get(name), 64)
		c.le, c.ok = le, err == nil
	}
	return c
}

// pointOf finds or makes the point a series with final labels ls belongs to.
func (pg *page) pointOf(sn *seriesName, ls labels.Labels) *point {
	fk := familyKey{name: sn.family, typ: sn.meta.typ}
	if ls.Has(prometheustranslator.ScopeNameLabelKey) || ls.Has(prometheustranslator.ScopeVersionLabelKey) {
		fk.scopeName, fk.scopeVersion = ls.Get(prometheustranslator.ScopeNameLabelKey), ls.Get(prometheustranslator.ScopeVersionLabelKey)
	}
	f := pg.families[fk]
	if f == nil {
		f = &family{key: fk}
		f.mtype, f.monotonic = otelType(sn.meta.typ)
		pg.families[fk] = f
		pg.order = append(pg.order, f)
	}
	f.meta = sn.meta
	var h uint64
	switch f.mtype {
	case pmetric.MetricTypeHistogram:
		h, pg.hashBuf = ls.HashWithoutLabels(pg.hashBuf, model.MetricNameLabel, model.BucketLabel)
	case pmetric.MetricTypeSummary:
		h, pg.hashBuf = ls.HashWithoutLabels(pg.hashBuf, model.MetricNameLabel, model.QuantileLabel)
	default:
		h, pg.hashBuf = ls.HashWithoutLabels(pg.hashBuf, model.MetricNameLabel)
	}
	h ^= hashString(fk.name) ^ uint64(len(fk.typ))*0x9e3779b97f4a7c15
	p := pg.points[h]
	if p == nil {
		p = &point{key: h, fam: f, ls: ls, born: pg.epoch}
		pg.points[h] = p
	}
	return p
}

// add puts one kept sample into its point.
func (pg *page) add(c *cached, ts int64, v float64) {
	p := c.point
	if p.born == pg.epoch && p.seen != pg.epoch {
		pg.added++
	}
	if p.seen != pg.epoch {
		p.seen, p.ts, p.has, p.created, p.bounds = pg.epoch, ts, 0, 0, p.bounds[:0]
		p.fam.live = append(p.fam.live, p)
	}
	switch c.part {
	case partCreated:
		p.created = v
	case partSum:
		p.sum, p.has = v, p.has|hasSum
	case partCount:
		p.count, p.has, p.ts = v, p.has|hasCount, ts
	case partBucket:
		if c.ok {
			p.bounds = append(p.bounds, bound{le: c.le, v: v})
		}
	default:
		p.value, p.has = v, p.has|hasValue
	}
}

func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

func otelType(t model.MetricType) (pmetric.MetricType, bool) {
	switch t {
	case model.MetricTypeCounter:
		return pmetric.MetricTypeSum, true
	case model.MetricTypeHistogram:
		return pmetric.MetricTypeHistogram, true
	case model.MetricTypeSummary:
		return pmetric.MetricTypeSummary, true
	case model.MetricTypeInfo, model.MetricTypeStateset:
		return pmetric.MetricTypeSum, false
	case model.MetricTypeGaugeHistogram:
		return pmetric.MetricTypeEmpty, false
	}
	return pmetric.MetricTypeGauge, false
}

// emit writes this scrape's points, and a staleness marker for each point of the last
// scrape that this one lacks, into rm, through scope (the ScopeMetrics of a family's scope).
func (pg *page) emit(rm pmetric.ResourceMetrics, scope func(familyKey) pmetric.ScopeMetrics) {
	for _, f := range pg.order {
		if f.key.name == "target_info" {
			for _, p := range f.live {
				p.ls.Range(func(l labels.Label) {
					if l.Name != model.JobLabel && l.Name != model.InstanceLabel && l.Name != model.MetricNameLabel {
						rm.Resource().Attributes().PutStr(l.Name, l.Value)
					}
				})
			}
		}
	}
	for key, p := range pg.points {
		if p.seen == pg.epoch {
			continue
		}
		p.seen, p.isStale, p.gone, p.ts = pg.epoch, true, true, pg.nowMs
		p.fam.live = append(p.fam.live, p)
		delete(pg.points, key)
	}
	for k, c := range pg.series { // lines the last page lacked
		if c.seen != pg.epoch {
			delete(pg.series, k)
		}
	}
	for _, f := range pg.order {
		if len(f.live) == 0 || f.mtype == pmetric.MetricTypeEmpty || f.key.name == "target_info" {
			continue
		}
		ms := scope(f.key).Metrics()
		f.write(ms)
	}
}

func (f *family) write(ms pmetric.MetricSlice) {
	m := ms.AppendEmpty()
	m.SetName(f.key.name)
	m.SetDescription(f.meta.help)
	m.SetUnit(prometheustranslator.UnitWordToUCUM(f.meta.unit))
	m.Metadata().PutStr(prometheustranslator.MetricMetadataTypeKey, string(f.meta.typ))
	n := 0
	switch f.mtype {
	case pmetric.MetricTypeSum:
		s := m.SetEmptySum()
		s.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
		s.SetIsMonotonic(f.monotonic)
		dps := s.DataPoints()
		dps.EnsureCapacity(len(f.live))
		for _, p := range f.live {
			if p.number(dps, true) {
				n++
			}
		}
	case pmetric.MetricTypeGauge:
		dps := m.SetEmptyGauge().DataPoints()
		dps.EnsureCapacity(len(f.live))
		for _, p := range f.live {
			if p.number(dps, false) {
				n++
			}
		}
	case pmetric.MetricTypeHistogram:
		h := m.SetEmptyHistogram()
		h.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
		dps := h.DataPoints()
		dps.EnsureCapacity(len(f.live))
		for _, p := range f.live {
			if p.histogram(dps) {
				n++
			}
		}
	case pmetric.MetricTypeSummary:
		dps := m.SetEmptySummary().DataPoints()
		dps.EnsureCapacity(len(f.live))
		for _, p := range f.live {
			if p.summary(dps) {
				n++
			}
		}
	}
	if n == 0 {
		ms.RemoveIf(func(x pmetric.Metric) bool { return x == m })
	}
}

func (p *point) stale() bool { return p.isStale }

func (p *point) number(dps pmetric.NumberDataPointSlice, sum bool) bool {
	if !p.stale() && p.has&hasValue == 0 {
		return false
	}
	dp := dps.AppendEmpty()
	p.common(dp.Attributes(), pmetric.MetricTypeGauge)
	dp.SetTimestamp(msToTimestamp(p.ts))
	if sum && p.created != 0 && !p.stale() {
		dp.SetStartTimestamp(secondsToTimestamp(p.created))
	}
	if p.stale() || value.IsStaleNaN(p.value) {
		dp.SetFlags(pmetric.DefaultDataPointFlags.WithNoRecordedValue(true))
	} else {
		dp.SetDoubleValue(p.value)
	}
	return true
}

func (p *point) histogram(dps pmetric.HistogramDataPointSlice) bool {
	stale := p.stale()
	if !stale && p.has&hasCount == 0 {
		return false
	}
	slices.SortStableFunc(p.bounds, func(a, b bound) int { return cmp.Compare(a.le, b.le) })
	n := len(p.bounds) + 1
	if n > 1 && math.IsInf(p.bounds[n-2].le, 1) {
		n--
	}
	if !stale {
		prev := 0.0
		for i := 0; i < n-1; i++ {
			if math.IsNaN(p.bounds[i].v) || p.bounds[i].v < prev {
				return false
			}
			prev = p.bounds[i].v
		}
		if math.IsNaN(p.count) || p.count < prev {
			return false
		}
	}
	dp := dps.AppendEmpty()
	eb, bc := dp.ExplicitBounds(), dp.BucketCounts()
	eb.EnsureCapacity(n - 1)
	bc.EnsureCapacity(n)
	for i := 0; i < n-1; i++ {
		eb.Append(p.bounds[i].le)
		c := 0.0
		if !stale {
			c = p.bounds[i].v
			if i > 0 {
				c -= p.bounds[i-1].v
			}
		}
		bc.Append(uint64(c))
	}
	last := 0.0
	if !stale {
		last = p.count
		if n > 1 {
			last -= p.bounds[n-2].v
		}
	}
	bc.Append(uint64(last))
	if stale {
		dp.SetFlags(pmetric.DefaultDataPointFlags.WithNoRecordedValue(true))
	} else {
		dp.SetCount(uint64(p.count))
		if p.has&hasSum != 0 {
			dp.SetSum(p.sum)
		}
		if p.created != 0 {
			dp.SetStartTimestamp(secondsToTimestamp(p.created))
		}
	}
	dp.SetTimestamp(msToTimestamp(p.ts))
	p.common(dp.Attributes(), pmetric.MetricTypeHistogram)
	return true
}

func (p *point) summary(dps pmetric.SummaryDataPointSlice) bool {
	stale := p.stale()
	if !stale && p.has&hasCount == 0 {
		return false
	}
	slices.SortStableFunc(p.bounds, func(a, b bound) int { return cmp.Compare(a.le, b.le) })
	dp := dps.AppendEmpty()
	if stale {
		dp.SetFlags(pmetric.DefaultDataPointFlags.WithNoRecordedValue(true))
	} else {
		if p.has&hasSum != 0 {
			dp.SetSum(p.sum)
		}
		dp.SetCount(uint64(p.count))
		if p.created != 0 {
			dp.SetStartTimestamp(secondsToTimestamp(p.created))
		}
	}
	qs := dp.QuantileValues()
	qs.EnsureCapacity(len(p.bounds))
	for _, b := range p.bounds {
		q := qs.AppendEmpty()
		q.SetQuantile(b.le)
		if !stale {
			q.SetValue(b.v)
		}
	}
	dp.SetTimestamp(msToTimestamp(p.ts))
	p.common(dp.Attributes(), pmetric.MetricTypeSummary)
	return true
}

// common writes a point's labels as attributes: all but the name, job and instance (the
// resource's), the bucket or quantile, the scope's and empty ones.
func (p *point) common(attrs pcommon.Map, t pmetric.MetricType) {
	attrs.EnsureCapacity(p.ls.Len())
	p.ls.Range(func(l labels.Label) {
		switch {
		case l.Value == "", l.Name == model.MetricNameLabel, l.Name == model.JobLabel, l.Name == model.InstanceLabel,
			strings.HasPrefix(l.Name, prometheustranslator.ScopeLabelPrefix),
			t == pmetric.MetricTypeHistogram && l.Name == model.BucketLabel,
			t == pmetric.MetricTypeSummary && l.Name == model.QuantileLabel:
			return
		}
		attrs.PutStr(l.Name, l.Value)
	})
}

func msToTimestamp(ms int64) pcommon.Timestamp { return pcommon.Timestamp(ms * 1e6) }

func secondsToTimestamp(s float64) pcommon.Timestamp {
	return pcommon.Timestamp(s * 1e9)
}
