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

const (
	prometheusModule  = "github.com/prometheus/prometheus"
	prometheusRelease = "v0.314.0"
)

// prometheusChange is the whole difference to the release's files, besides the added
// scrape/aligned.go: with aligned offsets, a target's loop takes no spread offset, scrapes at
// once, and then waits for its interval's next multiple.
var prometheusChange = map[string]*strings.Replacer{
	"scrape/target.go": strings.NewReplacer(
		"func (t *Target) offset(interval time.Duration, offsetSeed uint64) time.Duration {\n",
		"func (t *Target) offset(interval time.Duration, offsetSeed uint64) time.Duration {\n"+
			"\tif alignedOffsets.Load() {\n"+
			"\t\treturn 0 // otelcol-modelplane: at once, then on the interval's multiples (aligned.go)\n"+
			"\t}\n"),
	"scrape/scrape.go": strings.NewReplacer(
		"\t// Reset the ticker so target scrape times are aligned to the offset+intervals.\n",
		"\tif alignedOffsets.Load() {\n"+
			"\t\t// otelcol-modelplane (aligned.go): the first scrape at once, the next on a multiple.\n"+
			"\t\tlast = sl.scrapeAndReport(last, time.Now().Round(0), errc)\n"+
			"\t\tselect {\n"+
			"\t\tcase <-time.After(untilNextMultiple(sl.interval)):\n"+
			"\t\tcase <-sl.ctx.Done():\n"+
			"\t\t\treturn\n"+
			"\t\t}\n"+
			"\t}\n\n"+
			"\t// Reset the ticker so target scrape times are aligned to the offset+intervals.\n"),
}

// The copy in prometheus/ holds the release's go.mod, LICENSE and NOTICE and, of each package
// it has, every file but the tests, byte for byte, but for the change above and the added
// scrape/aligned.go. (It holds only the packages this module builds; a package it lacks fails
// the build that needs it, by name.)
func TestPrometheusIsTheReleasePlusTheChange(t *testing.T) {
	upstream := downloadModule(t, prometheusModule+"@"+prometheusRelease)
	files := 0
	require.NoError(t, filepath.WalkDir("prometheus", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("prometheus", path)
		if !d.IsDir() {
			if _, err := os.Stat(filepath.Join(upstream, rel)); err != nil && rel != "scrape/aligned.go" {
				t.Errorf("%s: a file the release does not have", rel)
			}
			return nil
		}
		if rel == "." {
			for _, name := range []string{"go.mod", "LICENSE", "NOTICE"} {
				assertSameFile(t, upstream, name, nil)
			}
			return nil
		}
		release, err := os.ReadDir(filepath.Join(upstream, rel))
		if err != nil {
			return err
		}
		for _, e := range release {
			if name := e.Name(); !e.IsDir() && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
				files++
				assertSameFile(t, upstream, filepath.Join(rel, name), prometheusChange[filepath.ToSlash(filepath.Join(rel, name))])
			}
		}
		return nil
	}))
	assert.Greater(t, files, 300, "the copy holds the packages the collector builds")
	b, err := os.ReadFile("prometheus/scrape/aligned.go")
	require.NoError(t, err)
	assert.Contains(t, string(b), "func SetAlignedOffsets(aligned bool)")
}

// assertSameFile checks that the copy's file is the release's, with change applied when
// there is one, and that the change applied.
func assertSameFile(t *testing.T, upstream, rel string, change *strings.Replacer) {
	t.Helper()
	want, err := os.ReadFile(filepath.Join(upstream, rel))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join("prometheus", rel))
	if !assert.NoError(t, err, "%s of the release is missing from the copy", rel) {
		return
	}
	text := string(want)
	if change != nil {
		text = change.Replace(text)
		assert.NotEqual(t, string(want), text, "%s: the change no longer applies to the release", rel)
	}
	assert.True(t, string(got) == text, "%s differs from the release plus the change", rel)
}
