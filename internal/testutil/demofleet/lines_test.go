// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package demofleet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/model/textparse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each line keeps its text; a sample's value is found after its series, labels holding
// spaces, braces and escaped quotes included, and blank lines stay where they were.
func TestReadLinesKeepsEachLine(t *testing.T) {
	page := "# HELP a_total As \"many\".\n# TYPE a_total counter\na_total{p=\"x} y\",q=\"\\\"\"}  7.0 1700000000\n\n# a comment\nb 2\n"
	lines, err := readLines([]byte(page))
	require.NoError(t, err)
	require.Len(t, lines, 6)
	assert.Equal(t, []textparse.Entry{textparse.EntryHelp, textparse.EntryType, textparse.EntrySeries, textparse.EntryInvalid, textparse.EntryComment, textparse.EntrySeries},
		[]textparse.Entry{lines[0].entry, lines[1].entry, lines[2].entry, lines[3].entry, lines[4].entry, lines[5].entry})
	s := lines[2]
	assert.Equal(t, "a_total", s.name)
	assert.Equal(t, `x} y`, s.labels.Get("p"))
	assert.Equal(t, 7.0, s.value)
	assert.Equal(t, "7.0 1700000000", s.text[s.valueAt:])
	for i, l := range strings.Split(strings.TrimSuffix(page, "\n"), "\n") {
		assert.Equal(t, l, lines[i].text)
	}

	page2, err := Parse([]byte(page))
	require.NoError(t, err)
	assert.Equal(t, strings.Replace(page, "7.0 1700000000", "14 1700000000", 1), string(page2.Render(100)), "the counter doubles, as written")
}

// Whatever the page, readLines fails or returns one entry per line, each line as written.
func FuzzReadLines(f *testing.F) {
	for _, seed := range []string{"a 1\n", "# TYPE a counter\na_total{x=\"y\"} 1.5\n\n", "a{x=\"1} 1\n", "\n\n# c\n"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, page string) {
		lines, err := readLines([]byte(page))
		if err != nil {
			return
		}
		raw := strings.Split(strings.TrimRight(page, "\n"), "\n")
		require.Len(t, lines, len(raw))
		for i := range raw {
			assert.Equal(t, raw[i], lines[i].text)
		}
	})
}

// Every shared page reads, one entry to each line.
func TestEverySharedPageReads(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "exposition", "*.prom"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		_, err = Parse(data)
		assert.NoError(t, err, file)
	}
}
