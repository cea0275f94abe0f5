// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package deliverywatch

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componentstatus"
	"go.opentelemetry.io/collector/config/configmiddleware"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/xexporter"
	"go.opentelemetry.io/collector/pipeline"
	"go.opentelemetry.io/collector/pipeline/xpipeline"
	"go.uber.org/zap"
)

// Options say how Factory changes an exporter.
type Options struct {
	// Rules condense lines the exporter repeats at every retry, and the watch's own.
	Rules []RepeatRule
	// LogUnanswered: the exporter says nothing of a request without an answer (New).
	LogUnanswered bool
	// WithWatch returns a copy of cfg whose client names ID as its last middleware; the
	// collector keeps cfg as it validated it.
	WithWatch func(cfg component.Config) (component.Config, error)
	// Now is the clock of the condensed log and the watch; time.Now where nil.
	Now func() time.Time
	// GiveUpWhenStopping is how long a stopping exporter waits for a failing endpoint
	// (Watch.GiveUpWhenStopping), unless GiveUpEnv says otherwise; zero leaves the
	// exporter's own stop as it is.
	GiveUpWhenStopping time.Duration
	// PersistentQueue returns the storage extension that cfg's sending queue is on, nil for
	// one in memory (PersistentQueue). The batches that a shutdown interrupts are then logged
	// as kept, not dropped (keptCore), and go first at the next start (queuefront). Nil: never.
	PersistentQueue func(cfg component.Config) *component.ID
	// Defaults, where set, changes the factory's default configuration, cfg, in place.
	Defaults func(cfg component.Config)
}

// Factory returns f with its type, alias, configuration and every signal it supports, whose
// exporters log through o.Rules and are watched.
func Factory(f exporter.Factory, o Options) exporter.Factory {
	if o.Now == nil {
		o.Now = time.Now
	}
	var options []xexporter.FactoryOption
	if a, ok := f.(interface{ DeprecatedAlias() component.Type }); ok && a.DeprecatedAlias().String() != "" {
		options = append(options, xexporter.WithDeprecatedTypeAlias(a.DeprecatedAlias()))
	}
	if s := f.TracesStability(); s != component.StabilityLevelUndefined {
		options = append(options, xexporter.WithTraces(watched(o, f.CreateTraces,
			func(e exporter.Traces, w *Watch) exporter.Traces { return traces{Traces: e, watch: w} }), s))
	}
	if s := f.MetricsStability(); s != component.StabilityLevelUndefined {
		options = append(options, xexporter.WithMetrics(watched(o, f.CreateMetrics,
			func(e exporter.Metrics, w *Watch) exporter.Metrics { return metrics{Metrics: e, watch: w} }), s))
	}
	if s := f.LogsStability(); s != component.StabilityLevelUndefined {
		options = append(options, xexporter.WithLogs(watched(o, f.CreateLogs,
			func(e exporter.Logs, w *Watch) exporter.Logs { return logs{Logs: e, watch: w} }), s))
	}
	if xf, ok := f.(xexporter.Factory); ok {
		if s := xf.ProfilesStability(); s != component.StabilityLevelUndefined {
			options = append(options, xexporter.WithProfiles(watched(o, xf.CreateProfiles,
				func(e xexporter.Profiles, w *Watch) xexporter.Profiles { return profiles{Profiles: e, watch: w} }), s))
		}
	}
	createDefault := f.CreateDefaultConfig
	if o.Defaults != nil {
		createDefault = func() component.Config {
			cfg := f.CreateDefaultConfig()
			o.Defaults(cfg)
			return cfg
		}
	}
	return xexporter.NewFactory(f.Type(), createDefault, options...)
}

// OneConsumer is Options.Defaults for an exporter whose sending queue is where queue says:
// one batch at a time, oldest first, where the collector sends 10 side by side and a backend
// without an out-of-order window refuses the older for good (e2e TestOTLPOutageLosesNothing).
func OneConsumer[C any](queue func(*C) *configoptional.Optional[exporterhelper.QueueBatchConfig]) func(component.Config) {
	return func(cfg component.Config) {
		if q := queue(cfg.(*C)).Get(); q != nil {
			q.NumConsumers = 1
		}
	}
}

