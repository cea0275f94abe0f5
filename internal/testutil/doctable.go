// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package testutil holds helpers shared by the tests of several packages.
package testutil // import "github.com/modelplaneai/otelcol-modelplane/internal/testutil"

import (
	"os"
	"strings"
	"testing"
)

// DocTable returns the rows of the first Markdown table under the heading that starts with
// heading in the file at path, each row its cells with surrounding backticks and spaces
// trimmed; the header and separator rows are left out.
func DocTable(t testing.TB, path, heading string) [][]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	var rows [][]string
	under, inTable := false, false
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
			if inTable {
				return rows
			}
			under = strings.HasPrefix(strings.TrimLeft(line, "# "), heading)
		case under && strings.HasPrefix(line, "|"):
			cells := strings.Split(strings.Trim(line, "|"), "|")
			if !inTable || strings.HasPrefix(strings.TrimSpace(cells[0]), "---") {
				inTable = true // the header, then the separator
				continue
			}
			for i, c := range cells {
				cells[i] = strings.Trim(strings.TrimSpace(c), "`")
			}
			rows = append(rows, cells)
		case inTable:
			return rows
		}
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no table under a heading %q", path, heading)
	}
	return rows
}
