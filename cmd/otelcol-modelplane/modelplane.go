// This file is ours, not the builder's: `make generate` leaves it alone. It gives the
// generated collector its embedded default configuration and the few commands that the
// collector's own command line does not have.

package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"
)

// reloadCheck is the hidden subcommand with which the running collector validates the
// configuration a reload would load (reload_unix.go).
const reloadCheck = "validate-for-reload"

// Subcommands of the collector's command line that need no configuration.
var noConfig = map[string]bool{"components": true, "help": true, "completion": true, "featuregate": true}

func init() {
	if strings.HasSuffix(os.Args[0], ".test") {
		return // `go test` of this package: its flags are the test binary's
	}
	os.Args = prepareArgs(os.Args)
}

// prepareArgs handles `default-config`, `preview` and `--version` and, when no --config is given,
// points the collector at the embedded default.
func prepareArgs(args []string) []string {
	rest := args[1:]
	if len(rest) > 0 {
		switch rest[0] {
		case "default-config":
			_, _ = os.Stdout.Write(defaultconfig.YAML)
			os.Exit(0)
		case "--version", "-v", "version":
			fmt.Println(versionLine())
			os.Exit(0)
		case "preview":
			os.Exit(runPreview(rest[1:], os.Stdout, os.Stderr))
		case "validate":
			// validate also reads the mapping files and fails on any problem in them.
			modelplanemapping.SetStrictFileValidation(true)
		case reloadCheck:
			// validate as a reload would load the configuration: a broken mapping file
			// is skipped there, not fatal (reload_unix.go).
			args = append([]string{args[0], "validate"}, rest[1:]...)
		}
		if noConfig[rest[0]] {
			return args
		}
	}
	for _, a := range rest {
		if a == "-h" || a == "--help" || a == "--config" || strings.HasPrefix(a, "--config=") || a == "-c" {
			return args
		}
	}
	return append(args, "--config="+defaultconfig.URI)
}

// versionLine names our version and the collector release it is built on.
func versionLine() string {
	collector := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "go.opentelemetry.io/collector/otelcol" {
				collector = d.Version
			}
		}
	}
	return fmt.Sprintf("otelcol-modelplane version %s (OpenTelemetry Collector %s)", version, collector)
}

// version is dist.version of builder-config.yaml; a test keeps the two equal.
const version = "0.1.0"
