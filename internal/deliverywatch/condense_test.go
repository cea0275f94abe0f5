// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package deliverywatch

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

type label string

func (l label) String() string { return string(l) }

const msg = "Failed to scrape Prometheus endpoint"

// clock is a test's time, moved by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                   { return &clock{t: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)} }
func fail(l *zap.Logger, target, cause string) {
	l.Warn(msg, zap.Error(errors.New(cause)), zap.Int64("scrape_timestamp", 1), zap.Stringer("target_labels", label(target)))
}

func newLogger(c *clock, level zapcore.Level) (*zap.Logger, *observer.ObservedLogs) {
	inner, logs := observer.New(level)
	rule := RepeatRule{Message: msg, Subject: "target_labels", Cause: "error", Every: 5 * time.Minute, Note: "condensed"}
	return zap.New(inner).WithOptions(NewCondenser(rule, c.now).Option()), logs
}

// lines returns each logged entry's message and the fields this package adds.
func lines(logs *observer.ObservedLogs) []map[string]any {
	var out []map[string]any
	for _, e := range logs.TakeAll() {
		m := map[string]any{"msg": e.Message}
		for k, v := range e.ContextMap() {
			switch k {
			case "note", "repeats", "within", "target_labels", "error", "kind":
				m[k] = v
			}
		}
		out = append(out, m)
	}
	return out
}

func TestRepeatsAreCondensed(t *testing.T) {
	c := newClock()
	l, logs := newLogger(c, zapcore.InfoLevel)
	l = l.With(zap.String("kind", "receiver"))
	a := `{__name__="up", instance="127.0.0.1:30000", job="sglang"}`
	refused := `Get "http://127.0.0.1:30000/metrics": dial tcp 127.0.0.1:30000: connect: connection refused`

	fail(l, a, refused)
	assert.Equal(t, []map[string]any{{"msg": msg, "kind": "receiver", "target_labels": a, "error": refused, "note": "condensed"}}, lines(logs),
		"the first failure of a target is logged as it comes, saying that repeats are condensed")

	for range 19 { // every 15 s, as the embedded default scrapes
		c.advance(15 * time.Second)
		fail(l, a, refused)
	}
	assert.Empty(t, lines(logs), "the same failure within 5 minutes is held")

	c.advance(15 * time.Second) // 5 minutes after the first line
	fail(l, a, refused)
	assert.Equal(t, []map[string]any{{"msg": msg, "kind": "receiver", "target_labels": a, "error": refused, "repeats": int64(20), "within": "5m0s"}}, lines(logs),
		"then one line counts them: 20 failures in 5 minutes, this one included")

	c.advance(15 * time.Second)
	fail(l, a, refused)
	c.advance(15 * time.Second)
	fail(l, a, "server returned HTTP status 500 Internal Server Error")
	assert.Equal(t, []map[string]any{{"msg": msg, "kind": "receiver", "target_labels": a, "error": "server returned HTTP status 500 Internal Server Error", "repeats": int64(2), "within": "30s"}}, lines(logs),
		"a new cause is logged at once")

	// Another target is its own subject; other messages pass as they are.
	b := `{__name__="up", instance="127.0.0.1:8000", job="vllm"}`
	fail(l, b, refused)
	l.Warn("Scrape job added")
	l.Warn("Scrape job added")
	got := lines(logs)
	require.Len(t, got, 3)
	assert.Equal(t, map[string]any{"msg": msg, "kind": "receiver", "target_labels": b, "error": refused, "note": "condensed"}, got[0])
	assert.Equal(t, map[string]any{"msg": "Scrape job added", "kind": "receiver"}, got[1])
	assert.Equal(t, got[1], got[2])
}

// A target that has not failed for two periods (it recovered, or went away) is forgotten:
// its next failure is a first again, and the subjects do not pile up.
func TestQuietSubjectsAreForgotten(t *testing.T) {
	c := newClock()
	l, logs := newLogger(c, zapcore.InfoLevel)
	fail(l, "a", "refused")
	c.advance(time.Minute)
	fail(l, "a", "refused") // held
	for i := range 50 {
		fail(l, string(rune('b'+i)), "refused")
	}
	assert.Len(t, lines(logs), 51)

	c.advance(10 * time.Minute)
	fail(l, "a", "refused")
	assert.Equal(t, []map[string]any{
		{"msg": msg, "target_labels": "a", "error": "refused", "repeats": int64(1), "within": "1m0s", "note": sweepNote},
		{"msg": msg, "target_labels": "a", "error": "refused", "note": "condensed"},
	}, lines(logs), "the repeat it held is logged as it is forgotten, then the failure is a first")
	r := l.Core().(*core).seen
	assert.Len(t, r.subjects, 1, "the 50 targets that did not fail again are forgotten")
}

// The wrapped core's level still decides: a warning it would not log is neither logged nor
// counted.
func TestLevelOfTheWrappedCore(t *testing.T) {
	c := newClock()
	l, logs := newLogger(c, zapcore.ErrorLevel)
	fail(l, "a", "refused")
	assert.Empty(t, lines(logs))
	assert.Empty(t, l.Core().(*core).seen.subjects)
	assert.Nil(t, l.Check(zapcore.WarnLevel, msg))
	l.Error("other")
	assert.Len(t, lines(logs), 1)
}

func TestText(t *testing.T) {
	for want, f := range map[string]zapcore.Field{
		"s":    zap.String("k", "s"),
		"lbl":  zap.Stringer("k", label("lbl")),
		"boom": zap.Error(errors.New("boom")),
		"42":   zap.Int("k", 42),
	} {
		assert.Equal(t, want, text(f))
	}
}

