// Package prometheusremotewriteexporter is contrib's Prometheus remote write exporter (type
// prometheus_remote_write, alias prometheusremotewrite, v0.161.0, unchanged), except for what
// it says while its endpoint fails. Contrib's says nothing at all while the endpoint refuses
// connections or does not answer in time, for as long as the batch's timeout (10 minutes in
// this distribution's settings), and logs an error for every retry of a 5xx answer. This one
// logs the first failure of either kind as it comes, a change of cause at once, the same
// failure again at most every 5 minutes with how many there were, and one line when the
// endpoint accepts data again (internal/deliverywatch).
package prometheusremotewriteexporter // import "github.com/modelplaneai/otelcol-modelplane/exporter/prometheusremotewriteexporter"

import (
	"fmt"

	contrib "github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusremotewriteexporter"
	"go.opentelemetry.io/collector/config/configmiddleware"
	"go.opentelemetry.io/collector/exporter"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/repeatlog"
)

// refusedWrite is contrib's error for each answer other than 2xx, each retry included, with
// the endpoint and status_code.
const refusedWrite = "failed to send WriteRequest to remote endpoint"

// repeatEvery is how long the same failure of an endpoint is held before a line counts it:
// retries come every few seconds for as long as a backend is down.
const repeatEvery = deliverywatch.RepeatEvery

// NewFactory returns the factory of the prometheus_remote_write exporter.
func NewFactory() exporter.Factory {
	return deliverywatch.Factory(contrib.NewFactory(), deliverywatch.Options{
		Rules: []repeatlog.Rule{{
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
		// Contrib's exporter retries a request without an answer silently.
		LogUnanswered: true,
		// The client is HTTP: contrib moves the top-level settings there when it unmarshals.
		WithWatch: deliverywatch.Watched(func(c *contrib.Config) *[]configmiddleware.Config { return &c.HTTP.Middlewares }),
	})
}
