package modelplanemapping

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
