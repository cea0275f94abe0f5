//go:build unix

// This file is ours, not the builder's: `make generate` leaves it alone.

package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"
)

// The collector reloads its configuration on SIGHUP. The mapping processor uses that to
// rebuild the scrape filter when a reloaded mapping file reads a metric the filter drops: the
// converter recomputes the keep rules and the collector restarts its pipelines in place (only
// the receivers, with the collector's alpha gate service.partialReload on).
func init() {
	// The collector starts handling SIGHUP only once its pipelines run; until then the signal's
	// default action would end the process. Listening here (the buffer of one drops repeats)
	// makes an early SIGHUP harmless.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	modelplanemapping.SetCollectorReload(func() error {
		return syscall.Kill(os.Getpid(), syscall.SIGHUP)
	})
}
