// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package deliverywatch

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGiveUpAfterFromTheEnvironment(t *testing.T) {
	const def = 15 * time.Second
	t.Setenv(GiveUpEnv, "")
	d, err := giveUpAfter(def)
	require.NoError(t, err)
	assert.Equal(t, def, d, "unset: the default")

	t.Setenv(GiveUpEnv, "1m45s")
	d, err = giveUpAfter(def)
	require.NoError(t, err)
	assert.Equal(t, 105*time.Second, d)

	for _, bad := range []string{"45", "soon", "0s", "-5s"} {
		t.Setenv(GiveUpEnv, bad)
		_, err := giveUpAfter(def)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), GiveUpEnv+`="`+bad+`"`)
		assert.Contains(t, err.Error(), "such as 45s")
	}
}
