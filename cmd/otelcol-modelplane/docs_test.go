// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"io"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil"
)

const configurationDoc = "../../docs/configuration.md"

// docs/configuration.md's commands are the ones this distribution adds to the collector's,
// and its flag tables hold each command's flags as the command defines them.
func TestConfigurationDocListsEveryCommand(t *testing.T) {
	var documented []string
	for _, r := range testutil.DocTable(t, configurationDoc, "Commands") {
		documented = append(documented, strings.Fields(r[0])[0])
	}
	collectors := map[string]bool{"components": true, "featuregate": true, "print-config": true, "completion": true, "help": true}
	var helped []string
	for _, c := range newCommand(io.Discard, io.Discard).Commands() {
		if !collectors[c.Name()] {
			helped = append(helped, c.Name())
		}
	}
	sort.Strings(documented)
	sort.Strings(helped)
	assert.Equal(t, helped, documented, "the commands of --help and of docs/configuration.md")

	for cmd, run := range map[string]func([]string, *bytes.Buffer, *bytes.Buffer) int{
		"preview":           func(a []string, o, e *bytes.Buffer) int { return runPreview(a, o, e) },
		"validate-mappings": func(a []string, o, e *bytes.Buffer) int { return runValidateMappings(a, o, e) },
	} {
		var out, usage bytes.Buffer
		run([]string{"-h"}, &out, &usage)
		var defined []string
		for _, m := range regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(usage.String(), -1) {
			defined = append(defined, m[1])
		}
		var flags []string
		for _, r := range testutil.DocTable(t, configurationDoc, "Flags of `"+cmd+"`") {
			flags = append(flags, strings.TrimPrefix(r[0], "--"))
		}
		sort.Strings(defined)
		sort.Strings(flags)
		assert.NotEmpty(t, defined, "%s -h printed no flags", cmd)
		assert.Equal(t, defined, flags, "the flags of %s and of docs/configuration.md", cmd)
	}
}
