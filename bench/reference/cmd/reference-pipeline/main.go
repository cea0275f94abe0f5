// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Program reference-pipeline runs Modelplane's reference processor chain (contrib's OTTL
// processors at the release Modelplane renders for) on batches it reads from standard input,
// for otelcol-modelplane's parity tests; package pipeline describes the framing.
package main

import (
	"fmt"
	"os"

	"github.com/modelplaneai/otelcol-modelplane/bench/reference/pipeline"
)

func main() {
	if err := pipeline.Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "reference-pipeline:", err)
		os.Exit(1)
	}
}
