// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"
)

const validateMappingsUsage = `Usage: otelcol-modelplane validate-mappings [flags] FILE...

Checks MetricMapping files as the collector's mapping_files loads them, without a collector
configuration: for a repository of mappings, before they become ConfigMaps or cluster
objects. FILE is a file, a glob or a folder (its .yaml, .yml and .json files); a file may hold
several documents, or what kubectl get metricmappings -o yaml prints.

Every problem fails it (exit status 1) with the file, the document, the line, the field and
the value. What is valid but not what anyone means is a warning on stderr, and passes: an
entry that a built-in or an earlier entry overrides (in the collector's run order: built-ins,
then the files in the order given), and one whose names do not say what its series will be.

Flags:
`

// runValidateMappings is `otelcol-modelplane validate-mappings`; it returns the exit status.
func runValidateMappings(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("validate-mappings", validateMappingsUsage, stderr)
	cfg := modelplanemapping.NewFactory().CreateDefaultConfig().(*modelplanemapping.Config)
	noBuiltins := fs.Bool("no-builtins", false, "check without Modelplane's built-in mappings (overrides of a built-in are then not seen)")
	var builtins []string
	builtinFlag(fs, &builtins)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	switch {
	case *noBuiltins:
		cfg.Builtin = nil
	case builtins != nil:
		cfg.Builtin = builtins
	}
	cfg.MappingFiles = fs.Args()
	// A running collector waits for a missing file to appear; one named here is a typo.
	for _, f := range cfg.MappingFiles {
		if matches, err := filepath.Glob(f); err != nil || len(matches) == 0 {
			fmt.Fprintf(stderr, "%s: no such file\n", f)
			return 1
		}
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	warnings, err := cfg.CheckSources()
	for _, w := range warnings {
		fmt.Fprintln(stderr, "warning:", w)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	mappings, skipped := modelplanemapping.MappingFiles(cfg.MappingFiles)
	for _, doc := range skipped {
		// A ConfigMap's data keys hold the files the collector reads from its volume; the
		// manifest itself holds no MetricMapping.
		hint := ""
		if strings.Contains(doc, "(ConfigMap ") {
			hint = ": a ConfigMap's data keys are the files the collector reads; check them as files"
		}
		fmt.Fprintf(stderr, "note: %s is not a MetricMapping; skipped%s\n", doc, hint)
	}
	entries := 0
	for _, m := range mappings {
		entries += len(m.Metrics)
	}
	fmt.Fprintf(stdout, "%s, %s: valid\n", count(len(mappings), "MetricMapping"), count(entries, "entry"))
	return 0
}

// count is "1 entry" or "2 entries".
func count(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "y"):
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	default:
		return fmt.Sprintf("%d %ss", n, noun)
	}
}