// A rule with Sum gives, in a line that counts repeats, the total of that field over them,
// so a log of rejected batches still says how many points they held.
func TestSumCountsOverTheRepeats(t *testing.T) {
	c := newClock()
	inner, logs := observer.New(zapcore.InfoLevel)
	rule := RepeatRule{Message: "Exporting failed. Rejecting data.", Cause: "error", Every: 5 * time.Minute, Sum: "rejected_items"}
	l := zap.New(inner).WithOptions(NewCondenser(rule, c.now).Option())
	reject := func(items int) {
		l.Error(rule.Message, zap.Error(errors.New("sending queue is full")), zap.Int("rejected_items", items))
	}
	total := func() []any {
		var out []any
		for _, e := range logs.TakeAll() {
			m := e.ContextMap()
			out = append(out, m["rejected_items"], m["repeats"])
		}
		return out
	}

	reject(142)
	assert.Equal(t, []any{int64(142), nil}, total(), "the first line is as it comes")
	for _, n := range []int{100, 7, 142} {
		c.advance(time.Minute)
		reject(n)
	}
	assert.Empty(t, total())
	c.advance(2 * time.Minute)
	reject(1)
	assert.Equal(t, []any{int64(100 + 7 + 142 + 1), int64(4)}, total(), "the counting line adds up every entry it stands for")
	c.advance(5 * time.Minute)
	reject(9)
	assert.Equal(t, []any{int64(9), nil}, total(), "and starts again after it: a line with nothing held is as it comes")
}

// Entries that Unless picks are logged as they come, whatever their cause, and not counted:
// a stopping collector's dropped batches are each what the stop lost.
func TestUnlessPassesEveryEntryItPicks(t *testing.T) {
	c := newClock()
	inner, logs := observer.New(zapcore.InfoLevel)
	stopping := errors.New("interrupted due to shutdown")
	rule := RepeatRule{Message: "dropped", Cause: "error", Every: 5 * time.Minute, Note: "condensed",
		Unless: func(fields []zapcore.Field) bool {
			for _, f := range fields {
				if f.Type == zapcore.ErrorType && f.Interface == stopping {
					return true
				}
			}
			return false
		}}
	l := zap.New(inner).WithOptions(NewCondenser(rule, c.now).Option())
	l.Error("dropped", zap.Error(errors.New("400")))
	l.Error("dropped", zap.Error(errors.New("400")))
	for range 3 {
		l.Error("dropped", zap.Error(stopping))
	}
	c.advance(5 * time.Minute)
	l.Error("dropped", zap.Error(errors.New("400")))
	got := lines(logs)
	require.Len(t, got, 5, "%v", got)
	assert.Equal(t, "condensed", got[0]["note"])
	for _, m := range got[1:4] {
		assert.Equal(t, map[string]any{"msg": "dropped", "error": stopping.Error()}, m)
	}
	assert.Equal(t, int64(2), got[4]["repeats"], "the one held and this one; the three passed are not counted")
}

// A stopping component flushes what its rules hold: one line per subject that counts the
// repeats since its last line, with the fields of the last and of its logger, and the Sum
// field over them; a subject with nothing held logs nothing more.
func TestFlushLogsTheRepeatsHeld(t *testing.T) {
	c := newClock()
	inner, logs := observer.New(zapcore.InfoLevel)
	rule := RepeatRule{Message: msg, Subject: "target_labels", Cause: "error", Every: 5 * time.Minute, Note: "condensed", Sum: "points"}
	condenser := NewCondenser(rule, c.now)
	l := zap.New(inner).WithOptions(condenser.Option()).With(zap.String("kind", "receiver"))
	failed := func(target string, points int) {
		l.Warn(msg, zap.Error(errors.New("refused")), zap.Stringer("target_labels", label(target)), zap.Int("points", points))
	}
	failed("a", 5)
	failed("b", 1)
	for _, n := range []int{2, 3, 4} {
		c.advance(15 * time.Second)
		failed("a", n)
	}
	logs.TakeAll()

	c.advance(time.Minute)
	condenser.Flush()
	got := logs.TakeAll()
	require.Len(t, got, 1, "a held three repeats, b none")
	m := got[0].ContextMap()
	assert.Equal(t, zapcore.WarnLevel, got[0].Level)
	assert.Equal(t, c.now(), got[0].Time)
	assert.Equal(t, map[string]any{"kind": "receiver", "target_labels": "a", "error": "refused",
		"points": int64(2 + 3 + 4), "repeats": int64(3), "within": "45s", "note": FlushNote}, m)

	condenser.Flush()
	assert.Zero(t, logs.Len(), "nothing held since")
	c.advance(time.Minute)
	failed("a", 7)
	assert.Zero(t, logs.Len(), "a repeat after a flush is held as before")
	condenser.Flush()
	assert.EqualValues(t, 1, logs.TakeAll()[0].ContextMap()["repeats"])
}

// A message that begins with the rule's, as the collector's lines with advice added do, is
// condensed as the rule's own.
func TestAMessageThatBeginsWithTheRulesIsCondensed(t *testing.T) {
	c := newClock()
	l, logs := newLogger(c, zapcore.InfoLevel)
	for range 3 {
		l.Warn(msg+". Try enabling something else.", zap.Error(errors.New("refused")), zap.Stringer("target_labels", label("a")))
	}
	l.Warn("Failed to scrape", zap.Error(errors.New("refused")), zap.Stringer("target_labels", label("a")))
	got := lines(logs)
	require.Len(t, got, 2, "%v", got)
	assert.Equal(t, "condensed", got[0]["note"], "the first is logged, the two repeats held")
	assert.Equal(t, map[string]any{"msg": "Failed to scrape", "target_labels": "a", "error": "refused"}, got[1], "a message the rule's begins with is not the rule's")
}
