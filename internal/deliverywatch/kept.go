// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package deliverywatch

import (
	"strings"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.uber.org/zap/zapcore"
)

// Dropping is the start of the line the collector's sending queue logs for every batch whose
// export failed (exporterhelper), with the error and dropped_items.
const Dropping = "Exporting failed. Dropping data."

// shutdownPrefix starts the error of an export that the exporter's shutdown interrupted
// (exporterhelper's internal experr.NewShutdownErr). A persistent sending queue does not mark
// such a batch done, so the next start sends it again; an in-memory one drops it.
const shutdownPrefix = "interrupted due to shutdown"

// Kept replaces the dropping line of a batch that a persistent sending queue keeps.
const Kept = "The collector is stopping: the batch stays in the persistent sending queue and is sent again at the next start"

// PersistentQueue is Options.PersistentQueue for an exporter whose configuration is a *C,
// with its sending queue where queue says.
func PersistentQueue[C any](queue func(*C) *configoptional.Optional[exporterhelper.QueueBatchConfig]) func(component.Config) *component.ID {
	return func(cfg component.Config) *component.ID {
		c, ok := cfg.(*C)
		if !ok {
			return nil
		}
		q := queue(c)
		if !q.HasValue() {
			return nil
		}
		return q.Get().StorageID
	}
}

// keptCore rewrites, for an exporter with a persistent sending queue, the "Dropping data"
// line the queue logs for a batch a shutdown interrupted: the queue keeps it for the next
// start. Every other dropping line passes as it is.
func keptCore(c zapcore.Core) zapcore.Core { return &kept{Core: c} }

type kept struct{ zapcore.Core }

func (c *kept) With(fields []zapcore.Field) zapcore.Core {
	return &kept{Core: c.Core.With(fields)}
}

func (c *kept) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if !strings.HasPrefix(e.Message, Dropping) {
		return c.Core.Check(e, ce)
	}
	if !c.Core.Enabled(e.Level) {
		return ce
	}
	// Write decides, once it has the entry's fields.
	return ce.AddCore(e, c)
}

func (c *kept) Write(e zapcore.Entry, fields []zapcore.Field) error {
	if interrupted(fields) {
		out := make([]zapcore.Field, len(fields))
		for i, f := range fields {
			if f.Key == "dropped_items" {
				f.Key = "kept_items"
			}
			out[i] = f
		}
		e.Level, e.Message, e.Stack = zapcore.WarnLevel, Kept, ""
		fields = out
	}
	// The wrapped core checks the entry again, so its level and sampling still apply.
	if ce := c.Core.Check(e, nil); ce != nil {
		ce.Write(fields...)
	}
	return nil
}

// interrupted tells whether the error among fields is one a shutdown interrupted.
func interrupted(fields []zapcore.Field) bool {
	return anyError(fields, func(err error) bool { return strings.HasPrefix(err.Error(), shutdownPrefix) })
}

// stopping tells whether the error among fields ended a batch because the collector is
// stopping: a shutdown interrupted it, or the watch gave up on its endpoint.
func stopping(fields []zapcore.Field) bool {
	return anyError(fields, func(err error) bool {
		return err == ErrGaveUp || strings.HasPrefix(err.Error(), shutdownPrefix)
	})
}

// anyError tells whether an error among fields, or one it wraps (errors.Join's included), is
// one that is.
func anyError(fields []zapcore.Field, is func(error) bool) bool {
	for _, f := range fields {
		if err, ok := f.Interface.(error); ok && f.Type == zapcore.ErrorType && wraps(err, is) {
			return true
		}
	}
	return false
}

func wraps(err error, is func(error) bool) bool {
	if err == nil {
		return false
	}
	if is(err) {
		return true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return wraps(u.Unwrap(), is)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if wraps(e, is) {
				return true
			}
		}
	}
	return false
}
