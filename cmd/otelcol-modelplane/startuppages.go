// This file is ours, not the builder's: `make generate` leaves it alone.

package main

import (
	"os"
	"strings"

	"github.com/modelplaneai/otelcol-modelplane/internal/startuppages"
)

// The main package's init runs after every other package's, so the pages that package
// initialisation alone read are released here (internal/startuppages).
func init() {
	if strings.HasSuffix(os.Args[0], ".test") {
		return // `go test` of this package
	}
	startuppages.AtStart(os.Getenv, os.Stderr)
}
