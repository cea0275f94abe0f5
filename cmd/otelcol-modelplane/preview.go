// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/modelplaneai/otelcol-modelplane/cmd/otelcol-modelplane/internal/preview"
)

const previewUsage = `Usage: otelcol-modelplane preview [flags] SOURCE

Shows the modelplane_* series otelcol-modelplane makes of one /metrics page: the page the
embedded default's Prometheus endpoint would serve for it. SOURCE is an http(s) URL of an
engine's /metrics (its address alone, http://127.0.0.1:8000, reads /metrics), a file holding
such a page, or - to read it from stdin:

  kubectl exec POD -- curl -s localhost:8000/metrics | otelcol-modelplane preview -

The collector itself scrapes the page once, maps it with the built-in mappings, every
--mapping file and, with --cluster, the cluster's MetricMapping objects (in the collector's
run order), and prints its exporter's page; the points in, mapped and dropped go to stderr.
A mapping file or cluster object with a problem fails it with a message naming the file or
object, the field and the value; a page over the collector's per-target limits (16 MiB, 20000
series kept) fails it as the collector would refuse it.

Flags:
`

// runPreview is `otelcol-modelplane preview`; it returns the exit status.
func runPreview(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("preview", previewUsage, stderr)
	var o preview.Options
	var labels []string
	fs.Func("mapping", "a MetricMapping file or glob, as mapping_files takes them (repeatable)", func(s string) error {
		o.MappingFiles = append(o.MappingFiles, s)
		return nil
	})
	fs.Func("label", "a target label NAME=VALUE, as Kubernetes relabelling sets them: deployment, replica, engine, ... (repeatable)", func(s string) error {
		if name, _, ok := strings.Cut(s, "="); !ok || name == "" {
			return fmt.Errorf("want NAME=VALUE, got %q", s)
		}
		labels = append(labels, s)
		return nil
	})
	fs.BoolVar(&o.NoBuiltins, "no-builtins", false, "leave out Modelplane's built-in mappings")
	builtinFlag(fs, &o.Builtin)
	fs.BoolVar(&o.ClusterMappings, "cluster", false, "also apply the cluster's MetricMapping objects, read from the API server as cluster_mappings reads them")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "the kubeconfig for --cluster (implies it; default $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&o.Job, "job", "preview", "the scrape job's name (the job label)")
	fs.DurationVar(&o.Timeout, "timeout", 30*time.Second, "how long the whole preview may take")
	// Flags may come before or after SOURCE.
	var sources []string
	for {
		if err := fs.Parse(args); err != nil {
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		sources = append(sources, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if o.NoBuiltins && len(o.Builtin) > 0 {
		fmt.Fprintf(stderr, "preview: --no-builtins and --builtin %s contradict each other\n\n", strings.Join(o.Builtin, ","))
		fs.Usage()
		return 2
	}
	if len(sources) != 1 {
		fmt.Fprintf(stderr, "preview: want one SOURCE, got %d\n\n", len(sources))
		fs.Usage()
		return 2
	}
	o.Source, o.Stdin = sources[0], os.Stdin
	o.Labels = map[string]string{}
	for _, l := range labels {
		name, value, _ := strings.Cut(l, "=")
		o.Labels[name] = value
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "preview: %v\n", err)
		return 1
	}
	o.Executable = exe
	res, err := preview.Run(context.Background(), o)
	if err != nil {
		fmt.Fprintf(stderr, "preview of %s: %v\n", o.Source, err)
		return 1
	}
	_, _ = stdout.Write(res.Page)
	for _, n := range res.Notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	fmt.Fprintf(stderr, "%d points scraped: %d read by a mapping, %d dropped as not modelplane_*\n", res.In, res.Mapped, res.Dropped)
	return 0
}

// newFlagSet is the flag set of one of our commands, its usage text followed by its flags.
func newFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// builtinFlag adds --builtin, the built-in mappings to run by name, as the processor's
// builtin list takes them.
func builtinFlag(fs *flag.FlagSet, names *[]string) {
	fs.Func("builtin", "the built-in mappings to run, by name, comma-separated, as the processor's builtin list: default,modelplane-nim adds NIM's to those on by default (default: those on by default)", func(s string) error {
		for _, n := range strings.Split(s, ",") {
			if n = strings.TrimSpace(n); n != "" {
				*names = append(*names, n)
			}
		}
		return nil
	})
}
