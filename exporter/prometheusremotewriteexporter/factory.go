// Package prometheusremotewriteexporter is contrib's Prometheus remote write exporter (type
// prometheus_remote_write, alias prometheusremotewrite, v0.161.0, unchanged), except for what
// it says while its endpoint fails. Contrib's says nothing at all while the endpoint refuses
// connections or does not answer in time, for as long as the batch's timeout (10 minutes in
// this distribution's settings), and logs an error for every retry of a 5xx answer. This one
// logs the first failure of either kind as it comes, a change of cause at once, the same
// failure again at most every 5 minutes with how many there were, and one line when the
// endpoint answers again.
package prometheusremotewriteexporter // import "github.com/modelplaneai/otelcol-modelplane/exporter/prometheusremotewriteexporter"

import (
	"context"
	"fmt"
	"slices"
	"time"

	contrib "github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusremotewriteexporter"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configmiddleware"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/xexporter"
	"go.uber.org/zap"

	"github.com/modelplaneai/otelcol-modelplane/internal/repeatlog"
)

// refusedWrite is contrib's error for each answer other than 2xx, each retry included, with
// the endpoint and status_code.
const refusedWrite = "failed to send WriteRequest to remote endpoint"

// repeatEvery is how long the same failure of an endpoint is held before a line counts it:
// retries come every few seconds for as long as a backend is down.
var repeatEvery = 5 * time.Minute

// now is the clock of the condensed log; tests move it.
var now = time.Now

// NewFactory returns the factory of the prometheus_remote_write exporter.
func NewFactory() exporter.Factory {
	f := contrib.NewFactory()
	options := []xexporter.FactoryOption{xexporter.WithMetrics(func(ctx context.Context, set exporter.Settings, cfg component.Config) (exporter.Metrics, error) {
		c, ok := cfg.(*contrib.Config)
		if !ok {
			return nil, fmt.Errorf("%s exporter: configuration of type %T, not contrib's", f.Type(), cfg)
		}
		set.Logger = set.Logger.WithOptions(zap.WrapCore(repeatlog.Core(repeatlog.Rule{
			Message: refusedWrite,
			Subject: "endpoint",
			Cause:   "status_code",
			Every:   repeatEvery,
			Note: fmt.Sprintf("the batch is retried; while the endpoint answers with the same status, this is logged once every %s, "+
				"with how many there were, and a line says when it accepts writes again", repeatEvery),
		}, now)), zap.WrapCore(repeatlog.Core(repeatlog.Rule{
			Message: unreachable,
			Subject: "endpoint",
			Cause:   "error",
			Every:   repeatEvery,
			Note: fmt.Sprintf("the batch stays queued and is retried until the exporter's timeout; while the error stays the same, "+
				"this is logged once every %s, with how many there were, and a line says when the endpoint accepts writes again", repeatEvery),
		}, now)))
		w := &watch{logger: set.Logger}
		// A copy: the collector keeps the configuration it validated. The client is HTTP
		// (contrib moves the top-level settings there when it unmarshals).
		watched := *c
		watched.HTTP.Middlewares = append(slices.Clip(c.HTTP.Middlewares), configmiddleware.Config{ID: watchID})
		exp, err := f.CreateMetrics(ctx, set, &watched)
		if err != nil {
			return nil, err
		}
		return &watchedExporter{Metrics: exp, watch: w}, nil
	}, f.MetricsStability())}
	if a, ok := f.(interface{ DeprecatedAlias() component.Type }); ok && a.DeprecatedAlias().String() != "" {
		options = append(options, xexporter.WithDeprecatedTypeAlias(a.DeprecatedAlias()))
	}
	return xexporter.NewFactory(f.Type(), f.CreateDefaultConfig, options...)
}

// watchedExporter is contrib's exporter, started on a host that also holds its watch, which
// its HTTP client takes as the last of its middlewares.
type watchedExporter struct {
	exporter.Metrics
	watch *watch
}

func (e *watchedExporter) Start(ctx context.Context, host component.Host) error {
	return e.Metrics.Start(ctx, hostWithWatch{Host: host, watch: e.watch})
}

// hostWithWatch adds the exporter's watch to the host's extensions, under watchID.
type hostWithWatch struct {
	component.Host
	watch *watch
}

func (h hostWithWatch) GetExtensions() map[component.ID]component.Component {
	extensions := map[component.ID]component.Component{}
	if h.Host != nil {
		for id, ext := range h.Host.GetExtensions() {
			extensions[id] = ext
		}
	}
	extensions[watchID] = h.watch
	return extensions
}
