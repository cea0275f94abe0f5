// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package otlphttpexporter is the collector's OTLP/HTTP exporter (type otlp_http, alias
// otlphttp, unchanged), except for what it says while its endpoint fails: the
// collector's retry logs every retry ("Exporting failed. Will retry the request after
// interval.", every few seconds for as long as a backend is down, from each of the sending
// queue's consumers), and nothing when the endpoint takes data again. This one logs a retry
// at its first failure and at a change of cause, the same again at most every 5 minutes with
// how many there were, and one line when the endpoint accepts data again
// (internal/deliverywatch). Its sending queue sends one batch at a time unless num_consumers
// says otherwise (deliverywatch.OneConsumer).
package otlphttpexporter // import "github.com/modelplaneai/otelcol-modelplane/exporter/otlphttpexporter"

import (
	"time"

	"go.opentelemetry.io/collector/config/configmiddleware"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	core "go.opentelemetry.io/collector/exporter/otlphttpexporter"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
)

// giveUpWhenStopping is how long a stopping exporter waits for an endpoint that does not
// answer before it cancels the request in flight and sends no other: a request waits for its
// client's timeout otherwise, past the pod's grace period.
const giveUpWhenStopping = 15 * time.Second

// NewFactory returns the factory of the otlp_http exporter.
func NewFactory() exporter.Factory {
	return newFactory(giveUpWhenStopping)
}

func newFactory(giveUpAfter time.Duration) exporter.Factory {
	return deliverywatch.Factory(core.NewFactory(), deliverywatch.Options{
		Rules:              deliverywatch.SendingQueueRules,
		WithWatch:          deliverywatch.Watched(func(c *core.Config) *[]configmiddleware.Config { return &c.ClientConfig.Middlewares }),
		GiveUpWhenStopping: giveUpAfter,
		PersistentQueue:    deliverywatch.PersistentQueue(queue),
		Defaults:           deliverywatch.OneConsumer(queue),
	})
}

// queue is the exporter's sending queue.
func queue(c *core.Config) *configoptional.Optional[exporterhelper.QueueBatchConfig] {
	return &c.QueueConfig
}
