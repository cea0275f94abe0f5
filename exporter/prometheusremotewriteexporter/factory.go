// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package prometheusremotewriteexporter is contrib's Prometheus remote write exporter (type
// prometheus_remote_write, alias prometheusremotewrite), except for what it says
// while its endpoint fails, and one key more. Contrib's says nothing at all while the endpoint refuses
// connections or does not answer in time, for as long as the batch's timeout (10 minutes in
// this distribution's settings), and logs an error for every retry of a 5xx answer. This one
// logs the first failure of either kind as it comes, a change of cause at once, the same
// failure again at most every 5 minutes with how many there were, and one line when the
// endpoint accepts data again (internal/deliverywatch). And it takes one key more,
// sending_queue, a queue in front of contrib's exporter that can live on disk (config.go).
package prometheusremotewriteexporter // import "github.com/modelplaneai/otelcol-modelplane/exporter/prometheusremotewriteexporter"

import (
	"context"
	"fmt"
	"strings"
	"time"

	contrib "github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusremotewriteexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configmiddleware"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/xexporter"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
)

// refusedWrite is contrib's error for each answer other than 2xx, each retry included, with
// the endpoint and status_code.
const refusedWrite = "failed to send WriteRequest to remote endpoint"

// giveUpWhenStopping is how long a stopping exporter waits for a write in flight that gets
// no answer before it cancels it: contrib waits up to the client timeout (10 minutes in this
// distribution's settings), past the pod's grace period.
const giveUpWhenStopping = 15 * time.Second

// repeatEvery is how long the same failure of an endpoint is held before a line counts it:
// retries come every few seconds for as long as a backend is down.
const repeatEvery = deliverywatch.RepeatEvery

// NewFactory returns the factory of the prometheus_remote_write exporter.
func NewFactory() exporter.Factory {
	return newFactory(giveUpWhenStopping)
}

func newFactory(giveUpAfter time.Duration) exporter.Factory {
	return deliverywatch.Factory(queued(contrib.NewFactory()), deliverywatch.Options{
		Rules: append([]deliverywatch.RepeatRule{{
			Message: refusedWrite,
			Subject: "endpoint",
			Cause:   "status_code",
			Every:   repeatEvery,
			Note: fmt.Sprintf("the batch is retried; while the endpoint answers with the same status, this is logged once every %s, "+
				"with how many there were, and a line says when it accepts data again", repeatEvery),
		}, {
			Message: deliverywatch.Unanswered,
			Subject: "endpoint",
			Cause:   "error",
			Every:   repeatEvery,
			Note: fmt.Sprintf("the batch stays queued and is retried until the exporter's timeout; while the error stays the same, "+
				"this is logged once every %s, with how many there were, and a line says when the endpoint accepts data again", repeatEvery),
		}},
			// The sending queue's lines (retries, drops, refusals), this package's or contrib's.
			deliverywatch.SendingQueueRules...),
		// Contrib's exporter retries a request without an answer silently.
		LogUnanswered: true,
		// And its shutdown waits for a write without an answer.
		GiveUpWhenStopping: giveUpAfter,
		// The client is HTTP: contrib moves the top-level settings there when it unmarshals.
		WithWatch: deliverywatch.Watched(func(c *Config) *[]configmiddleware.Config { return &c.HTTP.Middlewares }),
		PersistentQueue: deliverywatch.PersistentQueue(func(c *Config) *configoptional.Optional[exporterhelper.QueueBatchConfig] {
			return &c.SendingQueue
		}),
	})
}

// queued is contrib's factory f with this package's configuration: a batch goes through the
// sending queue where one is set, and straight to contrib's exporter otherwise.
func queued(f exporter.Factory) exporter.Factory {
	var options []xexporter.FactoryOption
	if a, ok := f.(interface{ DeprecatedAlias() component.Type }); ok {
		options = append(options, xexporter.WithDeprecatedTypeAlias(a.DeprecatedAlias()))
	}
	create := func(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Metrics, error) {
		c, ok := cfg.(*Config)
		if !ok {
			return nil, fmt.Errorf("configuration of type %T, not %T", cfg, c)
		}
		remote := c.Config
		if !c.SendingQueue.HasValue() {
			return f.CreateMetrics(ctx, set, &remote)
		}
		// Contrib's exporter writes each batch once, synchronously, when the queue hands it
		// over; the queue retries it. Contrib's own queue would hold it in memory, and its
		// retries would keep a stopping collector's queue from learning that the write failed.
		remote.RemoteWriteQueue.Enabled = false
		remote.BackOffConfig.Enabled = false
		inner := set
		// The queue's exporterhelper reports the points sent and failed; contrib's would count
		// each of them again, once per write.
		inner.MeterProvider = withoutMeter{MeterProvider: set.MeterProvider, scope: exporterhelperScope}
		// Nor does its error line for each failed write, with a stack trace, that suggests the
		// sending queue this exporter already has.
		inner.Logger = set.Logger.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core {
			return withoutLine{Core: c, prefix: deliverywatch.Rejecting}
		}))
		exp, err := f.CreateMetrics(ctx, inner, &remote)
		if err != nil {
			return nil, err
		}
		return exporterhelper.NewMetrics(ctx, set, c, exp.ConsumeMetrics,
			exporterhelper.WithQueue(c.SendingQueue),
			exporterhelper.WithRetry(c.BackOffConfig),
			// Each write has contrib's timeout; a batch has as long as its retries take.
			exporterhelper.WithTimeout(exporterhelper.TimeoutConfig{}),
			exporterhelper.WithStart(exp.Start),
			exporterhelper.WithShutdown(exp.Shutdown),
			exporterhelper.WithCapabilities(exp.Capabilities()),
		)
	}
	options = append(options, xexporter.WithMetrics(create, f.MetricsStability()))
	return xexporter.NewFactory(f.Type(), func() component.Config {
		return createDefaultConfig(f.CreateDefaultConfig().(*contrib.Config))
	}, options...)
}

// exporterhelperScope is the meter of the collector's exporterhelper.
const exporterhelperScope = "go.opentelemetry.io/collector/exporter/exporterhelper"

// withoutLine is a core that leaves out the lines whose message begins with prefix.
type withoutLine struct {
	zapcore.Core
	prefix string
}

func (c withoutLine) With(fields []zapcore.Field) zapcore.Core {
	return withoutLine{Core: c.Core.With(fields), prefix: c.prefix}
}

func (c withoutLine) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if strings.HasPrefix(e.Message, c.prefix) {
		return ce
	}
	return c.Core.Check(e, ce)
}

// withoutMeter is a MeterProvider whose meter of scope records nothing.
type withoutMeter struct {
	metric.MeterProvider
	scope string
}

func (p withoutMeter) Meter(name string, opts ...metric.MeterOption) metric.Meter {
	if name == p.scope {
		return noop.NewMeterProvider().Meter(name, opts...)
	}
	return p.MeterProvider.Meter(name, opts...)
}
