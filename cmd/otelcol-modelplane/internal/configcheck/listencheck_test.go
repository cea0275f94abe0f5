// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package configcheck

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
)

// The listeners are checked at the first conversion of a start on the embedded
// configurations, and not otherwise: validate and reloads find the addresses held by a
// running collector.
func TestListenersCheckedOnceAtStart(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	t.Setenv("MODELPLANE_TELEMETRY_ENDPOINT", taken.Addr().String())
	t.Setenv("MODELPLANE_PROMETHEUS_ENDPOINT", "not-an-address") // left to the default's own check
	conf := confmap.New()

	own := NewFactory(Settings{ListenersAtStart: func() bool { return false }}).Create(confmap.ConverterSettings{})
	assert.NoError(t, own.Convert(context.Background(), conf), "a configuration of the user's")

	embedded := NewFactory(Settings{ListenersAtStart: func() bool { return true }}).Create(confmap.ConverterSettings{})
	assert.ErrorContains(t, embedded.Convert(context.Background(), conf), taken.Addr().String()+", where the embedded default serves the collector's own metrics, is taken by another process")
	assert.NoError(t, embedded.Convert(context.Background(), conf), "once: a reload finds its own addresses taken")
}
