// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package deliverywatch

import (
	"fmt"
	"os"
	"time"
)

// GiveUpEnv is the environment variable that sets how long a stopping exporter waits for an
// endpoint that does not take its data (Options.GiveUpWhenStopping): a Go duration, such as
// 45s. The chart sets it from terminationGracePeriodSeconds.
const GiveUpEnv = "OTELCOL_MODELPLANE_EXPORTER_STOP_TIMEOUT"

// giveUpAfter is def, or what GiveUpEnv says instead; an error names the variable and its
// value.
func giveUpAfter(def time.Duration) (time.Duration, error) {
	v := os.Getenv(GiveUpEnv)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("environment variable %s=%q: want how long a stopping exporter goes on sending to an endpoint that does not take its data, a positive duration such as 45s", GiveUpEnv, v)
	}
	return d, nil
}
