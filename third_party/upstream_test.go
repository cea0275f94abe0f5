// Package thirdparty checks the upstream code this repository carries with a fix
// (README.md): that the copy is the release plus the fix and nothing else, and that the fix
// does what it is for.
package thirdparty

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	exporterModule  = "github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusexporter"
	exporterRelease = "v0.161.0"
)

// exporterFix is the whole difference to the release, in accumulator.go: a stale point ends
// its own series and the loop goes on to the metric's next point, instead of returning.
var exporterFix = strings.NewReplacer(
	"\t\t\ta.registeredMetrics.Delete(signature)\n\t\t\treturn 0\n",
	"\t\t\ta.registeredMetrics.Delete(signature)\n\t\t\tcontinue\n",
)

// The copy in prometheusexporter/ is the release's module without its tests, Makefile and
// test data, byte for byte, but for the fix in accumulator.go.
func TestExporterIsTheReleasePlusTheFix(t *testing.T) {
	upstream := downloadModule(t, exporterModule+"@"+exporterRelease)
	want := map[string]string{}
	require.NoError(t, filepath.WalkDir(upstream, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(upstream, path)
		if strings.HasSuffix(rel, "_test.go") || strings.HasPrefix(rel, "testdata/") || rel == "Makefile" {
			return nil
		}
		b, err := os.ReadFile(path)
		want[rel] = string(b)
		return err
	}))
	require.Contains(t, want, "accumulator.go")
	fixed := exporterFix.Replace(want["accumulator.go"])
	require.Equal(t, 5, strings.Count(fixed, "\t\t\tcontinue\n")-strings.Count(want["accumulator.go"], "\t\t\tcontinue\n"),
		"the fix applies at the five stale-point checks of the release (gauge, sum, histogram, exponential histogram, summary)")
	want["accumulator.go"] = fixed

	got := map[string]string{}
	require.NoError(t, filepath.WalkDir("prometheusexporter", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("prometheusexporter", path)
		b, err := os.ReadFile(path)
		got[rel] = string(b)
		return err
	}))
	for name := range want {
		assert.Contains(t, got, name, "a file of the release is missing from the copy")
	}
	for name, text := range got {
		if assert.Contains(t, want, name, "a file the release does not have") {
			assert.True(t, text == want[name], "%s differs from the release plus the fix", name)
		}
	}
}

// downloadModule returns the folder of a module version in the module cache, fetching it
// through the module proxy if needed. It runs outside this module, whose go.mod replaces the
// module with the copy.
func downloadModule(t *testing.T, modVersion string) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", modVersion)
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	require.NoError(t, err, "go mod download %s: %s", modVersion, out)
	var info struct{ Dir, Error string }
	require.NoError(t, json.Unmarshal(out, &info))
	require.Empty(t, info.Error)
	return info.Dir
}
