// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package configcheck

import (
	"context"
	"io"

	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"
)

// one runs a single check as the converter would, with logger (nil: none) and notes.
type one struct {
	check func(*checker, *confmap.Conf) error
	c     *checker
}

func (o one) Convert(_ context.Context, conf *confmap.Conf) error { return o.check(o.c, conf) }

func newChecker(check func(*checker, *confmap.Conf) error, logger *zap.Logger, notes io.Writer) one {
	if logger == nil {
		logger = zap.NewNop()
	}
	return one{check: check, c: &checker{Settings: Settings{Notes: notes}, logger: logger}}
}
