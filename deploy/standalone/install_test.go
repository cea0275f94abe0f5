// Package standalone tests the GPU-host install: `make install` with DESTDIR, the systemd
// unit through systemd-analyze, and the example config through `otelcol-modelplane validate`.
package standalone

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMakeInstall(t *testing.T) {
	bin := os.Getenv("OTELCOL_MODELPLANE_BIN")
	if bin == "" {
		t.Skip("OTELCOL_MODELPLANE_BIN not set: run through `make test`, which builds the binary")
	}
	dest := t.TempDir()
	cmd := exec.Command("make", "--no-print-directory", "install", "DESTDIR="+dest)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	for _, f := range []string{"usr/local/bin/otelcol-modelplane", "etc/systemd/system/otelcol-modelplane.service", "etc/otelcol-modelplane/config.yaml", "etc/otelcol-modelplane/mappings/example.yaml"} {
		assert.FileExists(t, filepath.Join(dest, f))
	}

	// The same install staged for a Grace (arm64) host, from this machine.
	if arm := os.Getenv("OTELCOL_MODELPLANE_BIN_ARM64"); arm != "" {
		stage := t.TempDir()
		out, err := exec.Command("make", "-C", filepath.Join("..", ".."), "--no-print-directory", "install", "DESTDIR="+stage, "INSTALL_BINARY="+arm).CombinedOutput()
		require.NoError(t, err, string(out))
		f, err := elf.Open(filepath.Join(stage, "usr/local/bin/otelcol-modelplane"))
		require.NoError(t, err)
		assert.Equal(t, elf.EM_AARCH64, f.Machine)
		require.NoError(t, f.Close())
		assert.FileExists(t, filepath.Join(stage, "etc/systemd/system/otelcol-modelplane.service"))
	}

	// A second install keeps the host's own config.
	cfgPath := filepath.Join(dest, "etc/otelcol-modelplane/config.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte("# mine\n"), 0o644))
	out, err = exec.Command("make", "-C", filepath.Join("..", ".."), "--no-print-directory", "install", "DESTDIR="+dest).CombinedOutput()
	require.NoError(t, err, string(out))
	mine, err := os.ReadFile(cfgPath)
	require.NoError(t, err)
	assert.Equal(t, "# mine\n", string(mine))

	// systemd-analyze verify needs the ExecStart binary where the unit says: point it at the
	// installed copy.
	if sa, err := exec.LookPath("systemd-analyze"); err == nil {
		unit, err := os.ReadFile(filepath.Join(dest, "etc/systemd/system/otelcol-modelplane.service"))
		require.NoError(t, err)
		moved := strings.ReplaceAll(string(unit), "/usr/local/bin/otelcol-modelplane", filepath.Join(dest, "usr/local/bin/otelcol-modelplane"))
		u := filepath.Join(t.TempDir(), "otelcol-modelplane.service")
		require.NoError(t, os.WriteFile(u, []byte(moved), 0o644))
		out, err := exec.Command(sa, "verify", u).CombinedOutput()
		assert.NoError(t, err, string(out))
		assert.Empty(t, strings.TrimSpace(string(out)), "systemd-analyze verify is silent on a good unit")
	} else {
		t.Log("systemd-analyze not installed: unit not verified")
	}

	// The example config validates, mapping folder included.
	example, err := os.ReadFile("config.yaml")
	require.NoError(t, err)
	cfg := strings.ReplaceAll(string(example), "/etc/otelcol-modelplane/mappings", filepath.Join(dest, "etc/otelcol-modelplane/mappings"))
	cfg = strings.ReplaceAll(cfg, "/var/lib/otelcol-modelplane", filepath.Join(t.TempDir(), "state"))
	c := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(c, []byte(cfg), 0o644))
	out, err = exec.Command(bin, "validate", "--config="+c).CombinedOutput()
	assert.NoError(t, err, string(out))

	// A broken mapping file fails validate, naming file, field and value.
	bad := filepath.Join(dest, "etc/otelcol-modelplane/mappings/bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\nmetadata: {name: bad}\nspec:\n  metrics:\n  - {from: x, to: modelplane_x, fromUnit: Milisecond}\n"), 0o644))
	out, err = exec.Command(bin, "validate", "--config="+c).CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), bad+`: MetricMapping "bad": metrics[0].fromUnit: unknown unit "Milisecond"`)
}
