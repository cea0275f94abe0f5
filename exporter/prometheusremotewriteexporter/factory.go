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
	"time"

	contrib "github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusremotewriteexporter"
	"go.opentelemetry.io/collector/config/configmiddleware"
	"go.opentelemetry.io/collector/exporter"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/repeatlog"
)

// refusedWrite is contrib's error for each answer other than 2xx, each retry included, with
// the endpoint and status_code.
const refusedWrite = "failed to send WriteRequest to remote endpoint"

// giveUpWhenStopping is how long a stopping exporter goes on retrying an endpoint that fails
// before it drops what it has not delivered. Contrib's exporter retries a batch until its
// timeout (10 minutes in this distribution's settings) and its shutdown waits for that, so a
// collector asked to stop (or to reload its exporters) while the backend is down did not
// stop, and the kubelet killed it after the pod's grace period (30 s by default): 15 s
// leaves the rest of the collector's shutdown time within that.
const giveUpWhenStopping = 15 * time.Second

// repeatEvery is how long the same failure of an endpoint is held before a line counts it:
// retries come every few seconds for as long as a backend is down.
const repeatEvery = deliverywatch.RepeatEvery

// NewFactory returns the factory of the prometheus_remote_write exporter.
func NewFactory() exporter.Factory {
	return newFactory(giveUpWhenStopping)
}

func newFactory(giveUpAfter time.Duration) exporter.Factory {
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
		// And it retries inside its own loop, which its shutdown does not interrupt.
		GiveUpWhenStopping: giveUpAfter,
		// The client is HTTP: contrib moves the top-level settings there when it unmarshals.
		WithWatch: deliverywatch.Watched(func(c *contrib.Config) *[]configmiddleware.Config { return &c.HTTP.Middlewares }),
	})
}
