// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package deliverywatch

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// shutdownErr is exporterhelper's error for an export its shutdown interrupted (its
// experr package is internal), as the sending queue logs it.
type shutdownErr struct{ err error }

func (e shutdownErr) Error() string { return "interrupted due to shutdown: " + e.err.Error() }
func (e shutdownErr) Unwrap() error { return e.err }

// Of the sending queue's dropping lines, only the one for a batch a shutdown interrupted is
// logged as kept; a batch the backend refused for good is dropped and said to be, and other
// lines pass as they are.
func TestOnlyABatchAShutdownInterruptedIsLoggedAsKept(t *testing.T) {
	observed, logs := observer.New(zapcore.InfoLevel)
	logger := zap.New(observed, zap.WrapCore(keptCore), zap.AddStacktrace(zapcore.ErrorLevel)).With(zap.String("otelcol.component.id", "otlp_http"))

	logger.Error(Dropping, zap.Error(shutdownErr{errors.New("Post: the collector is stopping")}), zap.Int("dropped_items", 3))
	logger.Error(Dropping, zap.Error(fmt.Errorf("not retryable error: %w", errors.New("400 Bad Request"))), zap.Int("dropped_items", 2))
	logger.Error(Dropping, zap.Error(fmt.Errorf("batch: %w", shutdownErr{errors.New("EOF")})), zap.Int("dropped_items", 1))
	logger.Info("Exporting failed. Will retry the request after interval.", zap.Error(shutdownErr{errors.New("x")}))

	all := logs.All()
	require.Len(t, all, 4)
	assert.Equal(t, Kept, all[0].Message)
	assert.Equal(t, zapcore.WarnLevel, all[0].Level)
	assert.Empty(t, all[0].Stack, "a warning, not an error: no stack trace")
	assert.Equal(t, map[string]any{
		"otelcol.component.id": "otlp_http",
		"error":                "interrupted due to shutdown: Post: the collector is stopping",
		"kept_items":           int64(3),
	}, all[0].ContextMap())

	assert.Equal(t, Dropping, all[1].Message, "refused for good: dropped")
	assert.Equal(t, zapcore.ErrorLevel, all[1].Level)
	assert.EqualValues(t, 2, all[1].ContextMap()["dropped_items"])
	assert.NotEmpty(t, all[1].Stack)

	assert.Equal(t, Kept, all[2].Message, "wrapped, as a batcher may")
	assert.EqualValues(t, 1, all[2].ContextMap()["kept_items"])

	assert.Equal(t, zapcore.InfoLevel, all[3].Level, "any other line passes as it is")
}

// A logger at error level still logs a dropped batch, and no longer the kept one, which is a
// warning now.
func TestAKeptBatchFollowsTheLoggersLevel(t *testing.T) {
	observed, logs := observer.New(zapcore.ErrorLevel)
	logger := zap.New(observed, zap.WrapCore(keptCore))
	logger.Error(Dropping, zap.Error(shutdownErr{errors.New("EOF")}), zap.Int("dropped_items", 3))
	logger.Error(Dropping, zap.Error(errors.New("400")), zap.Int("dropped_items", 2))
	require.Equal(t, 1, logs.Len())
	assert.Equal(t, Dropping, logs.All()[0].Message)
}
