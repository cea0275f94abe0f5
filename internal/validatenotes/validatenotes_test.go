package validatenotes

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWarn(t *testing.T) {
	Warn("nowhere %d", 1) // Out unset: nothing, no panic
	var out strings.Builder
	Out = &out
	t.Cleanup(func() { Out = nil })
	Warn("exporters::%s: in no pipeline", "debug")
	Warn("%s", "100% literal")
	assert.Equal(t, "warning: exporters::debug: in no pipeline\nwarning: 100% literal\n", out.String())
}