// watched is create, for one signal, with the exporter's logger wrapped, its configuration
// naming its watch, and the exporter started on a host that holds the watch (wrap).
func watched[E any](o Options, create func(context.Context, exporter.Settings, component.Config) (E, error),
	wrap func(E, *Watch) E,
) func(context.Context, exporter.Settings, component.Config) (E, error) {
	return func(ctx context.Context, set exporter.Settings, cfg component.Config) (E, error) {
		var none E
		w, cfg, err := o.prepare(&set, cfg)
		if err != nil {
			return none, err
		}
		exp, err := create(ctx, set, cfg)
		if err != nil {
			return none, err
		}
		return wrap(exp, w), nil
	}
}

// Watched is Options.WithWatch for an exporter whose configuration is a *C, with its client's
// middlewares where middlewares says: a copy, whose list ends with the watch's ID; the
// collector keeps the configuration it validated as it was.
func Watched[C any](middlewares func(*C) *[]configmiddleware.Config) func(component.Config) (component.Config, error) {
	return func(cfg component.Config) (component.Config, error) {
		c, ok := cfg.(*C)
		if !ok {
			return nil, fmt.Errorf("configuration of type %T, not %T", cfg, c)
		}
		watched := *c
		list := middlewares(&watched)
		*list = append(slices.Clip(*list), configmiddleware.Config{ID: ID})
		return &watched, nil
	}
}

// prepare wraps set's logger with the rules and returns the exporter's watch and the
// configuration that names it.
func (o Options) prepare(set *exporter.Settings, cfg component.Config) (*Watch, component.Config, error) {
	wraps := make([]zap.Option, 0, len(o.Rules)+1)
	condensed := make([]*Condenser, 0, len(o.Rules))
	for _, r := range o.Rules {
		c := NewCondenser(r, o.Now)
		condensed = append(condensed, c)
		wraps = append(wraps, c.Option())
	}
	var storage *component.ID
	if o.PersistentQueue != nil {
		storage = o.PersistentQueue(cfg)
	}
	if storage != nil {
		wraps = append(wraps, zap.WrapCore(keptCore))
	}
	set.Logger = set.Logger.WithOptions(wraps...)
	watched, err := o.WithWatch(cfg)
	if err != nil {
		return nil, nil, err
	}
	giveUp := o.GiveUpWhenStopping
	if giveUp > 0 {
		if giveUp, err = giveUpAfter(giveUp); err != nil {
			return nil, nil, err
		}
	}
	w := New(set.Logger, o.LogUnanswered, o.Now)
	w.GiveUpWhenStopping(giveUp)
	w.storage, w.id = storage, set.ID
	w.condensed = condensed
	return w, watched, nil
}

// The exporters, started on a host that also holds their watch.
type (
	traces struct {
		exporter.Traces
		watch *Watch
	}
	metrics struct {
		exporter.Metrics
		watch *Watch
	}
	logs struct {
		exporter.Logs
		watch *Watch
	}
	profiles struct {
		xexporter.Profiles
		watch *Watch
	}
)

func (e traces) Start(ctx context.Context, host component.Host) error {
	return e.Traces.Start(ctx, e.watch.starting(ctx, host, pipeline.SignalTraces))
}

func (e metrics) Start(ctx context.Context, host component.Host) error {
	return e.Metrics.Start(ctx, e.watch.starting(ctx, host, pipeline.SignalMetrics))
}

func (e logs) Start(ctx context.Context, host component.Host) error {
	return e.Logs.Start(ctx, e.watch.starting(ctx, host, pipeline.SignalLogs))
}

func (e profiles) Start(ctx context.Context, host component.Host) error {
	return e.Profiles.Start(ctx, e.watch.starting(ctx, host, xpipeline.SignalProfiles))
}

// Shutdown starts the time the exporter has left to deliver to a failing endpoint.
func (e traces) Shutdown(ctx context.Context) error {
	return e.watch.stopping(ctx, e.Traces.Shutdown)
}

func (e metrics) Shutdown(ctx context.Context) error {
	return e.watch.stopping(ctx, e.Metrics.Shutdown)
}

func (e logs) Shutdown(ctx context.Context) error {
	return e.watch.stopping(ctx, e.Logs.Shutdown)
}

func (e profiles) Shutdown(ctx context.Context) error {
	return e.watch.stopping(ctx, e.Profiles.Shutdown)
}

