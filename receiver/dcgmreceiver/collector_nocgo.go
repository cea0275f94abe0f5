// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

//go:build !cgo

package dcgmreceiver

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.uber.org/zap"
)

type noGPU struct{}

func newCollector(_ *Config, logger *zap.Logger) collector {
	logger.Warn("GPU support was not built in (this binary was built with CGO_ENABLED=0): the dcgm receiver emits nothing")
	return noGPU{}
}

func (noGPU) collect(context.Context, time.Time) (pmetric.Metrics, int, error) {
	return pmetric.NewMetrics(), 0, nil
}

func (noGPU) pause() {}

func (noGPU) shutdown() error { return nil }
