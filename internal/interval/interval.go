// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package interval checks the polling intervals of this distribution's components.
package interval // import "github.com/modelplaneai/otelcol-modelplane/internal/interval"

import (
	"fmt"
	"time"
)

// Check refuses an interval that is not positive, and one under a millisecond: YAML gives
// a number without a unit to a duration as nanoseconds, so `collection_interval: 15` would
// poll in a loop. example is a sensible value for the field, named in the message.
func Check(d time.Duration, example string) error {
	switch {
	case d <= 0:
		return fmt.Errorf("must be positive, got %v", d)
	case d < time.Millisecond:
		return fmt.Errorf("%v is shorter than 1ms: a number without a unit is nanoseconds; write one, such as %s", d, example)
	}
	return nil
}
