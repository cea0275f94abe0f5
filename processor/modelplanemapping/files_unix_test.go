// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

//go:build unix

package modelplanemapping

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A named pipe that a glob matches is skipped with an error naming it: opening it for
// reading would wait for a writer, and the reload, start and shutdown with it.
func TestNamedPipeInTheMappingFolderIsSkipped(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "good.yaml"), []byte(mappingDoc("v1")), 0o600))
	pipe := filepath.Join(dir, "pipe.yaml")
	require.NoError(t, syscall.Mkfifo(pipe, 0o600))

	done := make(chan struct{})
	var set *fileSet
	var errs []error
	go func() {
		defer close(done)
		set, errs = loadFiles([]string{filepath.Join(dir, "*.yaml")}, nil)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("loading the mapping files waits on the named pipe")
	}
	require.Len(t, errs, 1)
	assert.EqualError(t, errs[0], pipe+": a named pipe, not a regular file; skipped")
	assert.Len(t, set.mappings(), 1)
}

// A mapping file the collector cannot read from the start (a root-only file under the
// standalone install's unprivileged user; here a link to a file whose read fails even for
// root) is said once and skipped, while the other files map; the running collector does not
// stop over it. (Until 2026-12-01 the second reload dereferenced its missing state and
// crashed the collector.)
func TestUnreadableMappingFileFromTheStart(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "good.yaml"), []byte(mappingDoc("v1")), 0o600))
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.Symlink("/proc/self/mem", bad)) // a regular file; reading it at 0 fails
	if _, err := os.ReadFile(bad); err == nil {
		t.Skip("/proc/self/mem is readable here")
	}
	set, logs := observedSettings()
	f, saw := startFlow(t, set, mappingFilesOnly(t, dir, 10*time.Millisecond))
	saw("v1")
	time.Sleep(100 * time.Millisecond) // several reloads
	saw("v1")
	skipped := logs.FilterMessage("Skipped a mapping").All()
	require.Len(t, skipped, 1, "said once, not every reload")
	assert.Contains(t, skipped[0].ContextMap()["error"], bad+": read "+bad+": input/output error")
	assert.NotContains(t, skipped[0].ContextMap()["error"], "kept the last good version", "there was none")

	// Readable, it loads (and is the only file left).
	require.NoError(t, os.Remove(bad))
	require.NoError(t, os.WriteFile(bad, []byte(mappingDoc("v2")), 0o600))
	require.NoError(t, os.Remove(filepath.Join(dir, "good.yaml")))
	saw("v2")
	assert.Nil(t, f.bad.Load())
}

// A file that reports no size (as /proc's do) is still read no further than the limit.
func TestReadingStopsAtTheLimit(t *testing.T) {
	_, err := readMappingFile("/dev/zero")
	assert.EqualError(t, err, "more than the 4194304 bytes (4 MiB) a mapping file may hold")
}
