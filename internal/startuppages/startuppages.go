// Package startuppages gives back the pages of the collector's own executable that only
// start-up read.
//
// Initialising some 600 packages (Kubernetes' API types, the Prometheus receiver's service
// discovery, the exporters) and building the pipelines map about 40 MiB of the executable's
// code and read-only data into the process, and most of it is never read again: a collector
// that has started and scrapes a node touches about 15-20 MiB of it. Those pages stay mapped,
// and counted in the process's RSS, until the kernel runs short of memory. Release unmaps the
// executable's read-only segments; the pages the collector goes on running fault straight back
// in from the page cache (no disk read). Settle, once the collector runs, drops the pages
// nothing maps any more from the page cache, so the memory is free and not just unmapped, and
// leaves the pages in use where they were on the kernel's lists.
package startuppages

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Env is the environment variable that turns the release off: set to "keep", the collector
// keeps every page it mapped, as collectors do by default.
const Env = "OTELCOL_MODELPLANE_STARTUP_PAGES"

// Again is when, after AtStart, the pages are released a second time: the collector's start
// (configuration, components, pipelines) is over well within it, here in about 0.2 s.
// Settled is when the release is settled (Settle): after the first scrapes and exports,
// whose code then stays mapped.
var (
	Again   = 2 * time.Second
	Settled = 30 * time.Second
)

// AtStart releases the start-up pages now, after package initialisation, again at Again,
// and settles the release at Settled, unless the environment says to keep them. It writes a
// line to stderr for a value of Env it does not know, and releases the pages then; and one
// for the first release or settling that fails (the collector has no logger yet at package
// initialisation, and stderr is where its logs go too), so that an RSS without the release
// has a reason in the log.
func AtStart(getenv func(string) string, stderr io.Writer) {
	switch v := getenv(Env); v {
	case "keep":
		return
	case "", "release":
	default:
		_, _ = fmt.Fprintf(stderr, "otelcol-modelplane: environment variable %s=%q: want \"keep\" (keep the executable's start-up pages mapped) or \"release\" (the default); releasing them\n", Env, v)
	}
	failures.set(stderr)
	releaseNow()
	released.Store(true)
	releaseLater()
}

// released says whether AtStart released the start-up pages, and AfterReload then does too.
var released atomic.Bool

// AfterReload releases, at Again after it, the pages that a reload of the configuration
// maps again (the collector builds its pipelines anew, reading the code start-up read), and
// settles the release at Settled, when AtStart released the start-up pages.
func AfterReload() {
	if released.Load() {
		releaseLater()
	}
}

func releaseLater() {
	afterFunc(Again, releaseNow)
	afterFunc(Settled, func() { failures.report(settle()) })
}

// releaseNow releases the pages and says the first failure.
func releaseNow() {
	_, err := release()
	failures.report(err)
}

// release and settle are Release and Settle, and what a test makes fail.
var (
	release = Release
	settle  = Settle
)

// failures says the first failure, once: the next release fails the same way (the same
// /proc, the same kernel), and it runs after every reload.
var failures failureReport

type failureReport struct {
	mu     sync.Mutex
	stderr io.Writer
	said   bool
}

func (f *failureReport) set(stderr io.Writer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stderr, f.said = stderr, false
}

func (f *failureReport) report(err error) {
	if err == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.said || f.stderr == nil {
		return
	}
	f.said = true
	_, _ = fmt.Fprintf(f.stderr, "otelcol-modelplane: %v; the collector runs on, and %s=keep turns the release off\n", err, Env)
}

// afterFunc is time.AfterFunc, and what a test sees of the scheduling.
var afterFunc = func(d time.Duration, f func()) { time.AfterFunc(d, f) }
