// This file is otelcol-modelplane's, not Prometheus' (third_party/README.md).

package scrape

import (
	"sync/atomic"
	"time"
)

// alignedOffsets makes each scrape loop started while it is set scrape its target at once
// and then at the multiples of its interval on the wall clock, instead of first waiting for
// an offset spread over the interval by the hash of the target. The targets that share an
// interval are then scraped together, whenever each was discovered, so the process wakes
// once a round instead of once a target; the first scrape still comes at once.
var alignedOffsets atomic.Bool

// SetAlignedOffsets sets whether the scrape loops started from now on scrape on the
// multiples of their interval (true) or at the release's spread offsets (false, the default).
func SetAlignedOffsets(aligned bool) { alignedOffsets.Store(aligned) }

// untilNextMultiple is the time from now to the next multiple of interval since the epoch.
func untilNextMultiple(interval time.Duration) time.Duration {
	return interval - time.Duration(time.Now().UnixNano()%int64(interval))
}
