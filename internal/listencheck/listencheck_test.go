package listencheck

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
)

// The check runs once after AtStart, and not otherwise: validate and reloads find the
// addresses held by a running collector.
func TestChecksOnceAtStart(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	t.Setenv("MODELPLANE_TELEMETRY_ENDPOINT", taken.Addr().String())
	t.Setenv("MODELPLANE_PROMETHEUS_ENDPOINT", "not-an-address") // left to the default's own check
	conv := NewFactory().Create(confmap.ConverterSettings{})
	conf := confmap.New()

	assert.NoError(t, conv.Convert(context.Background(), conf), "not asked")
	AtStart()
	assert.ErrorContains(t, conv.Convert(context.Background(), conf), taken.Addr().String()+", where the embedded default serves the collector's own metrics, is taken by another process")
	assert.NoError(t, conv.Convert(context.Background(), conf), "once: a reload finds its own addresses taken")
}