// stopping runs an exporter's shutdown within the time the watch gives it. The repeats its
// condensed lines hold are logged before (they came before the stop) and after (those of
// the stop itself), so that the log of a stopped collector adds up.
func (w *Watch) stopping(ctx context.Context, shutdown func(context.Context) error) error {
	w.flushCondensed()
	w.beginStop()
	defer w.flushCondensed()
	defer w.endStop()
	return shutdown(ctx)
}

func (w *Watch) flushCondensed() {
	for _, c := range w.condensed {
		c.Flush()
	}
}

// InterruptedFirst is the line of an exporter that starts with batches its persistent queue
// was sending at the last stop.
const InterruptedFirst = "The batches a stop interrupted go first in the persistent sending queue, before those queued after them"

// starting returns the host an exporter starts on, with the watch among its extensions,
// once the batches that its persistent queue was sending at the last stop are at the front
// of that queue, which starts after this (queuefront).
func (w *Watch) starting(ctx context.Context, host component.Host, signal pipeline.Signal) component.Host {
	if w.storage != nil {
		n, err := restoreQueueFront(ctx, host, *w.storage, w.id, signal)
		switch {
		case err != nil:
			w.logger.Warn("The batches a stop interrupted could not be put first in the persistent sending queue: "+
				"they are sent after the rest, and a backend may refuse their samples as out of order",
				zap.String("storage", w.storage.String()), zap.Error(err))
		case n > 0:
			w.logger.Info(InterruptedFirst, zap.Int("batches", n))
		}
	}
	return withWatch(host, w)
}

// hostWithWatch adds a watch to the host's extensions, under ID.
type hostWithWatch struct {
	component.Host
	watch *Watch
}

func withWatch(host component.Host, w *Watch) component.Host {
	return hostWithWatch{Host: host, watch: w}
}

// Report passes a status event on to the collector's host, which a wrapper would otherwise
// hide from an exporter that reports one.
func (h hostWithWatch) Report(ev *componentstatus.Event) {
	if r, ok := h.Host.(componentstatus.Reporter); ok {
		r.Report(ev)
	}
}

func (h hostWithWatch) GetExtensions() map[component.ID]component.Component {
	extensions := map[component.ID]component.Component{}
	if h.Host != nil {
		for id, ext := range h.Host.GetExtensions() {
			extensions[id] = ext
		}
	}
	extensions[ID] = h.watch
	return extensions
}

// retrying is the collector's line for each retry of a failed export (exporterhelper), with
// the error, from every consumer of the sending queue.
const retrying = "Exporting failed. Will retry the request after interval."

// RepeatEvery is how long the same failure is held before a line counts it.
const RepeatEvery = 5 * time.Minute

// droppedNote and rejectedNote are the rules' notes for a batch the sending queue drops or refuses.
const (
	droppedNote = "while batches are dropped for the same reason, this is logged once every %s, with how many batches there were " +
		"and their points in dropped_items; otelcol_exporter_send_failed_metric_points counts each point"
	rejectedNote = "while batches are refused for the same reason (a sending queue that is full: the endpoint has not accepted data for long; " +
		"without a queue, an export that failed), this is logged once every %s, with how many batches there were and their points in rejected_items; " +
		"otelcol_exporter_enqueue_failed_metric_points counts each point"
)

// Rejecting is the collector's line for each batch its sending queue refuses (exporterhelper),
// with the error ("sending queue is full") and rejected_items; without a queue,
// for each batch whose export failed.
const Rejecting = "Exporting failed. Rejecting data."

// SendingQueueRules condense the lines the collector's sending queue and its retries write
// for every batch during an outage, one exporter a subject and its error the cause; a batch
// dropped because the collector is stopping is logged as it comes.
var SendingQueueRules = []RepeatRule{{
	Message: retrying,
	Cause:   "error",
	Every:   RepeatEvery,
	Note: fmt.Sprintf("while the export fails for the same reason, this is logged once every %s, with how many retries there were, "+
		"and a line says when the endpoint accepts data again", RepeatEvery),
}, {
	Message: Dropping,
	Cause:   "error",
	Every:   RepeatEvery,
	Sum:     "dropped_items",
	Unless:  stopping,
	Note:    fmt.Sprintf(droppedNote, RepeatEvery),
}, {
	Message: Rejecting,
	Cause:   "error",
	Every:   RepeatEvery,
	Sum:     "rejected_items",
	Unless:  stopping,
	Note:    fmt.Sprintf(rejectedNote, RepeatEvery),
}}
