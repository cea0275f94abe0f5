//go:build unix

// This file is ours, not the builder's: `make generate` leaves it alone.

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelplaneai/otelcol-modelplane/internal/collectorreload"
)

// The collector reloads its configuration on SIGHUP. The mapping processor uses that to
// rebuild the scrape filter when a reloaded mapping file reads a metric the filter drops: the
// converter recomputes the keep rules and the collector restarts its pipelines in place (only
// the receivers, with the collector's alpha gate service.partialReload on). The embedded
// default uses it to scrape a dcgm-exporter that starts after the collector.
func init() {
	// The collector starts handling SIGHUP only once its pipelines run; until then the signal's
	// default action would end the process. Listening here (the buffer of one drops repeats)
	// makes an early SIGHUP harmless.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	collectorreload.Set(func() error {
		if err := reloadWouldLoad(os.Args[1:]); err != nil {
			return err
		}
		return syscall.Kill(os.Getpid(), syscall.SIGHUP)
	})
}

// reloadWouldLoad validates, in a child process of this binary, the configuration a reload
// with these arguments would load. A reload shuts the pipelines down before it reads the
// configuration and ends the process when that fails, so a config file that broke after
// start (an edit in progress, a key the collector refuses) would turn a mapping update into
// an outage; with the check, the collector runs on and the processor says why it did not
// reload.
func reloadWouldLoad(args []string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("not reloading: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, exe, append([]string{reloadCheck}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("not reloading: the configuration a reload would load does not validate (%w): %s", err, bytes.TrimSpace(out))
	}
	return nil
}
