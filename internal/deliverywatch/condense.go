// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package deliverywatch

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// RepeatRule names the message to condense and the fields of one of its entries that say what it
// is about (the subject) and why (the cause).
type RepeatRule struct {
	// Message is the message condensed: an entry's that begins with it (the collector's
	// exporterhelper adds advice to its lines where retries or the sending queue are off).
	Message string
	// Subject names the field that identifies what the message is about: entries with the
	// same value are repeats.
	Subject string
	// Cause names the field whose change is news: logged at once, not held.
	Cause string
	// Every is the longest a repeat is held before a line says how many there were.
	Every time.Duration
	// Note is added to the first line of a subject, to say that repeats are condensed and
	// where each is counted.
	Note string
	// Sum, where set, names an integer field (such as the points of a batch) that a line
	// counting repeats gives as the total over the entries it stands for, so that the log
	// still adds up to what happened.
	Sum string
	// Unless, where set, picks entries that are not repeats whatever their cause: they are
	// logged as they come and not counted.
	Unless func(fields []zapcore.Field) bool
}

// Condenser applies a rule to the loggers it wraps, and logs what it holds when the
// component that logs through them stops (Flush).
type Condenser struct{ seen *seen }

// NewCondenser returns a condenser of rule's message, on the clock now.
func NewCondenser(rule RepeatRule, now func() time.Time) *Condenser {
	return &Condenser{seen: &seen{rule: rule, now: now, subjects: map[string]*subject{}}}
}

// Option wraps a logger's core with the rule. The cores derived from it (With) share what
// they have seen.
func (c *Condenser) Option() zap.Option {
	return zap.WrapCore(func(inner zapcore.Core) zapcore.Core { return &core{Core: inner, seen: c.seen} })
}

// Flush logs, for each subject with repeats held since its last line, a line that counts
// them (heldLine). A component calls it as it stops, so that the log of a stopped collector
// adds up too.
func (c *Condenser) Flush() {
	s := c.seen
	now := s.now()
	s.mu.Lock()
	var lines []heldLine
	for _, sub := range s.subjects {
		if sub.held > 0 {
			lines = append(lines, s.heldLine(sub, now, FlushNote))
		}
	}
	s.mu.Unlock()
	// Written outside the lock: a core may log again through the rule.
	write(lines)
}

const (
	// FlushNote is the note of a line that Flush wrote.
	FlushNote = "the repeats held since the line before, logged as the component stops"
	sweepNote = "the repeats held since the line before; there have been none since"
)

// heldLine is the line that counts sub's held repeats: its last repeat, with repeats, within
// (from the line before to the last repeat), the Sum field over the held ones and note. sub
// then holds none.
func (s *seen) heldLine(sub *subject, now time.Time, note string) heldLine {
	fields := s.counted(sub.fields, sub.sum-s.summed(sub.fields), sub.held, sub.last.Sub(sub.logged), note)
	entry := sub.entry
	entry.Time = now
	l := heldLine{sub.core, entry, fields}
	sub.restart(sub.cause, now)
	return l
}

func write(lines []heldLine) {
	for _, l := range lines {
		if ce := l.core.Check(l.entry, nil); ce != nil {
			ce.Write(l.fields...)
		}
	}
}

type heldLine struct {
	core   zapcore.Core
	entry  zapcore.Entry
	fields []zapcore.Field
}

type core struct {
	zapcore.Core
	seen *seen
}

func (c *core) With(fields []zapcore.Field) zapcore.Core {
	return &core{Core: c.Core.With(fields), seen: c.seen}
}

func (c *core) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if !strings.HasPrefix(e.Message, c.seen.rule.Message) {
		return c.Core.Check(e, ce)
	}
	if !c.Core.Enabled(e.Level) {
		return ce
	}
	// Write decides, once it has the entry's fields.
	return ce.AddCore(e, c)
}

func (c *core) Write(e zapcore.Entry, fields []zapcore.Field) error {
	fields, pass, swept := c.seen.pass(c.Core, e, fields)
	write(swept)
	if !pass {
		return nil
	}
	// The wrapped core checks the entry again, so its level and sampling still apply.
	if ce := c.Core.Check(e, nil); ce != nil {
		ce.Write(fields...)
	}
	return nil
}

// seen is what a rule has seen of each subject.
type seen struct {
	rule RepeatRule
	now  func() time.Time

	mu       sync.Mutex
	subjects map[string]*subject
	swept    time.Time
}

type subject struct {
	cause  string
	logged time.Time // when its last line was written
	last   time.Time // when it last repeated
	held   int       // repeats since its last line, not logged
	sum    int64     // the Sum field over those repeats

	// The last held repeat, and the core it came through (with that logger's fields), for
	// Flush.
	core   zapcore.Core
	entry  zapcore.Entry
	fields []zapcore.Field
}

