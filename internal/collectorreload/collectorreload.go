// Package collectorreload holds how a component asks the running collector to reload its
// configuration. otelcol-modelplane sets it (cmd/otelcol-modelplane/reload_unix.go: validate
// the configuration a reload would load in a child process, then send itself SIGHUP); a
// build or test that sets nothing has no reload, and the components fall back to a warning.
package collectorreload // import "github.com/modelplaneai/otelcol-modelplane/internal/collectorreload"

import "sync/atomic"

var reload atomic.Pointer[func() error]

// Set makes f the reload; nil removes it.
func Set(f func() error) {
	if f == nil {
		reload.Store(nil)
		return
	}
	reload.Store(&f)
}

// Func returns the reload, or nil where none is set.
func Func() func() error {
	if f := reload.Load(); f != nil {
		return *f
	}
	return nil
}
