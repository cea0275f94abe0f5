// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest/observer"
)

// A file over the size limit (a glob that matches a log or a dump) is refused with an error
// naming it, its size and the limit, without reading it whole; the other files load.
func TestOversizedMappingFileIsRefused(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "good.yaml"), []byte(mappingDoc("v1")), 0o600))
	big := filepath.Join(dir, "big.yaml")
	require.NoError(t, os.WriteFile(big, nil, 0o600))
	require.NoError(t, os.Truncate(big, 64<<20)) // sparse: no 64 MiB written

	set, errs := loadFiles([]string{filepath.Join(dir, "*.yaml")}, nil)
	require.Len(t, errs, 1)
	assert.EqualError(t, errs[0], big+": 67108864 bytes, more than the 4194304 (4 MiB) a mapping file may hold")
	assert.Len(t, set.mappings(), 1, "good.yaml still loads")

	// A file at the limit is read.
	require.NoError(t, os.WriteFile(big, append([]byte(mappingDoc("v2")), make([]byte, maxFileSize-len(mappingDoc("v2")))...), 0o600))
	_, errs = loadFiles([]string{big}, nil)
	require.Len(t, errs, 1)
	assert.NotContains(t, errs[0].Error(), "may hold", "read and decoded (the NULs are a YAML error), not refused")
}

// A running collector whose mapping file grows past the limit keeps mapping with the file's
// last good version, says so once, and takes the file again once it is fixed.
func TestMappingFileGrownPastTheLimitKeepsTheLastGoodVersion(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "m.yaml")
	require.NoError(t, os.WriteFile(file, []byte(mappingDoc("v1")), 0o600))
	set, logs := observedSettings()
	f, saw := startFlow(t, set, mappingFilesOnly(t, dir, 20*time.Millisecond))
	saw("v1")

	require.NoError(t, os.Truncate(file, 5<<20))
	require.Eventually(t, func() bool { return logs.FilterMessage("Skipped a mapping").Len() > 0 }, 10*time.Second, 10*time.Millisecond)
	warning := logs.FilterMessage("Skipped a mapping").All()[0].ContextMap()["error"]
	assert.Equal(t, file+": 5242880 bytes, more than the 4194304 (4 MiB) a mapping file may hold; kept the last good version of the file", warning)
	f.forget()
	saw("v1")
	time.Sleep(100 * time.Millisecond) // several reloads of the same oversized file
	assert.Equal(t, 1, logs.FilterMessage("Skipped a mapping").Len(), "said once, not every reload")

	require.NoError(t, os.WriteFile(file, []byte(mappingDoc("v2")), 0o600))
	saw("v2")
	assert.Nil(t, f.bad.Load())
}

// A file mapping_files names without a wildcard that is not there, most often a misspelt
// name, loaded nothing and nothing said so (the processor's "no file matches" note needs every
// entry to match nothing). Now the processor warns once, naming the path, and loads the file
// when it appears; validate prints the same as a warning. A glob that matches nothing yet is
// a folder still empty, and stays unremarked.
func TestNamedMappingFileMissing(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "team.yaml"), []byte(strings.ReplaceAll(mappingDoc("team"), "src_", "team_")), 0o600))
	named := filepath.Join(dir, "my-engine.yaml")
	cfg := mappingFilesOnly(t, dir, 20*time.Millisecond)
	cfg.MappingFiles = []string{filepath.Join(dir, "team.yaml"), named, filepath.Join(dir, "empty", "*.yaml")}

	warnings, err := cfg.CheckSources()
	require.NoError(t, err)
	assert.Equal(t, []string{"mapping_files[1]: " + named + " does not exist: its mappings load once it does"}, warnings)

	set, logs := observedSettings()
	f, saw := startFlow(t, set, cfg)
	missing := func() []observer.LoggedEntry {
		return logs.FilterMessage("A mapping file mapping_files names does not exist; its mappings load once it does").All()
	}
	require.Len(t, missing(), 1)
	assert.Equal(t, named, missing()[0].ContextMap()["path"])
	time.Sleep(100 * time.Millisecond) // several reloads with the file still missing
	assert.Len(t, missing(), 1, "said once, not every reload")

	require.NoError(t, os.WriteFile(named, []byte(mappingDoc("v1")), 0o600))
	saw("v1")
	assert.Nil(t, f.bad.Load())
	assert.Len(t, missing(), 1)
}

// A folder named alone, as a ConfigMap's mount path is written, stands for its .yaml, .yml
// and .json files, sorted by name, as the shipped configurations' globs read a folder; it
// loaded nothing, without a word. Hidden files (a ConfigMap's ..data), other extensions
// and subfolders stay out; a new file in the folder is found on the next load.
func TestFolderNamedAlone(t *testing.T) {
	dir := t.TempDir()
	doc := func(name string) string {
		return "apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\nmetadata: {name: " + name + "}\nspec:\n  metrics:\n  - {from: src_" + name + ", to: modelplane_" + name + "}\n"
	}
	for file, content := range map[string]string{
		"b.yml":        doc("b"),
		"a.yaml":       doc("a"),
		"c.json":       `{"apiVersion": "modelplane.ai/v1alpha1", "kind": "MetricMapping", "metadata": {"name": "c"}, "spec": {"metrics": [{"from": "src_c", "to": "modelplane_c"}]}}`,
		"d.txt":        doc("d"),
		".hidden.yaml": doc("hidden"),
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, file), []byte(content), 0o600))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "e.yaml"), []byte(doc("e")), 0o600))

	names := func() []string {
		set, errs := loadFiles([]string{dir}, nil)
		require.Empty(t, errs)
		var out []string
		for _, m := range set.mappings() {
			out = append(out, m.Name)
		}
		return out
	}
	assert.Equal(t, []string{"a", "b", "c"}, names())
	assert.Empty(t, missingFiles([]string{dir}), "a folder is there")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "0.yaml"), []byte(doc("zero")), 0o600))
	assert.Equal(t, []string{"zero", "a", "b", "c"}, names())
}