// pass tells whether entry e with fields, through inner, is logged, and the fields of its
// line; swept are the lines of the subjects it forgot, to be written first.
func (s *seen) pass(inner zapcore.Core, e zapcore.Entry, fields []zapcore.Field) (_ []zapcore.Field, logged bool, swept []heldLine) {
	if s.rule.Unless != nil && s.rule.Unless(fields) {
		return fields, true, nil
	}
	key, cause := s.keyOf(fields)
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	swept = s.sweep(now)
	sub, ok := s.subjects[key]
	if !ok {
		s.subjects[key] = &subject{cause: cause, logged: now, last: now}
		if s.rule.Note == "" {
			return fields, true, swept
		}
		return appended(fields, zap.String("note", s.rule.Note)), true, swept
	}
	sub.last = now
	if sub.cause == cause && now.Sub(sub.logged) < s.rule.Every {
		sub.held++
		sub.sum += s.summed(fields)
		sub.core, sub.entry, sub.fields = inner, e, slices.Clone(fields)
		return nil, false, swept
	}
	if sub.held > 0 {
		fields = s.counted(fields, sub.sum, sub.held+1, now.Sub(sub.logged), "")
	}
	sub.restart(cause, now)
	return fields, true, swept
}

// restart makes sub's line of now, for cause, its last: it holds no repeat.
func (sub *subject) restart(cause string, now time.Time) {
	*sub = subject{cause: cause, logged: now, last: sub.last}
}

// counted is fields, in a copy, as a line that stands for repeats entries over within: the
// rule's Sum field raised by add (the other entries'), then repeats, within and a note where
// there is one.
func (s *seen) counted(fields []zapcore.Field, add int64, repeats int, within time.Duration, note string) []zapcore.Field {
	out := make([]zapcore.Field, len(fields), len(fields)+3)
	copy(out, fields)
	for i, f := range out {
		if s.rule.Sum != "" && f.Key == s.rule.Sum && isInteger(f.Type) {
			out[i].Integer += add
		}
	}
	out = append(out, zap.Int("repeats", repeats), zap.String("within", within.Round(time.Second).String()))
	if note != "" {
		out = append(out, zap.String("note", note))
	}
	return out
}

// appended is fields and extra in a new slice: fields may be the caller's.
func appended(fields []zapcore.Field, extra ...zapcore.Field) []zapcore.Field {
	return append(fields[:len(fields):len(fields)], extra...)
}

// summed is the rule's Sum field among fields, zero where there is none.
func (s *seen) summed(fields []zapcore.Field) int64 {
	for _, f := range fields {
		if s.rule.Sum != "" && f.Key == s.rule.Sum && isInteger(f.Type) {
			return f.Integer
		}
	}
	return 0
}

func isInteger(t zapcore.FieldType) bool {
	switch t {
	case zapcore.Int64Type, zapcore.Int32Type, zapcore.Int16Type, zapcore.Int8Type,
		zapcore.Uint64Type, zapcore.Uint32Type, zapcore.Uint16Type, zapcore.Uint8Type:
		return true
	}
	return false
}

// sweep forgets the subjects that have not repeated for two periods (a target that went
// away or recovered), so a later entry about one is logged as a first, and returns the lines
// of the repeats they held.
func (s *seen) sweep(now time.Time) []heldLine {
	if now.Sub(s.swept) < s.rule.Every {
		return nil
	}
	s.swept = now
	var lines []heldLine
	for k, sub := range s.subjects {
		if now.Sub(sub.last) >= 2*s.rule.Every {
			if sub.held > 0 {
				lines = append(lines, s.heldLine(sub, now, sweepNote))
			}
			delete(s.subjects, k)
		}
	}
	return lines
}

func (s *seen) keyOf(fields []zapcore.Field) (key, cause string) {
	for _, f := range fields {
		switch f.Key {
		case s.rule.Subject:
			key = text(f)
		case s.rule.Cause:
			cause = text(f)
		}
	}
	return key, cause
}

// text is a field's value as a log line prints it, for the fields that name a subject or a
// cause: strings, stringers and errors.
func text(f zapcore.Field) string {
	switch f.Type {
	case zapcore.StringType:
		return f.String
	case zapcore.StringerType:
		if s, ok := f.Interface.(fmt.Stringer); ok {
			return s.String()
		}
	case zapcore.ErrorType:
		if err, ok := f.Interface.(error); ok {
			return err.Error()
		}
	}
	if f.Interface != nil {
		return fmt.Sprint(f.Interface)
	}
	return fmt.Sprint(f.Integer)
}

// FailedScrape is the warning of a scrape whose up is 0, with the target's labels
// (target_labels) and the reason (error), as the Prometheus receiver words it.
const FailedScrape = "Failed to scrape Prometheus endpoint"

// FailedScrapeRepeat is how long the same failure of a target is held before a line counts
// it: an engine that loads a large model answers no scrape for 10 to 20 minutes, which is a
// few lines instead of one every interval.
const FailedScrapeRepeat = 5 * time.Minute

// FailedScrapes condenses a scraping receiver's failed-scrape lines, held up to every.
func FailedScrapes(every time.Duration, now func() time.Time) *Condenser {
	return NewCondenser(RepeatRule{
		Message: FailedScrape,
		Subject: "target_labels",
		Cause:   "error",
		Every:   every,
		Note: fmt.Sprintf("while this target fails for the same reason, its failed scrapes are logged once every %s, "+
			"with how many there were; otelcol_processor_modelplane_mapping_scrapes_failed counts each one", every),
	}, now)
}
